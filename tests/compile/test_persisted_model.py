"""The entity model kept in the kb (:mod:`wikikv.compile.persisted`): adding documents to a built
kb updates only what they touch, and gives exactly the wiki — pages, links, facts — and the
stored model that a full build of all the documents gives; removing gives what a build without
them gives."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.compile.corpus_parts import full_rerender_writes, lines_of, write_lines
from wikikv.bench.compile import snapshot
from wikikv.compile import hub_merge, persisted, shown_links, state, title_index
from wikikv.compile import model as model_module
from wikikv.compile.analyze import ANALYSIS_VERSION
from wikikv.compile.model import derive_full
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.errors import SimulatedCrash
from wikikv.store.backends.base import Backend, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import Store, open_store
from wikikv.text import entities as ents


def _pages(kb: KnowledgeBase) -> dict[str, object]:
    """The wiki but its root, whose text names the kb and the descriptor written at cold start
    (from the first build's documents)."""
    out: dict[str, object] = dict(snapshot(kb))
    out.pop("/")
    return out


def _model_records(kb: KnowledgeBase) -> dict[bytes, bytes]:
    start = kb.keys.system(persisted.PREFIX)
    return {k: item.value for k, item in kb.backend.scan(start, start + b"\xff")}


def _decoded_model(kb: KnowledgeBase) -> dict[bytes, object]:
    return {k: msgspec.msgpack.decode(v) for k, v in _model_records(kb).items()} | {
        b"meta": persisted.load_meta(kb)
    }


def _stored_model_equals_a_full_derive(kb: KnowledgeBase) -> None:
    """Every record of the stored model (entities, candidate counts, indexes, members) is what
    a full derive of the kb's documents writes."""
    stored = _decoded_model(kb)
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    persisted.write_full(kb, derive_full(docs, schema), docs, schema.folder_corpus, schema)
    full = _decoded_model(kb)
    assert stored.keys() == full.keys()
    for key, value in full.items():
        assert stored[key] == value, key


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(f"lmdb://{tmp_path / 'store'}?sync=false")


def _built_then_added(
    store: Store,
    tmp_path: Path,
    corpus: Path,
    picks: tuple[int, ...],
    options: CompileOptions | None = None,
) -> tuple[KnowledgeBase, KnowledgeBase, Any]:
    """A kb built from ``corpus`` without the lines ``picks``, which are then added; the kb
    built from the whole corpus; the add's report."""
    lines = lines_of(corpus)
    rest = [line for i, line in enumerate(lines) if i not in picks]
    whole = store.create_kb("whole")
    Compiler(whole, options=options).build(corpus)
    kb = store.create_kb("kb")
    Compiler(kb, options=options).build(write_lines(tmp_path / "rest.jsonl", rest))
    added = write_lines(tmp_path / "added.jsonl", [lines[i] for i in picks])
    report = Compiler(kb, options=options).add(added)
    return kb, whole, report


@pytest.mark.parametrize("picks", [(149,), (3, 77), (0,)])
def test_adding_documents_equals_a_full_build(
    store: Store, tmp_path: Path, hotpot_slice: Path, picks: tuple[int, ...]
) -> None:
    kb, whole, report = _built_then_added(store, tmp_path, hotpot_slice, picks)
    assert report.model_reads, report.model_fallback
    assert report.model_reads.get("documents", 0) < len(lines_of(hotpot_slice)) - len(picks)
    # the new documents were analysed with the stored gazetteer and the new titles, read by key
    lines = lines_of(hotpot_slice)
    ids = [json.loads(lines[i])["id"] for i in picks]
    assert [state.load_docs(kb)[i] for i in ids] == [state.load_docs(whole)[i] for i in ids]
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0


def test_an_add_with_bounded_related_pages_equals_a_full_build(
    store: Store, tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With pages showing 3 links, the add picks the same 3 as a full build (from the stored
    entity, whose links stay whole) and says how many it leaves out the same way."""
    monkeypatch.setattr(shown_links, "MAX_SHOWN", 3)
    kb, whole, report = _built_then_added(store, tmp_path, hotpot_slice, (3, 77, 149))
    assert report.model_reads, report.model_fallback
    pages = _pages(kb)
    bounded = [p for p, rec in pages.items() if "more related pages are not listed" in str(rec)]
    assert len(bounded) > 10
    assert pages == _pages(whole)
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0


def _shown_links(kb: KnowledgeBase) -> dict[str, list[str]]:
    """The related pages each bounded entity page shows."""
    out: dict[str, list[str]] = {}
    for path in kb.prefix("/"):
        rec = kb.get(path)
        if isinstance(rec, FileRecord) and "more related pages are not listed" in rec.text:
            out[path] = list(rec.meta.links)
    return out


@pytest.mark.parametrize("spoil", [False, True])
def test_an_add_ranks_a_hubs_links_from_its_stored_subject_sums(
    store: Store,
    tmp_path: Path,
    hotpot_slice: Path,
    monkeypatch: pytest.MonkeyPatch,
    spoil: bool,
) -> None:
    """An entity over the bound keeps how often each subject's documents name it; an add
    ranks its links from those sums plus its own documents' part, reading no document's subject
    for them, and the links the pages show change as a full build's do (London now shows the
    subject of an added article that names it). A stored record that does not count what its
    entity counts (``spoil``) is not used: the subjects are read instead."""
    monkeypatch.setattr(shown_links, "MAX_SHOWN", 3)
    picks = (10, 98, 125, 143)  # each names some of London, India, Aston Villa, England …
    lines = lines_of(hotpot_slice)
    whole = store.create_kb("whole")
    Compiler(whole).build(hotpot_slice)
    kb = store.create_kb("kb")
    Compiler(kb).build(
        write_lines(tmp_path / "rest.jsonl", [ln for i, ln in enumerate(lines) if i not in picks])
    )
    if spoil:
        london = persisted.family_key(kb, "l", "london")
        kb.commit([Put(london, msgspec.msgpack.encode(shown_links.SubjectSums(1, 1, {"x": 1})))])
    before = _shown_links(kb)
    raw = kb.backend.get(persisted.entity_key(kb, "london"))
    assert raw is not None
    old_london = msgspec.msgpack.decode(raw.value, type=model_module.Entity)
    assert len(old_london.times_named) >= 8
    subjects: list[str] = []  # the documents whose subject the add reads
    read = persisted.read_records

    def counted(kb: KnowledgeBase, family: str, names: Iterable[str], type_: Any) -> Any:
        names = list(names)
        if family == "ta":
            subjects.extend(names)
        return read(kb, family, names, type_)

    monkeypatch.setattr(persisted, "read_records", counted)
    report = Compiler(kb).add(write_lines(tmp_path / "added.jsonl", [lines[i] for i in picks]))
    # London's stored sums spare reading the subjects of all its documents (some name
    # entities the add recomputes, whose documents' subjects it reads to link them)
    assert (set(old_london.times_named) <= set(subjects)) is spoil, subjects
    assert report.model_reads, report.model_fallback
    reads = report.model_reads
    assert reads.get("entities (from added documents)", 0) >= 4, reads
    # the hubs' stored sums read and their added part summed in (London's too, unless spoilt)
    assert reads.get("subject sums added to", 0) >= 4, reads
    assert reads["subject sums added to"] == reads["l"] - spoil, reads
    assert reads.get("subjects summed (render)", 0) == 0, reads
    after = _shown_links(kb)
    assert "/places/Gillespie Road" not in before["/places/London"]
    assert "/places/Gillespie Road" in after["/places/London"]
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)


@pytest.mark.parametrize("caps", [(150, 150), (2, 3)])
def test_an_add_updates_much_named_entities_from_the_added_documents(
    store: Store,
    tmp_path: Path,
    hotpot_slice: Path,
    monkeypatch: pytest.MonkeyPatch,
    caps: tuple[int, int],
) -> None:
    """Entities no document is about are updated from the added documents alone (their old
    documents are not read) and come out as a full build makes them, also when their key facts
    and mentions are cut at the bound (2 and 3 here: the merge must cut in document order)."""
    for module in (model_module, hub_merge):
        monkeypatch.setattr(module, "MAX_FACTS", caps[0])
        monkeypatch.setattr(module, "MAX_MENTIONS", caps[1])
    # they name London, the United States, Led Zeppelin, Aston Villa, the Premier League and
    # India, each named by 8-12 of the slice's documents and none the subject of one
    kb, whole, report = _built_then_added(store, tmp_path, hotpot_slice, (10, 98, 125, 143))
    assert report.model_reads, report.model_fallback
    assert report.model_reads.get("entities (from added documents)", 0) >= 6, report.model_reads
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)


def test_a_routed_hub_is_filed_from_its_stored_sums_and_the_added_documents(
    store: Store, tmp_path: Path, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where directories are routed by category (a fan-out of 32 routes this slice), the
    entities named by many documents keep the sums of where they are named, and an add files
    them from those sums and its own documents: their naming documents' labels are not read,
    and the stored model (sums included) and the wiki are what a full derive and render of the
    same documents make (with the kb's routing plan: a build of all of them from scratch plans
    its own, which may group the directories differently)."""
    monkeypatch.setattr(hub_merge, "NAMED_IN_MIN", 3)
    options = CompileOptions(fanout=32)
    picks = (10, 98, 125, 143)  # each names some of London, the United States, India …
    kb, _, report = _built_then_added(store, tmp_path, hotpot_slice, picks, options)
    assert report.model_reads, report.model_fallback
    assert report.model_reads.get("r", 0) >= 3, report.model_reads
    assert report.model_reads.get("document labels", 0) == 0, report.model_reads
    # the rows of members not rendered again are their lines in the listings as written
    assert report.model_reads.get("listing rows kept (render)", 0) >= 1, report.model_reads
    assert state.load_schema(kb).routing  # type: ignore[union-attr]
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb, fanout=32) == 0


