"""A compiled wiki lists every directory in a reader's order (:mod:`wikikv.store.order`): the same
for a kb built at once and one built document by document, catch-all groups last, a directory's
rows in the order it lists its children; and no dimension is left listing nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.compile.corpus_parts import full_rerender_writes, lines_of, write_lines
from wikikv.compile import categories, state
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.compile.schema import other_label, plan_ranges
from wikikv.dirindex import row_target
from wikikv.store.kb import KnowledgeBase
from wikikv.store.order import ordered, tier
from wikikv.store.paths import ROOT, basename, escape_segment, parent
from wikikv.store.records import DirRecord
from wikikv.store.store import Store

Listings = dict[str, tuple[list[str], list[str]]]


def _listings(kb: KnowledgeBase) -> Listings:
    """Every directory's sub-directories and pages, as listed."""
    out: Listings = {}
    for path in kb.walk(ROOT):
        if isinstance(kb.get(path), DirRecord):
            listing = kb.ls_all(path)
            out[path] = (listing.sub_dirs, listing.files)
    return out


def _rows_follow_the_listing(kb: KnowledgeBase, listings: Listings) -> int:
    """Check that each directory's rows name its children in the order it lists them; return
    how many directories have rows."""
    checked = 0
    for path, (subs, files) in listings.items():
        rec = kb.get(path)
        assert isinstance(rec, DirRecord)
        targets = [t for t in map(row_target, rec.text.split("\n")) if t and parent(t) == path]
        if not targets:
            continue
        listed = [n for n in [*subs, *files] if n in {basename(t) for t in targets}]
        assert [basename(t) for t in targets] == listed, path
        checked += 1
    return checked


def test_a_kb_built_at_once_and_one_built_in_adds_list_alike(
    store: Store, tmp_path: Path, hotpot_slice: Path
) -> None:
    lines = lines_of(hotpot_slice)
    whole = store.create_kb("whole")
    Compiler(whole).build(hotpot_slice)
    kb = store.create_kb("adds")
    Compiler(kb).build(write_lines(tmp_path / "first.jsonl", lines[::3]))
    rest = [line for i, line in enumerate(lines) if i % 3]
    for n, start in enumerate(range(0, len(rest), 40)):
        Compiler(kb).add(write_lines(tmp_path / f"add{n}.jsonl", rest[start : start + 40]))
    got, want = _listings(kb), _listings(whole)
    assert got.keys() == want.keys()
    for path in want:
        assert got[path] == want[path], path
    assert _rows_follow_the_listing(kb, got) >= 4
    for path, (subs, files) in got.items():
        assert subs == ordered(path, subs, True)
        assert files == ordered(path, files, False)


def test_a_routed_wiki_lists_catch_alls_last_and_its_rows_as_it_lists(
    store: Store, hotpot_slice: Path
) -> None:
    kb = store.create_kb("routed")
    Compiler(kb, options=CompileOptions(fanout=32)).build(hotpot_slice)
    listings = _listings(kb)
    routed = {p: subs for p, (subs, _) in listings.items() if p.count("/") == 1 and subs}
    del routed["/sources"]
    assert routed, "a fan-out of 32 routes this slice"
    for path, subs in routed.items():
        tiers = [tier(path, n) for n in subs]
        assert tiers == sorted(tiers), (path, subs)
        assert any(t for t in tiers), (path, subs)  # "other …" or "in articles on …" groups
    assert listings[ROOT][0][-1] == "sources"
    # every directory but the two of source texts has rows
    assert _rows_follow_the_listing(kb, listings) == len(listings) - 2


def test_the_compilers_catch_all_labels_are_known_to_the_listing_order() -> None:
    for dim, lang in (("people", "en"), ("人物", "zh"), ("作品", "zh")):
        assert tier(f"/{dim}", escape_segment(other_label(dim, lang))) == 3
    for label in categories.leftover_labels("people"):
        assert tier("/people", label) == 3
    spread = categories.MENTION_PREFIX + categories.SPREAD_EN
    assert tier("/people", spread) == tier("/人物", categories.SPREAD_ZH) == 2
    assert tier("/people", categories.MENTION_PREFIX + "films") == 1
    assert tier("/人物", escape_segment("见于《呐喊》")) == 1
    assert tier("/people", "American film directors") == tier("/作品", "呐喊") == 0


