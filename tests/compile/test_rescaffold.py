"""A kb started from a few notes outgrows the sample its cold start read: its dimensions are
induced again when it has doubled (until a full sample has been read), so a first note about
one person does not leave every later person under /topics. A full sample sticks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.compile import handedits, state
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.errors import SimulatedCrash
from wikikv.review import ReviewQueue
from wikikv.store.fsck import fsck
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord, RedirectRecord
from wikikv.store.store import Store, open_store

FIRST = {"fujino": "Fujino Genkurō was a Japanese writer who taught Lu Xun in Sendai.\n"}
MORE = {
    name.lower().replace(" ", "-"): f"{name} was a Japanese writer. {name} lived in Tokyo.\n"
    for name in ("Natsume Sōseki", "Mori Ōgai", "Akutagawa Ryūnosuke")
}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()


def notes(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return folder


def wiki(kb: KnowledgeBase) -> set[str]:
    return {p for p in kb.prefix("/") if not p.startswith("/sources")}


def fresh(store: Store, folder: Path) -> set[str]:
    kb = store.create_kb("fresh")
    Compiler(kb).build(folder)
    return wiki(kb)


def test_a_kb_grown_by_builds_gets_the_dimensions_a_fresh_build_has(
    store: Store, tmp_path: Path
) -> None:
    folder = notes(tmp_path / "notes", FIRST)
    kb = store.create_kb("k")
    Compiler(kb).build(folder)
    assert "/topics/Fujino Genkurō" in wiki(kb)  # one person: no /people yet
    notes(folder, MORE)
    report = Compiler(kb).build(folder)
    assert report.rescaffolded
    got = wiki(kb)
    assert "/people/Fujino Genkurō" in got
    assert "/people/Natsume Sōseki" in got
    assert "/topics/Fujino Genkurō" not in got
    assert got == fresh(store, folder)
    schema = state.load_schema(kb)
    assert schema is not None
    assert len(schema.sample_ids) == 4


def test_adds_induce_the_dimensions_again_each_time_the_kb_doubles(
    store: Store, tmp_path: Path
) -> None:
    kb = store.create_kb("k")
    Compiler(kb).build(notes(tmp_path / "first", FIRST))
    sizes = []
    for i, (name, text) in enumerate(MORE.items()):
        report = Compiler(kb).add(notes(tmp_path / f"add{i}", {name: text}))
        schema = state.load_schema(kb)
        assert schema is not None
        sizes.append(len(schema.sample_ids))
        if i == 0:
            assert report.rescaffolded  # two people now: /people, by a full derive
            assert report.model_reads == {}
    assert sizes == [2, 2, 4]  # 1 -> 2 and 2 -> 4 documents; 3 is not twice 2
    assert "/people/Akutagawa Ryūnosuke" in wiki(kb)
    assert wiki(kb) == fresh(store, notes(tmp_path / "all", {**FIRST, **MORE}))


def test_a_full_sample_sticks(store: Store, tmp_path: Path) -> None:
    kb = store.create_kb("k")
    options = CompileOptions(sample_size=1)
    Compiler(kb, options=options).build(notes(tmp_path / "first", FIRST))
    before = state.load_schema(kb)
    report = Compiler(kb, options=options).build(notes(tmp_path / "first", MORE))
    assert not report.rescaffolded
    assert state.load_schema(kb) == before
    assert "/topics/Natsume Sōseki" in wiki(kb)  # the scaffold of the first build stands


def test_a_dimension_kept_keeps_its_routing(store: Store, tmp_path: Path) -> None:
    from wikikv.compile.schema import RoutingPlan

    folder = notes(tmp_path / "notes", {**FIRST, "tokyo": "Tokyo is the capital of Japan.\n"})
    kb = store.create_kb("k")
    Compiler(kb).build(folder)
    schema = state.load_schema(kb)
    assert schema is not None
    assert "places" in {d.name for d in schema.dimensions}
    plan = RoutingPlan(groups={"capitals": "capitals"}, other="other places")
    schema.routing = {"places": plan, "gone": RoutingPlan(other="x")}  # as evolve writes them
    state.write(kb, [state.schema_op(kb, schema)])
    notes(folder, MORE)
    assert Compiler(kb).build(folder).rescaffolded
    grown = state.load_schema(kb)
    assert grown is not None
    assert "people" in {d.name for d in grown.dimensions}
    assert grown.routing == {"places": plan}


# ----------------------------------------------------------------------------- pages that move
OLD, NEW = "/topics/Fujino Genkurō", "/people/Fujino Genkurō"
MY_NOTES = ("## Key Facts", "## My notes\nMet his grandson in 2019.\n\n## Key Facts")


def begun(store: Store, tmp_path: Path) -> tuple[KnowledgeBase, Path]:
    """A kb begun with one note about a person (its page under /topics), and the notes folder."""
    folder = notes(tmp_path / "notes", FIRST)
    kb = store.create_kb("k")
    Compiler(kb).build(folder)
    return kb, folder


def hand_edit(kb: KnowledgeBase, path: str, old: str, new: str) -> None:
    """What `wikikv get` then `wikikv put` of the edited file do."""
    from wikikv import pages_md
    from wikikv.interfaces.page_write import write_page

    rec = kb.get(path)
    assert isinstance(rec, FileRecord)
    printed = pages_md.render(rec, stamp=True)
    assert old in printed
    write_page(kb, path, printed.replace(old, new, 1), "page.md")


def test_a_moved_page_leaves_a_redirect_at_its_old_path(store: Store, tmp_path: Path) -> None:
    kb, folder = begun(store, tmp_path)
    assert isinstance(kb.get(OLD), FileRecord)
    notes(folder, MORE)
    report = Compiler(kb).build(folder)
    assert report.rescaffolded
    assert report.moved == 1
    left = kb.get(OLD, follow_redirects=False)
    assert isinstance(left, RedirectRecord)
    assert left.target == NEW
    page = kb.get(OLD)  # a bookmark, or a [[/topics/Fujino Genkurō]] written by hand
    assert isinstance(page, FileRecord)
    assert page.path == NEW
    assert OLD not in wiki(kb)  # not listed, not in the path index
    assert fsck(kb).clean
    # a build with nothing new changes nothing: the redirect stays as it is
    again = Compiler(kb).build(folder)
    assert (again.moved, again.written, again.deleted) == (0, 0, 0)
    assert kb.get(OLD, follow_redirects=False) == left


def test_a_hand_edit_moves_with_its_page(store: Store, tmp_path: Path) -> None:
    kb, folder = begun(store, tmp_path)
    hand_edit(kb, OLD, *MY_NOTES)
    notes(folder, MORE)
    report = Compiler(kb).build(folder)
    assert report.rescaffolded
    assert report.hand_edits == {"merged": 1}
    page = kb.get(NEW, follow_redirects=False)
    assert isinstance(page, FileRecord)
    assert "## My notes\nMet his grandson in 2019." in page.text  # the person's text
    assert page.text.count("## Key Facts") == 1
    assert page.meta.edited_by  # still the person's page: the next build merges into it
    assert handedits.edited_paths(kb) == {NEW}
    left = kb.get(OLD, follow_redirects=False)
    assert isinstance(left, RedirectRecord)
    assert left.target == NEW
    assert ReviewQueue(kb).items() == []  # nothing orphaned, nothing to decide
    assert fsck(kb).clean
    # and a later build merges into it at its new path
    notes(folder, {"sendai": "Fujino Genkurō taught anatomy in Sendai.\n"})
    later = Compiler(kb).build(folder)
    assert later.hand_edits == {"merged": 1}
    merged = kb.get(NEW)
    assert isinstance(merged, FileRecord)
    assert "Met his grandson in 2019." in merged.text
    assert "/sources/articles/sendai" in merged.meta.sources


def test_an_unmergeable_hand_edit_moves_as_the_person_wrote_it(
    store: Store, tmp_path: Path
) -> None:
    kb, folder = begun(store, tmp_path)
    hand_edit(kb, OLD, "taught Lu Xun in Sendai. [^1]", "taught Lu Xun anatomy in Sendai. [^1]")
    mine = kb.get(OLD)
    assert isinstance(mine, FileRecord)
    notes(folder, MORE)
    report = Compiler(kb).build(folder)
    assert report.hand_edits == {"kept": 1}
    page = kb.get(NEW, follow_redirects=False)
    assert isinstance(page, FileRecord)
    assert page.text == mine.text  # the person's page, at the new path
    assert isinstance(kb.get(OLD, follow_redirects=False), RedirectRecord)
    assert [(i.kind, i.path) for i in ReviewQueue(kb).items()] == [("hand-edit", NEW)]
    assert handedits.edited_paths(kb) == {NEW}


def test_a_page_gone_for_good_leaves_no_redirect(store: Store, tmp_path: Path) -> None:
    """A page whose subject no document has any more is deleted, not redirected (nowhere to
    point); nor does a page of the same name elsewhere, from other documents, take its
    bookmarks."""
    kb = store.create_kb("k")
    Compiler(kb).build(notes(tmp_path / "a", {"tokyo": "Tokyo is a capital city.\n"}))
    assert isinstance(kb.get("/topics/Tokyo"), FileRecord)
    other = {
        "kyoto": "Kyoto is a city in Japan. Natsume Sōseki lived in Tokyo.\n",
        "osaka": "Osaka is a city in Japan. Mori Ōgai lived in Tokyo.\n",
    }
    report = Compiler(kb).build(notes(tmp_path / "b", other), sync=True)
    assert report.rescaffolded
    assert isinstance(kb.get("/places/Tokyo"), FileRecord)  # named in passing by others
    assert report.moved == 0
    assert kb.get("/topics/Tokyo", follow_redirects=False) is None


@pytest.mark.parametrize("kill_after", [2, 4, 9, 15])
def test_a_build_killed_while_pages_move_resumes_to_the_same_wiki(
    store: Store, tmp_path: Path, kill_after: int
) -> None:
    """Killed before the hand-edited page moved, right after, or once pages were written: the
    next build ends where an uninterrupted one does (one page, the person's text, a redirect)."""
    kb, folder = begun(store, tmp_path)
    hand_edit(kb, OLD, *MY_NOTES)
    notes(folder, MORE)
    with pytest.raises(SimulatedCrash):
        Compiler(kb, options=CompileOptions(fail_after_writes=kill_after)).build(folder)
    Compiler(kb).build(folder)
    page = kb.get(NEW, follow_redirects=False)
    assert isinstance(page, FileRecord)
    assert "Met his grandson in 2019." in page.text
    assert page.text.count("## Key Facts") == 1
    left = kb.get(OLD, follow_redirects=False)
    assert isinstance(left, RedirectRecord)
    assert left.target == NEW
    assert handedits.edited_paths(kb) == {NEW}
    assert ReviewQueue(kb).items() == []
    assert fsck(kb).clean
