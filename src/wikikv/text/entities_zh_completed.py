"""Chinese names the tagger cut one character short (reader pass of 2026-11-27, late morning).

jieba reads the last character of some names as a word of its own: 陶孟|和 ('and'), 邢子|才
('only then'). The name a reader knows is the longer one, and two signs say so: a note of the
document gives the longer name a lifespan ("陶孟和（1888—1960）", "邢子才（４９６—？）") while
the text writes the short one followed by that character; or the short name is followed by 和
and then by what no second member of 'A and B' starts with — a title, a preposition, an
adverb, a verb or punctuation ("陶孟和教授", "陶孟和在《…》", "陶孟和曾说"). Each test is of a
shape, never of a listed name; see docs/entities.md."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from wikikv.text import entities_zh_common as common_words
from wikikv.text.entities import Mention, fold

# A birth year in brackets, right after a name: how a note opens on a person ("（1888—1960）",
# "（４９６—？）", "（约1520—1590）").
_BORN = re.compile(r"[（(][^（()）\n]{0,8}?[0-9０-９]{2,4}[ \u3000]*[—–－-]")
_AND = "和"
# A title after 和 makes it the end of a name (陶孟和教授), not 'and the professor'.
_TITLES = frozenset("教授 先生 女士 博士 总长 校长 主任 编辑".split())
# jieba's tags of what no second member of 'A and B' starts with: a preposition (在), an
# adverb (曾), a verb (说), a particle (的) or punctuation and a note's reference (〔33〕).
_NO_CONJUNCT = ("p", "d", "v", "u", "x")


def noted_completion(word: str, text: str) -> str | None:
    """The longer name ``word`` + one character when ``text`` gives that name a lifespan and
    none to ``word``, and writes ``word`` followed by that character in half of its
    occurrences or more (陶孟 → 陶孟和); None otherwise (胡适 has a note of his own, so
    胡适之 never takes it)."""
    if any(_BORN.match(text, end) for _, end in common_words.occurrences(word, text)):
        return None
    total = 0
    after: dict[str, int] = {}
    for _, end in common_words.occurrences(word, text):
        total += 1
        ch = text[end : end + 1]
        if "\u4e00" <= ch <= "\u9fff":
            after[ch] = after.get(ch, 0) + 1
    for ch, n in sorted(after.items(), key=lambda kv: -kv[1]):
        if n * 2 < total:
            break
        longer = word + ch
        if any(_BORN.match(text, end) for _, end in common_words.occurrences(longer, text)):
            return longer
    return None


def ends_in_and(word: str, text: str, tokens_at: dict[int, tuple[str, str]]) -> bool:
    """Whether ``word`` + 和 is the name: in half of ``word``'s occurrences or more the tagger
    cut 和 off as a token of its own and what follows can start no second member of 'A and
    B' (a title, a preposition, an adverb, a verb, a particle, punctuation). ``tokens_at``:
    the tagger's (token, tag) by where it starts."""
    total = cut = 0
    for _, end in common_words.occurrences(word, text):
        total += 1
        if tokens_at.get(end) != (_AND, "c"):
            continue
        nxt = tokens_at.get(end + 1)
        if nxt is not None and (nxt[0] in _TITLES or nxt[1].startswith(_NO_CONJUNCT)):
            cut += 1
    return total > 0 and cut * 2 >= total


def complete_names(
    mentions: Sequence[Mention],
    text: str,
    tokens_at: dict[int, tuple[str, str]],
    known: dict[str, str],
) -> list[Mention]:
    """``mentions`` with each person's name the tagger cut one character short written in
    full: the mention takes the character after it (its key, surface and span). A name the
    dictionary holds is never short (胡适 is no piece of 胡适之). A completed name given a
    lifespan is evidence of a name wherever it is used."""
    longer: dict[str, tuple[str, bool]] = {}  # surface → (the full name, noted)
    for m in mentions:
        if m.kind != "person" or m.surface in longer or m.surface in known:
            continue
        note = noted_completion(m.surface, text)
        if note is not None:
            longer[m.surface] = (note, True)
        elif ends_in_and(m.surface, text, tokens_at):
            longer[m.surface] = (m.surface + _AND, False)
    if not longer:
        return list(mentions)
    out: list[Mention] = []
    taken: set[int] = set()  # the characters completed names took
    for m in mentions:
        full = longer.get(m.surface) if m.kind == "person" else None
        if full is not None and text[m.end : m.end + 1] == full[0][-1]:
            name, by_note = full
            out.append(
                replace(m, key=fold(name), surface=name, end=m.end + 1, weak=m.weak and not by_note)
            )
            taken.add(m.end)
        else:
            out.append(m)
    return [m for m in out if m.start not in taken]
