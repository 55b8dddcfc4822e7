"""Committing a pass: range directories of a wiki built without evolution give way to semantic ones, the search
index and wikilinks follow the moved pages, every operator leaves an audit entry, a dry run
writes nothing, and readers never see a partial directory while a pass runs."""

from __future__ import annotations

from pathlib import Path

from wikikv.compile import state
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.evolve.commit import evolve_pass
from wikikv.evolve.cost import Weights
from wikikv.search.ranking import search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store
from wikikv.testing.evolve_workload import EvolvingReads

from .conftest import build_generated, entity_pages


def range_dirs(kb: KnowledgeBase) -> int:
    schema = state.load_schema(kb)
    assert schema is not None
    return sum(len(p.range_labels()) for p in schema.routing.values())


def test_a_pass_replaces_range_directories_and_everything_follows() -> None:
    with open_store("memory://") as store:
        kb = build_generated(store, "g", 11, 80, 10, 20, index=True, semantic=False)
        before = range_dirs(kb)
        pages = entity_pages(kb)
        assert before > 0
        dry = evolve_pass(kb, dry_run=True)
        assert dry.committed
        assert entity_pages(kb) == pages
        report = evolve_pass(kb, max_ops=8)
        assert report.moved > 0
        assert range_dirs(kb) < before
        assert report.j_after < report.j_before
        after = entity_pages(kb)
        # Search finds pages at their new paths, never at the old ones.
        for path, title in list(after.items())[:10]:
            hits = [h.path for h in search(kb, title, limit=5)]
            assert path in hits
            assert not set(hits) & (set(pages) - set(after))
        # Wikilinks were re-rendered to the new paths.
        old_paths = set(pages) - set(after)
        for path in after:
            rec = kb.get(path)
            assert isinstance(rec, FileRecord)
            assert not any(f"[[{old}|" in rec.text or f"[[{old}]]" in rec.text for old in old_paths)
        ops = [e.op for e in kb.audit(limit=None)]
        assert ops.count("evolve:split") + ops.count("evolve:merge") == len(report.committed)


def test_no_reader_sees_a_partial_directory_while_passes_run(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'store'}?sync=false"
    with open_store(url) as store:
        kb = build_generated(store, "evo", 5, 120, 10, 60, semantic=False)
    moved = 0
    with open_store(url) as store:
        kb = store.kb("evo")
        with EvolvingReads(url, "evo", seconds=3.0, readers=2) as readers:
            # Alternate cost weights so successive passes keep reshaping the tree.
            for i in range(6):
                report = evolve_pass(kb, weights=Weights(scan=4.0 if i % 2 else 200.0), index=False)
                moved += report.moved
            result = readers.collect()
    assert moved > 0
    assert result.listings > 0
    assert result.children_read > 0
    assert result.ok, result


def test_builds_evolve_every_n_ingested_documents() -> None:
    from wikikv.evolve.cadence import INGESTED, every
    from wikikv.testing.evolve_workload import generated_corpus

    def counter(kb: KnowledgeBase) -> int | None:
        item = kb.backend.get(kb.keys.system(INGESTED))
        return None if item is None else int(item.value[0])

    docs = generated_corpus(8, 90)
    with open_store("memory://") as store:
        kb = store.create_kb("c")
        # Built without evolution, so the pass has name ranges to replace.
        options = CompileOptions(
            fanout=10, index=False, after_ingest=every(50), semantic_routing=False
        )
        compiler = Compiler(kb, options=options)
        compiler.add(docs[:30])
        assert counter(kb) == 30  # below N: counted, no pass
        report = compiler.add(docs[30:60])
        assert counter(kb) == 0  # N reached: a pass ran and the count restarted
        assert report.evolved > 0
        assert any(e.op.startswith("evolve:") for e in kb.audit(limit=None))


def test_a_hand_edited_page_stays_the_persons_where_a_pass_moves_it() -> None:
    from wikikv.compile import handedits

    with open_store("memory://") as store:
        kb = build_generated(store, "g", 11, 80, 10, 20, index=True, semantic=False)
        mine = dict(list(entity_pages(kb).items())[:5])
        for path, title in mine.items():
            rec = kb.get(path)
            assert isinstance(rec, FileRecord)
            assert "## Key Facts" in rec.text
            text = rec.text.replace("## Key Facts", f"## My notes\nOn {title}.\n\n## Key Facts")
            handedits.person_put(kb, path, text, rec.meta, "ann")
        report = evolve_pass(kb, max_ops=8)
        assert report.moved > 0
        now = {title: path for path, title in entity_pages(kb).items()}
        assert set(mine) - set(now) == set(mine)  # every one of them moved
        for title in mine.values():
            page = kb.get(now[title])
            assert isinstance(page, FileRecord)
            assert f"## My notes\nOn {title}." in page.text  # the person's text, merged into
            assert page.meta.edited_by == "ann"
        assert handedits.edited_paths(kb) == {now[t] for t in mine.values()}