def test_gazetteer_buckets_are_stored_in_the_detectors_order(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    """A bucket is read as stored (no sort per add: a common first word's entries number
    thousands at 36 copies), so it is stored in the order the detector scans it, and the stored
    gazetteer offers a position the candidates the full build's offers."""
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    prefix = persisted.family_key(kb, "gz", "")[: -len(persisted._h(""))]
    dec = msgspec.msgpack.Decoder(list[title_index.GazEntry])
    buckets = [dec.decode(item.value) for _, item in kb.backend.scan(prefix, prefix + b"\xff")]
    assert len(buckets) > 50
    assert all(b == sorted(b, key=title_index.gaz_order) for b in buckets)
    assert all(len({title_index.gaz_bucket(e.toks) for e in b}) == 1 for b in buckets)

    def read(family: str, names: list[str], type_: Any) -> dict[str, Any]:
        return persisted.read_records(kb, family, names, type_)

    schema = state.load_schema(kb)
    assert schema is not None
    full = ents.build_gazetteer(
        *model_module.gazetteer_for(state.load_docs(kb), schema.folder_corpus)
    )
    entries = [e for b in buckets for e in b]
    positions = {(e.toks[0], e.toks[1] if len(e.toks) > 1 else None) for e in entries}
    positions |= {(first, "zz") for first, _ in positions}
    stored = title_index.StoredGazetteer(read)
    assert len(positions) > 100
    for first, second in positions:
        assert list(stored.candidates(first, second)) == list(full.candidates(first, second))
    # a new title's entry merged in (its bucket sorted again)
    first = entries[0].toks[0]
    extra = title_index.GazEntry(first + " zz", (first, "zz"), first + " zz")
    stored = title_index.StoredGazetteer(read, came=[extra])
    full.add(first + " zz", first + " zz")
    full.finish()
    assert list(stored.candidates(first, "zz")) == list(full.candidates(first, "zz"))


class _GazetteerReads:
    """The kb's backend, keeping the ``gz`` buckets it reads (decoded)."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self._backend = kb.backend
        self._prefix = persisted.family_key(kb, "gz", "")[: -len(persisted._h(""))]
        self._dec = msgspec.msgpack.Decoder(list[title_index.GazEntry])
        self.buckets: list[list[title_index.GazEntry]] = []

    def get_many(self, keys: Sequence[bytes]) -> Any:
        items = list(self._backend.get_many(keys))
        for key, item in zip(keys, items, strict=True):
            if item is not None and key.startswith(self._prefix):
                self.buckets.append(self._dec.decode(item.value))
        return items

    def get(self, key: bytes) -> Any:
        return self.get_many([key])[0]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def test_an_add_decodes_only_the_gazetteer_buckets_its_text_can_hit(
    store: Store, tmp_path: Path
) -> None:
    """The detector asks a position for the entries that can match before the next word, so
    an add reads the buckets of its text's word pairs (and one-word entries), not every entry
    under a common first word ("John")."""
    titles = ["John Keller", "John Smith", "John of Gaunt", "John Adams", "Omegna", "Lake Orta"]
    docs = [
        {"id": f"d{i}", "title": t, "text": f"{t} is named here. John Keller lived in Omegna."}
        for i, t in enumerate(titles)
    ]
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "built.jsonl", [json.dumps(d) for d in docs]))
    extra = {
        "id": "x",
        "title": "Villa Rossi",
        "text": "Villa Rossi stands in Omegna. John Keller stayed at Villa Rossi by Lake Orta.",
    }
    reads = _GazetteerReads(kb)
    kb.backend = reads  # type: ignore[assignment]
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads, report.model_fallback
    words = [ents.fold(w) for w in re.findall(r"[\w'’.&-]+", f"{extra['title']} {extra['text']}")]
    pairs = set(zip(words, words[1:], strict=False))
    read = {e.key for bucket in reads.buckets for e in bucket}
    assert {"john keller", "omegna", "lake orta"} <= read, read
    for bucket in reads.buckets:
        for e in bucket:
            assert (e.toks[:2] in pairs) if len(e.toks) > 1 else e.toks[0] in words, e


def test_adding_a_title_other_documents_name(store: Store, tmp_path: Path) -> None:
    """A new document whose title a built document already names (as a candidate or as a bare
    surname) turns those mentions into links to the new page."""
    docs = [
        {
            "id": "a",
            "title": "Lake Orta",
            "text": "Lake Orta lies near Omegna. John Keller "
            "painted Lake Orta in 1890. Keller lived in Omegna.",
        },
        {
            "id": "b",
            "title": "Omegna",
            "text": "Omegna is a town on Lake Orta. The painter John Keller visited Omegna twice.",
        },
        {
            "id": "c",
            "title": "Villa Rossi",
            "text": "Villa Rossi stands in Omegna. Keller stayed at Villa Rossi.",
        },
    ]
    extra = {
        "id": "d",
        "title": "John Keller",
        "text": "John Keller was a Swiss painter. Keller painted lakes and towns such as Omegna.",
    }
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "three.jsonl", [json.dumps(d) for d in docs]))
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads
    page = kb.get("/sources/digests/b")
    _stored_model_equals_a_full_derive(kb)
    # A full derive and render of the same kb (its schema came from the first three documents)
    # finds nothing to write.
    assert full_rerender_writes(kb) == 0
    assert page is not None


def test_removing_documents_equals_a_build_without_them(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    lines = lines_of(hotpot_slice)
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    gone = [json.loads(lines[i])["id"] for i in (5, 60)]
    Compiler(kb).remove(gone)
    without = store.create_kb("without")
    Compiler(without).build(
        write_lines(tmp_path / "w.jsonl", [ln for i, ln in enumerate(lines) if i not in (5, 60)])
    )
    assert _pages(kb) == _pages(without)
    _stored_model_equals_a_full_derive(kb)
    # and the model stored by the removal serves the next add
    report = Compiler(kb).add(write_lines(tmp_path / "back.jsonl", [lines[5]]))
    assert report.model_reads


def test_a_stale_or_missing_model_falls_back_to_a_full_derive(
    store: Store, tmp_path: Path, small_en: Path
) -> None:
    lines = lines_of(small_en)
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", lines[:-1]))
    meta = persisted.load_meta(kb)
    assert meta is not None
    meta.version = "written by other code"
    kb.commit([persisted.Put(kb.keys.system(persisted.META), persisted._enc.encode(meta))])
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", lines[-1:]))
    assert not report.model_reads
    assert report.model_fallback == "the stored model was written by other code"
    whole = store.create_kb("whole")
    Compiler(whole).build(small_en)
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)


def test_an_add_killed_after_the_model_update_resumes_to_a_full_build(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    lines = lines_of(hotpot_slice)
    whole = store.create_kb("whole")
    Compiler(whole).build(hotpot_slice)
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", lines[:-1]))
    one = write_lines(tmp_path / "one.jsonl", lines[-1:])
    # killed while rendering: the model records already hold the new document
    with pytest.raises(SimulatedCrash):
        Compiler(kb, options=CompileOptions(fail_after_writes=3)).add(one)
    report = Compiler(kb).add(one)
    assert report.resumed
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)


def test_an_analysis_written_by_other_detector_code_is_redone(store: Store, small_en: Path) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(small_en)
    before = _pages(kb)
    stale = state.load_docs(kb)["d3"]
    assert stale.version == ANALYSIS_VERSION
    stale.version = "an older detector"
    stale.mentions = []  # what that detector found (nothing): the pages must not keep it
    state.write(kb, state.doc_ops(kb, [stale]))
    report = Compiler(kb).build(small_en)
    assert report.analyzed == 1
    assert state.load_docs(kb)["d3"].version == ANALYSIS_VERSION
    assert _pages(kb) == before
    assert Compiler(kb).build(small_en).analyzed == 0


def test_pages_linking_an_entity_the_add_renames_follow_it(store: Store, tmp_path: Path) -> None:
    """The new document spells a name most often otherwise: the name's page moves, and a page
    the new document does not touch (Lake Orta) must link the new path."""
    docs = [
        {
            "id": "a",
            "title": "Lake Orta",
            "text": "Lake Orta lies near Omegna. The Bellini Trust owns the island. The "
            "Bellini Trust was founded in 1900.",
        },
        {
            "id": "b",
            "title": "Omegna",
            "text": "Omegna is a town on Lake Orta. The Bellini Trust runs a museum in Omegna.",
        },
    ]
    extra = {
        "id": "c",
        "title": "Villa Rossi",
        "text": "Villa Rossi stands in Omegna. The BELLINI TRUST bought Villa Rossi. The "
        "BELLINI TRUST sold it. The BELLINI TRUST closed.",
    }
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "two.jsonl", [json.dumps(d) for d in docs]))
    assert kb.exists("/topics/The Bellini Trust")
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads
    assert kb.exists("/topics/The BELLINI TRUST")
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0


def test_adding_to_a_chinese_folder_corpus(store: Store, tmp_path: Path, small_zh: Path) -> None:
    """A folder corpus (two 后记 told apart by collection): the add of a new essay updates the
    model locally and leaves what a full derive and render of the kb gives."""
    essay = small_zh / "坟" / "灯下漫笔.md"
    held = tmp_path / "held.md"
    held.write_text(essay.read_text(encoding="utf-8"), encoding="utf-8")
    essay.unlink()
    kb = store.create_kb("kb")
    Compiler(kb).build(small_zh)
    essay.write_text(held.read_text(encoding="utf-8"), encoding="utf-8")
    report = Compiler(kb).build(small_zh)
    assert report.analyzed == 1
    assert report.model_reads, report.model_fallback
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0


def test_a_title_whose_kind_changes_moves_and_its_digests_follow(
    store: Store, tmp_path: Path
) -> None:
    """A new document with an earlier id and the same title gives the title entity its kind (the
    first document's): the page moves to another dimension, and the digest of the built
    document about it, which the add does not touch otherwise, must name the new path."""
    docs = [
        {
            "id": "m2",
            "title": "Omegna",
            "text": "Omegna is a town in Piedmont on Lake Orta. Omegna has a harbour.",
        },
        {
            "id": "m3",
            "title": "Lake Orta",
            "text": "Lake Orta is a lake near Omegna. Villa Rossi stands by Lake Orta.",
        },
    ]
    extra = {
        "id": "m1",
        "title": "Omegna",
        "text": "Omegna was an Italian painter. He was born in Turin in 1850. He painted lakes.",
    }
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "two.jsonl", [json.dumps(d) for d in docs]))
    before = persisted.load_meta(kb)
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads, report.model_fallback
    assert before is not None
    whole = store.create_kb("whole")
    Compiler(whole).build(
        write_lines(tmp_path / "all.jsonl", [json.dumps(d) for d in [*docs, extra]])
    )
    assert _pages(kb) == _pages(whole)
    digest = kb.get("/sources/digests/m2")
    assert isinstance(digest, FileRecord)
    assert not any(p.startswith("/places/") for p in digest.meta.links), digest.meta.links
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0


class _CountingReads:
    """The kb's backend, counting the records read (by key or by a scan) under some prefixes."""

    def __init__(self, backend: Backend, prefixes: dict[str, bytes]) -> None:
        self._backend = backend
        self._prefixes = prefixes
        self.reads = dict.fromkeys(prefixes, 0)

    def _count(self, keys: Iterable[bytes]) -> None:
        for k in keys:
            for name, prefix in self._prefixes.items():
                if k.startswith(prefix):
                    self.reads[name] += 1

    def get(self, key: bytes) -> Any:
        self._count([key])
        return self._backend.get(key)

    def get_many(self, keys: Sequence[bytes]) -> Any:
        self._count(keys)
        return self._backend.get_many(keys)

    def scan(self, start: bytes, end: bytes, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for key, item in self._backend.scan(start, end, *args, **kwargs):
            self._count([key])
            yield key, item

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def test_an_add_reads_only_the_records_it_touches(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    lines = lines_of(hotpot_slice)
    kb = store.create_kb("kb")
    built = Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", lines[:-1]))
    prefixes = {
        "entities": persisted.entity_key(kb, "")[: -len(persisted._h(""))],
        "analyses": kb.keys.system(state.DOC_PREFIX),
        "signatures": kb.keys.system(state.SIG_PREFIX),
    }
    counting = _CountingReads(kb.backend, prefixes)
    kb.backend = counting  # type: ignore[assignment]
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", lines[-1:]))
    assert report.model_reads, report.model_fallback
    reads = counting.reads
    # the records of the entities the document names and their neighbours (11 here), not the
    # kb's 286 (a scan of them all, as the render did before, is counted too); likewise the
    # analyses of the documents it touches and the signatures of the pages it renders
    assert 0 < reads["entities"] * 10 < built.entities, reads
    assert 0 < reads["analyses"] * 10 < built.documents, reads
    assert 0 < reads["signatures"] * 10 < built.entities + 2 * built.documents, reads


class _CountingPuts:
    """The kb's backend, keeping the keys of the records it puts."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self.put: list[bytes] = []

    def batch(self, ops: Sequence[Any]) -> Any:
        self.put += [op.key for op in ops if isinstance(op, Put)]
        return self._backend.batch(ops)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


@pytest.mark.parametrize("pick", [-1, 3])
def test_an_add_rewrites_only_the_name_lists_it_changes(
    store: Store, tmp_path: Path, hotpot_slice: Path, pick: int
) -> None:
    """The chosen names and a name word's entities are long lists of a large wiki (41k and 17k
    keys at 9 copies): an add writes those whose value changes, no other."""
    lines = lines_of(hotpot_slice)
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", [x for x in lines if x != lines[pick]]))
    before = _model_records(kb)
    counting = _CountingPuts(kb.backend)
    kb.backend = counting  # type: ignore[assignment]
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [lines[pick]]))
    assert report.model_reads, report.model_fallback
    after = _model_records(kb)
    lists = (
        persisted.family_key(kb, "p", "")[: -len(persisted._h(""))],
        kb.keys.system(persisted.PREFIX + "chosen"),
    )
    written = {k for k in counting.put if k.startswith(lists)}
    changed = {k for k, v in after.items() if k.startswith(lists) and before.get(k) != v}
    assert report.model_reads.get("p", 0) > len(changed)  # it read some it left alone
    assert written == changed
    _stored_model_equals_a_full_derive(kb)


def test_a_kb_with_the_one_record_signature_map_is_read_and_rewritten(
    store: Store, tmp_path: Path, small_en: Path
) -> None:
    """Kbs built before signatures were kept per page hold them in one record: the first sync
    reads it and writes them per page; the next add is local."""
    lines = lines_of(small_en)
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", lines[:-2]))
    sigs = state.load_pages(kb).sigs
    start = kb.keys.system(state.SIG_PREFIX)
    keyed = [k for k, _ in kb.backend.scan(start, start + b"\xff")]
    legacy = msgspec.msgpack.encode({"sigs": sigs})
    old_map = persisted.Put(kb.keys.system(state.PAGES), legacy)
    kb.commit([*(persisted.Delete(k) for k in keyed), old_map])
    assert state.load_pages_lazily(kb) is None
    Compiler(kb).add(write_lines(tmp_path / "one.jsonl", lines[-2:-1]))
    assert kb.backend.get(kb.keys.system(state.PAGES)) is None
    assert state.load_pages_lazily(kb) is not None
    second = Compiler(kb).add(write_lines(tmp_path / "two.jsonl", lines[-1:]))
    assert second.model_reads, second.model_fallback
    whole = store.create_kb("whole")
    Compiler(whole).build(small_en)
    assert _pages(kb) == _pages(whole)
    assert full_rerender_writes(kb) == 0


def test_an_add_leaves_the_whole_wiki_passes_of_the_quality_gate_to_a_later_sync(
    store: Store, tmp_path: Path, small_en: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Error Book's periodic re-validation reads every page: a local add counts its batch
    but leaves the pass to the next sync that renders the whole wiki."""
    from wikikv.quality import errorbook as eb
    from wikikv.quality import hooks

    lines = lines_of(small_en)
    kb = store.create_kb("kb")
    Compiler(kb, options=hooks.gated()).build(write_lines(tmp_path / "rest.jsonl", lines[:-1]))
    monkeypatch.setattr(hooks, "VERIFY_EVERY", 1)
    batches = eb.load(kb).batches
    report = Compiler(kb, options=hooks.gated()).add(
        write_lines(tmp_path / "one.jsonl", lines[-1:])
    )
    assert report.model_reads, report.model_fallback
    assert eb.load(kb).batches == batches + 1  # counted, not run (a run sets it to 0)
    Compiler(kb, options=hooks.gated()).add([])  # not a local add: the pass runs
    assert eb.load(kb).batches == 0


def test_a_listing_member_deleted_by_hand_is_listed_from_its_entity(
    store: Store, tmp_path: Path
) -> None:
    """A listing the add renders reads its other members' rows from their pages; a page deleted
    by hand gives none, so its row comes from the entity record (as a full build lists it)."""
    docs = [
        {"id": "a", "title": "Lake Orta", "text": "Lake Orta is a lake in Piedmont near Omegna."},
        {"id": "b", "title": "Omegna", "text": "Omegna is a town in Piedmont on Lake Orta."},
    ]
    extra = {"id": "c", "title": "Stresa", "text": "Stresa is a town in Piedmont."}
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "two.jsonl", [json.dumps(d) for d in docs]))
    whole = store.create_kb("whole")
    Compiler(whole).build(
        write_lines(tmp_path / "all.jsonl", [json.dumps(d) for d in [*docs, extra]])
    )
    assert whole.exists("/places/Stresa")
    kb.delete("/places/Omegna")  # a member the add does not render
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads, report.model_fallback
    mine, theirs = kb.get("/places"), whole.get("/places")
    assert isinstance(mine, DirRecord)
    assert isinstance(theirs, DirRecord)
    assert mine.text == theirs.text


@pytest.mark.parametrize("top", [1, 2])
def test_a_short_ranking_is_kept_exactly(
    store: Store,
    tmp_path: Path,
    hotpot_slice: Path,
    monkeypatch: pytest.MonkeyPatch,
    top: int,
) -> None:
    """A dimension keeps only its best members per class: with one or two kept, nearly every
    add changes who is best (members enter above, fall below, or leave — then the dimension's
    members are read again); the kept ranking must still be the full derive's."""
    monkeypatch.setattr(persisted, "TOP", top)
    lines = lines_of(hotpot_slice)
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "rest.jsonl", lines[:-3]))
    for i, line in enumerate(lines[-3:]):
        report = Compiler(kb).add(write_lines(tmp_path / f"one{i}.jsonl", [line]))
        assert report.model_reads, report.model_fallback
    whole = store.create_kb("whole")
    Compiler(whole).build(hotpot_slice)
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)


