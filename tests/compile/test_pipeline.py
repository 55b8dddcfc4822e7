"""End-to-end builds of small corpora: the check invariants, incremental add / remove, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikikv.bench.compile import snapshot
from wikikv.compile import state
from wikikv.compile.check import check
from wikikv.compile.ingest import read_corpus
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.errors import SimulatedCrash
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import Store, open_store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()


def _invariants(kb: KnowledgeBase) -> None:
    report = check(kb)
    assert report.fsck_clean is True
    assert report.broken_links == 0, report.examples.get("broken")
    assert report.missing_reverse == 0, report.examples.get("reverse")
    assert report.facts > 0
    assert report.invalid_citations == 0, report.examples.get("citation")
    assert report.unreachable == 0, report.examples.get("unreachable")
    assert report.fanout_violations == 0
    assert report.depth_violations == 0
    assert report.duplicate_titles == 0, report.examples.get("duplicate")
    assert report.ok


def test_small_english_build_links_variants_and_homonyms(store: Store, small_en: Path) -> None:
    kb = store.create_kb("en")
    report = Compiler(kb).build(small_en)
    assert report.documents == 8
    assert report.analyzed == 8
    _invariants(kb)
    holmes = [
        h for h in kb.find_names("sherlock holmes", exact=True) if not h.path.startswith("/sources")
    ]
    assert len({h.path for h in holmes}) == 1
    page = kb.get(holmes[0].path)
    assert isinstance(page, FileRecord)
    assert {"Holmes", "Mr. Holmes"} <= set(page.meta.aliases)
    assert page.meta.kind == "entity"
    assert page.meta.compiled_by == "extractive"
    heat = [h.path for h in kb.find_names("heat", exact=False) if h.path.startswith("/works")]
    assert len(set(heat)) == 2  # Heat (film) and Heat (novel) stay apart
    assert any("MP4%2F13" in p for p in kb.prefix("/"))
    # bidirectional: Doyle's article mentions Holmes and Holmes's page links back
    doyle = next(
        h.path
        for h in kb.find_names("arthur conan doyle", exact=True)
        if not h.path.startswith("/sources")
    )
    holmes_page = kb.get(holmes[0].path)
    assert isinstance(holmes_page, FileRecord)
    assert doyle in holmes_page.meta.links
    assert state.load_descriptor(kb) is not None


def test_chinese_folder_build(store: Store, small_zh: Path) -> None:
    kb = store.create_kb("zh")
    report = Compiler(kb).build(small_zh)
    assert report.documents == 4
    _invariants(kb)
    names = {h.name for h in kb.find_names("后记")}
    assert {"后记（呐喊）", "后记（坟）"} <= names  # homonyms in two collections stay apart
    ls = kb.ls("/")
    assert "人物" in ls.sub_dirs
    assert "sources" in ls.sub_dirs
    people = kb.ls_all("/人物").files
    assert "鲁迅" in people
    assert "许广平" in people


def test_build_of_a_hotpot_slice_keeps_every_invariant(store: Store, hotpot_slice: Path) -> None:
    kb = store.create_kb("hp")
    report = Compiler(kb, options=CompileOptions(fanout=32)).build(hotpot_slice)
    assert report.documents == 150
    _invariants(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    assert schema.routing
    assert check(kb).max_fanout <= 32


def test_unchanged_documents_are_skipped(store: Store, small_en: Path) -> None:
    kb = store.create_kb("skip")
    Compiler(kb).build(small_en)
    again = Compiler(kb).build(small_en)
    assert again.skipped == 8
    assert again.analyzed == 0
    assert again.written == 0


def test_remove_then_add_equals_never_removed(store: Store, hotpot_slice: Path) -> None:
    kb = store.create_kb("rm")
    Compiler(kb).build(hotpot_slice)
    before = snapshot(kb)
    docs = {d.id: d for d in read_corpus(hotpot_slice).documents}
    victims = ["p00001", "p00010"]
    Compiler(kb).remove(victims)
    assert Compiler(kb, options=CompileOptions(full_render=True)).remove([]).written == 0
    removed = snapshot(kb)
    assert not any(p.endswith("/p00001") for p in removed)
    assert all("/sources/articles/p00001" not in v[3] for v in removed.values())
    _invariants(kb)
    report = Compiler(kb).add([docs[v] for v in victims])
    assert report.analyzed == 2
    assert report.written < 100
    assert snapshot(kb) == before


def test_remove_drops_pages_left_without_sources(store: Store, small_en: Path) -> None:
    kb = store.create_kb("orphan")
    Compiler(kb).build(small_en)
    assert kb.find_names("mclaren mp4/13", exact=True)
    Compiler(kb).remove(["d6"])
    assert not [
        h for h in kb.find_names("mclaren mp4/13", exact=True) if not h.path.startswith("/sources")
    ]
    _invariants(kb)


def test_resume_after_a_simulated_crash_equals_a_clean_build(
    tmp_path: Path, hotpot_slice: Path
) -> None:
    clean_store = open_store(f"lmdb://{tmp_path / 'clean'}?sync=false")
    crash_store = open_store(f"lmdb://{tmp_path / 'crash'}?sync=false")
    try:
        clean = clean_store.create_kb("kb")
        Compiler(clean).build(hotpot_slice)
        kb = crash_store.create_kb("kb")
        for fail_after in (60, 400):  # once while analysing, once while rendering
            with pytest.raises(SimulatedCrash):
                Compiler(kb, options=CompileOptions(fail_after_writes=fail_after, batch=50)).build(
                    hotpot_slice
                )
            assert state.load_progress(kb).state == "running"
        report = Compiler(kb).build(hotpot_slice)
        assert report.resumed
        assert report.skipped > 0
        assert snapshot(kb) == snapshot(clean)
        _invariants(kb)
    finally:
        clean_store.close()
        crash_store.close()


def test_cli_build_check_and_descriptor(tmp_path: Path, small_en: Path) -> None:
    from click.testing import CliRunner

    from wikikv.interfaces.cli import main
    from wikikv.interfaces.commands.build import register

    if "build" not in main.commands:
        register(main)
    runner = CliRunner()
    store_url = f"lmdb://{tmp_path / 'cli'}"
    out = runner.invoke(
        main, ["build", str(small_en), "--kb", "cli", "--store", store_url, "--json"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["documents"] == 8
    out = runner.invoke(main, ["check", "--report", "--json", "--kb", "cli", "--store", store_url])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["citation_validity"] == 1.0
    out = runner.invoke(main, ["descriptor", "--kb", "cli", "--store", store_url, "--json"])
    assert out.exit_code == 0
    assert "audience" in out.output
    out = runner.invoke(main, ["remove", "d1", "--kb", "cli", "--store", store_url, "--json"])
    assert out.exit_code == 0
    assert json.loads(out.output)["removed"] == 1
    out = runner.invoke(main, ["remove", "nope", "--kb", "cli", "--store", store_url])
    assert out.exit_code == 1
    assert "no such document" in out.output


def test_adding_a_homonym_renames_the_first_and_matches_a_fresh_build(
    tmp_path: Path, small_zh: Path
) -> None:
    """A second 后记 arrives: the first becomes 后记（呐喊）, links to it follow, and the wiki
    equals one built from all four documents at once."""
    fresh_store = open_store(f"lmdb://{tmp_path / 'fresh'}?sync=false")
    inc_store = open_store(f"lmdb://{tmp_path / 'inc'}?sync=false")
    try:
        fresh = fresh_store.create_kb("zh")
        Compiler(fresh).build(small_zh)
        docs = read_corpus(small_zh).documents
        kb = inc_store.create_kb("zh")
        Compiler(kb).add([d for d in docs if d.id != "坟/后记"])
        assert kb.find_names("后记", exact=True)
        Compiler(kb).add([d for d in docs if d.id == "坟/后记"])
        assert Compiler(kb, options=CompileOptions(full_render=True)).add(docs).written == 0
        got, want = snapshot(kb), snapshot(fresh)
        # The root overview quotes the descriptor, written once by the cold start on the
        # documents of the first sync: everything else must be identical.
        assert got.pop("/")[2:] == want.pop("/")[2:]
        assert got == want
        _invariants(kb)
    finally:
        fresh_store.close()
        inc_store.close()


def test_wiki_markup_inside_a_source_never_makes_a_link(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "markup.jsonl"
    rows = [
        {
            "id": "m1",
            "title": "Midnight Alibi",
            "text": "Midnight Alibi is a 1934 film with "
            "[[Richard Barthelmess]] in the lead. It was made by First National Pictures.",
        },
        {
            "id": "m2",
            "title": "First National Pictures",
            "text": "First National Pictures "
            "was an American film studio. It made Midnight Alibi with Richard Barthelmess.",
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    kb = store.create_kb("markup")
    Compiler(kb).build(path)
    _invariants(kb)


def test_check_catches_bad_citations_one_way_and_broken_links(store: Store, small_en: Path) -> None:
    kb = store.create_kb("tamper")
    Compiler(kb).build(small_en)
    path = next(
        h.path for h in kb.find_names("london", exact=True) if not h.path.startswith("/sources")
    )
    page = kb.get(path)
    assert isinstance(page, FileRecord)
    lines = page.text.split("\n")
    note = next(i for i, ln in enumerate(lines) if ln.startswith("[^1]: "))
    lines[note] = lines[note].replace(" chars 0-", " chars 1-")  # shift the cited offsets
    lines.append("- [[/people/Nobody|Nobody]] — a link to nowhere")
    lines.append("- [[/sources|sources]] — fine")
    kb.put(path, "\n".join(lines), page.meta)
    other = next(
        p
        for p in kb.prefix("/")
        if kb.get(p) is not None
        and p != path
        and isinstance(kb.get(p), FileRecord)
        and kb.get(p).meta.kind == "entity"
        and path not in kb.get(p).meta.links
    )
    rec = kb.get(other)
    assert isinstance(rec, FileRecord)
    kb.put(other, rec.text + f"\n- [[{path}|London]] — one way\n", rec.meta)
    report = check(kb)
    assert report.invalid_citations == 1
    assert report.broken_links == 1
    assert report.missing_reverse == 1
    assert not report.ok
