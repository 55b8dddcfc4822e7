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
from wikikv.compile.model import derive_full
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
    texts = {doc_id: kb.get("/sources/articles/" + doc_id).text for doc_id in docs}  # type: ignore[union-attr]
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


def test_compact_drops_surfaces_and_shares_equal_reasons(store: Store, small_en: Path) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(small_en)
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    model = derive_full(docs, schema).model
    before = {k: {o: set(r) for o, r in e.links.items()} for k, e in model.entities.items()}
    slim.compact(model)
    reasons = [r for e in model.entities.values() for r in e.links.values()]
    assert len(reasons) > len({id(r) for r in reasons})  # one object per distinct set
    assert all(isinstance(r, frozenset) for r in reasons)
    assert {k: {o: set(r) for o, r in e.links.items()} for k, e in model.entities.items()} == before
    assert all(not e.surfaces for e in model.entities.values())


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
