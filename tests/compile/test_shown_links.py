"""A page shows at most MAX_SHOWN related pages, the strongest ties first, and says how many it
leaves out; the stored model keeps them all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wikikv.compile import pages as pg
from wikikv.compile import shown_links
from wikikv.compile.model import Entity
from wikikv.compile.pipeline import Compiler
from wikikv.compile.shown_links import bound_links
from wikikv.store.records import FileRecord
from wikikv.store.store import Store


def _hub() -> Entity:
    """An entity linked by five others: d1..d5 are about o1..o5 and name the hub 1..5 times;
    the hub's own article names o0 (a link from the page's own article)."""
    links: dict[str, set[str]] = {f"o{i}": {"mentioned-by"} for i in range(1, 6)}
    links["o0"] = {"mentions"}
    return Entity(
        key="hub",
        name="Hub",
        kind="place",
        times_named={f"d{i}": i for i in range(1, 6)},
        links=links,
    )


ABOUT = {f"d{i}": f"o{i}" for i in range(6)} | {"d0": "hub"}


def test_links_under_the_bound_are_left_alone() -> None:
    ent = _hub()
    bound_links(ent, ABOUT, limit=6)
    assert len(ent.links) == 6
    assert ent.links_hidden == 0


def test_the_strongest_ties_are_kept_and_the_rest_counted() -> None:
    ent = _hub()
    bound_links(ent, ABOUT, limit=3)
    # the page's own article's link first, then the articles that name the hub most
    assert set(ent.links) == {"o0", "o5", "o4"}
    assert ent.links_hidden == 3


def test_a_link_both_ways_and_a_model_reason_rank_first() -> None:
    ent = _hub()
    ent.links["o1"] = {"mentions", "mentioned-by"}
    ent.links["o2"] = {"llm:same family"}
    bound_links(ent, ABOUT, limit=2)
    assert set(ent.links) == {"o2", "o1"}


def test_the_sums_of_two_sets_of_documents_add_up_by_subject() -> None:
    """An add's part (d6, about o2, names the hub 9 times) summed onto the stored sums is the
    sum of all the documents, and ranks o2 first as a full build would."""
    old = shown_links.subject_sums(_hub().times_named, ABOUT)
    ent = _hub()
    ent.times_named["d6"] = 9
    about = ABOUT | {"d6": "o2"}
    added = shown_links.subject_sums({"d6": 9}, about)
    both = shown_links.add_sums(old, added)
    assert both == shown_links.subject_sums(ent.times_named, about)
    assert both.by_subject["o2"] == 11
    assert shown_links.fits(both, ent)
    assert not shown_links.fits(old, ent)
    bound_links(ent, about, limit=2, sums=both)
    assert set(ent.links) == {"o0", "o2"}


def test_ties_go_by_key_not_by_the_order_links_arrived() -> None:
    a, b = _hub(), _hub()
    b.links = dict(reversed(list(b.links.items())))
    a.times_named = b.times_named = {}
    bound_links(a, ABOUT, limit=3)
    bound_links(b, ABOUT, limit=3)
    assert list(a.links) == list(b.links)


def test_the_page_lists_the_shown_links_and_says_how_many_more() -> None:
    hub = _hub()
    others = {
        f"o{i}": Entity(key=f"o{i}", name=f"Other {i}", kind="place", path=f"/places/Other {i}")
        for i in range(6)
    }
    hub.path = "/places/Hub"
    bound_links(hub, ABOUT, limit=3)
    text, meta, _ = pg.render_entity_parts(hub, {**others, "hub": hub}, {}, {}, "en", "x", "1")
    assert "_3 more related pages are not listed; these are the 3 closest._" in text
    assert meta.links == ["/places/Other 0", "/places/Other 4", "/places/Other 5"]


def test_a_build_keeps_every_link_in_the_model_but_bounds_the_page(
    store: Store, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shown_links, "MAX_SHOWN", 2)
    kb = store.create_kb("kb")
    report = Compiler(kb).build(hotpot_slice)
    shown = hidden = 0
    for path in kb.prefix("/"):
        rec = kb.get(path)
        if isinstance(rec, FileRecord) and rec.meta.kind == "entity":
            section = rec.text.split("## Related Pages", 1)[-1].split("\n## ", 1)[0]
            assert section.count("- [[") <= 2, path
            shown += len(rec.meta.links)
            more = re.search(r"_(\d+) more related pages are not listed", section)
            hidden += int(more.group(1)) if more else 0
    assert hidden > 0
    # the report counts the model's links, shown or not
    assert shown + hidden == report.links


def test_check_owes_no_link_back_from_a_bounded_page(
    store: Store, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page that lists only its closest related pages owes the others no link back: `check`
    does not count them as missing reverse links (the Lu Xun wiki's /地点/中国 made every fresh
    build report ok: false). A page that is not bounded still owes one."""
    from wikikv.compile.check import check

    monkeypatch.setattr(shown_links, "MAX_SHOWN", 2)
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    report = check(kb)
    assert report.missing_reverse == 0, report.examples
    assert report.ok
    # take a link back off a page that is not bounded: that one is still missing
    for path in kb.prefix("/"):
        rec = kb.get(path)
        if not (isinstance(rec, FileRecord) and rec.meta.kind == "entity"):
            continue
        if pg.HIDDEN_LINKS.search(rec.text) or "## Related Pages" not in rec.text:
            continue
        lines = rec.text.split("\n")
        at = next(
            i
            for i, line in enumerate(lines)
            if line.startswith("- [[") and "## Related Pages" in "\n".join(lines[:i])
        )
        kb.put(path, "\n".join(lines[:at] + lines[at + 1 :]), rec.meta, expect=rec.meta.version)
        break
    assert check(kb).missing_reverse >= 1
