"""Hand edits through the library (what the HTTP API calls): marked, merged into, never lost."""

from __future__ import annotations

from wikikv import open_store
from wikikv.compile import handedits
from wikikv.compile.pipeline import Compiler
from wikikv.review import ReviewQueue
from wikikv.sample import CORPUS_DIR
from wikikv.store.records import FileMeta, FileRecord

PAGE = "/people/Sherlock Holmes"


def test_person_put_marks_the_page_and_keeps_compiler_metadata() -> None:
    kb = open_store("memory://").create_kb("t")
    Compiler(kb).build(CORPUS_DIR)
    before = kb.get(PAGE)
    assert isinstance(before, FileRecord)
    text = before.text.replace("## Key Facts", "## Notes\nMine.\n\n## Key Facts")
    rec = handedits.person_put(kb, PAGE, text, FileMeta(title="Sherlock Holmes"), "ann")
    assert rec.meta.edited_by == "ann"
    assert rec.meta.links == before.meta.links
    assert rec.meta.sources == before.meta.sources
    assert rec.meta.compiled_sig == handedits.owned_sig(before.text)
    assert handedits.edited_paths(kb) == {PAGE}


def test_removing_every_source_keeps_a_hand_edited_page() -> None:
    kb = open_store("memory://").create_kb("t")
    Compiler(kb).build(CORPUS_DIR)
    before = kb.get(PAGE)
    assert isinstance(before, FileRecord)
    text = before.text.replace("## Key Facts", "## Notes\nMine.\n\n## Key Facts")
    handedits.person_put(kb, PAGE, text, FileMeta(title="Sherlock Holmes"), "ann")
    # Every document the page cites goes: the compiler would delete the page, but a person
    # edited it, so it stays and a review item says so.
    cited = [s.rsplit("/", 1)[1].replace("%2F", "/") for s in before.meta.sources]
    report = Compiler(kb).remove(cited)
    assert report.hand_edits == {"kept": 1}
    after = kb.get(PAGE)
    assert isinstance(after, FileRecord)
    assert "## Notes\nMine." in after.text
    assert [i.path for i in ReviewQueue(kb).items()] == [PAGE]
