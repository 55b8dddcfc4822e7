"""What a full build's render keeps of the derive (:mod:`wikikv.compile.slim`): the analyses
without their mentions and the model without surfaces, with shared link reasons, render every
page exactly as the whole ones do; and a build hands the render nothing more (nor keeps the
analysis's gazetteer through it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from wikikv.compile import slim, state
from wikikv.compile.model import Entity, Fact, article_path, derive_full
from wikikv.compile.pipeline import Compiler
from wikikv.compile.render import Desired, desired_nodes
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store


def _every_node(kb: KnowledgeBase, slimmed: bool) -> dict[str, Any]:
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    model = derive_full(docs, schema).model
    if slimmed:
        docs = slim.for_render(docs)
        slim.compact(model)
    want = desired_nodes(kb.name, docs, model, schema, state.load_descriptor(kb), "x", "1")
    texts = {doc_id: kb.get(article_path(doc_id)).text for doc_id in docs}  # type: ignore[union-attr]
    out: dict[str, Any] = {"sigs": want.sigs, "dirs": want.dir_text}
    for path in want.sigs:
        if path not in want.dirs:
            text, meta = want.render(path, texts)
            out[path] = (text, msgspec.structs.replace(meta, created_at=0.0, updated_at=0.0))
    return out


def test_the_render_reads_nothing_slimming_drops(store: Store, hotpot_slice: Path) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    whole = _every_node(kb, slimmed=False)
    slimmed = _every_node(kb, slimmed=True)
    assert len(whole) > 300
    assert slimmed == whole


def test_a_chinese_render_reads_nothing_slimming_drops(store: Store, small_zh: Path) -> None:
    # the naming counts are read by the Chinese definition fallback only
    kb = store.create_kb("kb")
    Compiler(kb).build(small_zh)
    assert _every_node(kb, slimmed=True) == _every_node(kb, slimmed=False)


def test_slimmed_analyses_keep_only_the_digest_sentences(store: Store, hotpot_slice: Path) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    docs = state.load_docs(kb)
    slimmed = slim.for_render(docs)
    assert any(len(d.sentences) > len(d.digest) for d in docs.values())
    for doc_id, d in docs.items():
        kept = slimmed[doc_id].sentences
        assert slimmed[doc_id].digest == d.digest  # the digest's signature reads the indexes
        assert [kept[i] for i in d.digest] == [d.sentences[i] for i in d.digest]
        assert all(s is None for i, s in enumerate(kept) if i not in d.digest)


def test_naming_counts_keep_the_key_facts_documents() -> None:
    ent = Entity(
        "k",
        "K",
        "person",
        facts=[Fact("a", 0, 5), Fact("b", 0, 5)],
        times_named={"a": 3, "b": 1, "c": 9},
    )
    assert slim.fact_counts(ent) == {"a": 3, "b": 1}
    # no key-fact document counted: an empty count would make the render count the facts
    ent.times_named = {"c": 9}
    assert slim.fact_counts(ent) == {"c": 9}
    ent.facts = []
    assert slim.fact_counts(ent) == {"c": 9}


def test_compact_drops_surfaces_and_shares_equal_reasons(store: Store, small_en: Path) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(small_en)
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    model = derive_full(docs, schema).model
    before = {k: {o: set(r) for o, r in e.links.items()} for k, e in model.entities.items()}
    counted = {k: dict(e.times_named) for k, e in model.entities.items()}
    slim.compact(model)
    for k, e in model.entities.items():  # the counts of the key facts' documents stay
        assert {d: counted[k][d] for d in {f.doc for f in e.facts} & set(counted[k])} == {
            d: n for d, n in e.times_named.items() if d in {f.doc for f in e.facts}
        }
    assert any(e.times_named for e in model.entities.values())
    reasons = [r for e in model.entities.values() for r in e.links.values()]
    assert len(reasons) > len({id(r) for r in reasons})  # one object per distinct set
    assert all(isinstance(r, frozenset) for r in reasons)
    assert {k: {o: set(r) for o, r in e.links.items()} for k, e in model.entities.items()} == before
    assert all(not e.surfaces for e in model.entities.values())
    assert not model.variants  # read only to find the affected keys, before the render


def test_a_build_renders_from_slimmed_analyses(
    store: Store, small_en: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Desired] = []
    gazetteers: list[int] = []
    phase_b = Compiler._phase_b

    def spy(self: Compiler, want: Desired, *args: Any) -> Any:
        seen.append(want)
        gazetteers.append(self.provider.gazetteer.size)  # type: ignore[attr-defined]
        return phase_b(self, want, *args)

    monkeypatch.setattr(Compiler, "_phase_b", spy)
    Compiler(store.create_kb("kb")).build(small_en)
    (want,) = seen
    assert want.docs
    assert all(not d.mentions and not d.roles for d in want.docs.values())
    assert all(not e.surfaces for e in want.model.entities.values())
    assert gazetteers == [0]  # the corpus gazetteer served phase A only
