"""Routing groups whose names are variants of each other become one group (English).

A broad label lists the kinds it pools ("actors, presenters and entertainers", "musicians and
singers"); when one of those kinds also stands as a group of its own, a reader sees two
directories for one kind of page. The standing kinds join the broad group while it stays
within the bound; otherwise the broad group keeps only the kinds it still holds in its name
("presenters and entertainers" beside "actors"). A label may name a kind by its collective
noun ("royalty and nobility", "clergy and religious figures"): the groups of its members
("nobles", "royals", "clergymen") are that kind too."""

from __future__ import annotations

import re

_PREFIX = re.compile(r"^(in articles on )?")
# A collective noun of a broad label and the plural groups of its members.
_COLLECTIVE: dict[str, tuple[str, ...]] = {
    "nobility": ("nobles",),
    "royalty": ("royals",),
    "clergy": ("clergymen", "clerics"),
}


def items(label: str) -> list[str]:
    """The kinds a list label names, each with the label's prefix: "in articles on musicians
    and singers" → ["in articles on musicians", "in articles on singers"]; [] for a label that
    is no list."""
    m = _PREFIX.match(label)
    prefix = m.group(0) if m else ""
    parts = re.split(r", | and ", label[len(prefix) :])
    if len(parts) < 2 or any(not p or not _kind_words(p) for p in parts):
        return []  # "sons and daughters born in the 11th century" is a refinement, no list
    return [prefix + p for p in parts]


def _kind_words(part: str) -> bool:
    """A kind of a list label: a plural, with at most one adjective ("religious figures")."""
    words = part.split()
    return len(words) <= 2 and all(w.isalpha() for w in words)


def _standing(kind: str, groups: dict[str, list[str]]) -> list[str]:
    """The groups that hold the ``kind`` a list label names: its own, or those of the members
    its collective noun stands for ("nobility": "nobles")."""
    m = _PREFIX.match(kind)
    prefix = m.group(0) if m else ""
    names = [kind, *(prefix + g for g in _COLLECTIVE.get(kind[len(prefix) :], ()))]
    return [g for g in names if g in groups]


def _joined(parts: list[str]) -> str:
    m = _PREFIX.match(parts[0])
    prefix = m.group(0) if m else ""
    bare = [p[len(prefix) :] for p in parts]
    body = bare[0] if len(bare) == 1 else ", ".join(bare[:-1]) + " and " + bare[-1]
    return prefix + body


def fold_variants(groups: dict[str, list[str]], cap: int) -> dict[str, str]:
    """Merge, in ``groups`` (label → members), each standing group into the broad group whose
    list names it, or rename the broad group when the merge would pass ``cap``. Returns the
    directory label of each label that no longer names its own directory (the plan routes a
    chain's label through it)."""
    out: dict[str, str] = {}
    for broad in sorted(groups, key=lambda g: (-len(groups[g]), g)):
        if broad not in groups:
            continue
        kinds = items(broad)
        held = {k: [g for g in _standing(k, groups) if g != broad] for k in kinds}
        standing = [g for k in kinds for g in held[k]]
        if not standing:
            continue
        size = len(groups[broad]) + sum(len(groups[k]) for k in standing)
        if size <= cap:
            for k in standing:
                groups[broad].extend(groups.pop(k))
                out[k] = broad
            continue
        rest = [k for k in kinds if not held[k]]
        if rest and _joined(rest) not in groups:
            out[broad] = _joined(rest)
    return out