@pytest.mark.parametrize("seed", range(40))
def test_name_ranges_are_listed_in_the_order_they_were_cut(seed: int) -> None:
    rng = random.Random(seed)
    starts = ["the ", "a ", "", "", "“", "《", "1", "2", "10 "]
    alphabet = "abcdefghijklmnopqrstuvwxyz    0123456789鲁迅呐喊三十二彷徨野草"
    keys = {
        rng.choice(starts) + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        for _ in range(rng.randint(20, 400))
    }
    cut = plan_ranges(sorted(k.strip() or "x" for k in keys), rng.randint(3, 30), seed % 2 == 0)
    labels = [escape_segment(f"other works {label}") for label in cut.labels]
    assert ordered("/works", labels, True) == labels


NOTES = {
    "lu-xun.md": "# Lu Xun\n\nLu Xun was a Chinese writer. He was born in Shaoxing in 1881 and "
    'wrote "A Madman\'s Diary" in 1918. He lived in Beijing and Shanghai, where he died in 1936.',
    "shaoxing.md": "# Shaoxing\n\nShaoxing is a city in Zhejiang, China. Lu Xun was born in "
    "Shaoxing. Shaoxing is known for its rice wine.",
    "madman.md": "# A Madman's Diary\n\nA Madman's Diary is a short story by Lu Xun, published "
    "in New Youth in 1918.",
    "new-youth.md": "# New Youth\n\nNew Youth was a Chinese magazine founded by Chen Duxiu in "
    "Shanghai in 1915. Lu Xun published stories in New Youth.",
    "zhou-zuoren.md": "# Zhou Zuoren\n\nZhou Zuoren was a Chinese essayist and the brother of "
    "Lu Xun. Zhou Zuoren was born in Shaoxing.",
}


def _notes(folder: Path, names: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(NOTES[name], encoding="utf-8")
    return folder


def _dimensions(kb: KnowledgeBase) -> list[str]:
    """The root's dimension directories, each checked to hold something, and checked to be the
    ones its overview catalogues, in the same order."""
    root = kb.get(ROOT)
    assert isinstance(root, DirRecord)
    dims = [d for d in root.sub_dirs if d != "sources"]
    for d in dims:
        assert len(kb.ls_all("/" + d)) > 0, d
    catalog = [t for t in map(row_target, root.text.split("\n")) if t]
    assert catalog == ["/" + d for d in dims] + ["/sources"]
    return dims


def _schema_dims(kb: KnowledgeBase) -> list[str]:
    schema = state.load_schema(kb)
    assert schema is not None
    return [escape_segment(d.name) for d in schema.dimensions]


def test_a_small_kb_writes_no_dimension_it_files_nothing_under(
    store: Store, tmp_path: Path
) -> None:
    kb = store.create_kb("one")
    Compiler(kb).build(_notes(tmp_path / "one", ["lu-xun.md"]))
    dims = _dimensions(kb)
    assert set(_schema_dims(kb)) - set(dims), "the scaffold has a dimension with nothing in it"


def test_a_dimension_emptied_by_a_removal_goes_and_an_add_brings_it_back(
    store: Store, tmp_path: Path
) -> None:
    notes = _notes(tmp_path / "five", list(NOTES))
    kb, other = store.create_kb("five"), store.create_kb("again")
    for k in (kb, other):
        Compiler(k).build(notes)
        assert _dimensions(k) == ["people", "places", "works"]
        assert len(k.ls_all("/works")) == 2
        Compiler(k).remove(["madman", "new-youth"])  # the two works
    assert _dimensions(kb) == ["people", "places"]
    assert not kb.exists("/works")
    assert "works" in _schema_dims(kb)
    # the removal wrote what a full render of the kb's documents writes
    assert full_rerender_writes(other) == 0
    Compiler(kb).add(_notes(tmp_path / "back", ["madman.md"]))
    assert _dimensions(kb) == ["people", "places", "works"]
    assert kb.ls_all("/works").files == ["A Madman's Diary"]
    assert full_rerender_writes(kb) == 0
