"""When an add may leave a routed directory's listing as it was (the rule; the tests in
test_persisted_model.py compare such adds with a full derive and render)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from wikikv.compile import local_render
from wikikv.compile.persisted import Member
from wikikv.compile.summaries import SECTION_PAGES

_DIR = "/people/in articles on films"


def _kept(before: dict[str, Member], now: dict[str, Member]) -> bool:
    up: Any = SimpleNamespace(members_before={_DIR: before})
    want: Any = SimpleNamespace(entity_at={}, docs={}, lang="en", texts={})
    return local_render._listing_unchanged(up, _DIR, now, [], {}, set(), want)


def test_a_listing_is_kept_while_its_names_and_best_members_hold() -> None:
    n = SECTION_PAGES + 3
    before = {f"k{i:02}": Member(f"Name {i}", 100 - i, i % 2 == 0) for i in range(n)}
    # the first one named by one more document: same names, same order
    assert _kept(before, {**before, "k00": Member("Name 0", 101, True)})
    # two members past the ones its summary is made of swap ranks: the text is the same
    last, second = f"k{n - 1:02}", f"k{n - 2:02}"
    swapped_tail = {**before, last: Member(before[last].name, before[second].score + 1, False)}
    assert _kept(before, swapped_tail)
    # two of its best members swap: the summary changes
    assert not _kept(before, {**before, "k01": Member("Name 1", 101, False)})
    # a member whose document about it goes: the summary ranks it differently
    assert not _kept(before, {**before, "k00": Member("Name 0", 100, False)})
    # a member renamed, one that comes, one that goes
    assert not _kept(before, {**before, "k05": Member("Other", 95, False)})
    assert not _kept(before, {**before, "zz": Member("New", 1, False)})
    assert not _kept(before, {k: m for k, m in before.items() if k != last})
    # a directory the update did not read before is always rewritten
    assert not local_render._listing_unchanged(
        SimpleNamespace(members_before={}),  # type: ignore[arg-type]
        _DIR,
        before,
        [],
        {},
        set(),
        SimpleNamespace(entity_at={}),  # type: ignore[arg-type]
    )