def test_a_best_member_that_leaves_is_replaced_from_the_directories(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one member kept per class, the best person no document is about (John Keller) gets
    a document of his own: he leaves that class, and the next best (Anna Weber), whom no
    ranking kept, is found by reading the dimension's directories again."""
    monkeypatch.setattr(persisted, "TOP", 1)
    refills: list[int] = []
    real = persisted._Add._refill

    def counted(self: Any, sec: persisted.Section, c: int) -> list[persisted.Ranked]:
        refills.append(c)
        return real(self, sec, c)

    monkeypatch.setattr(persisted._Add, "_refill", counted)
    docs = [
        {
            "id": "a",
            "title": "Lake Orta",
            "text": "Lake Orta lies near Omegna. The painter John Keller painted Lake Orta. "
            "The singer Anna Weber sang at Lake Orta.",
        },
        {
            "id": "b",
            "title": "Omegna",
            "text": "Omegna is a town. The painter John Keller lived in Omegna. "
            "The singer Anna Weber was born in Omegna.",
        },
        {
            "id": "c",
            "title": "Villa Rossi",
            "text": "Villa Rossi stands in Omegna. The painter John Keller stayed at Villa Rossi.",
        },
    ]
    extra = {"id": "d", "title": "John Keller", "text": "John Keller was a Swiss painter."}
    kb = store.create_kb("kb")
    Compiler(kb).build(write_lines(tmp_path / "three.jsonl", [json.dumps(d) for d in docs]))
    assert kb.exists("/people/Anna Weber")
    report = Compiler(kb).add(write_lines(tmp_path / "one.jsonl", [json.dumps(extra)]))
    assert report.model_reads, report.model_fallback
    assert refills == [1]
    _stored_model_equals_a_full_derive(kb)
    assert full_rerender_writes(kb) == 0
