"""What a note file calls itself: the title of a document read from a folder of Markdown or
text files, as the person who wrote it would name the page.

In order: the ``title`` of a Markdown file's YAML front matter (an Obsidian note's, say — the
block is metadata, not text, and leaves the document); the note's first line when it is a level-1
heading (``# Fujino Genkurō``); else the file's name — written as the text writes it when the
name is a lowercase slug the text opens with (``tokyo.md``: "Tokyo is the capital…" → Tokyo;
``fujino.md``: "Fujino Genkurō was a Japanese anatomist…" → Fujino Genkurō). A name with a
capital in it was written by hand and is kept as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

_FENCE = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)
_H1 = re.compile(r"#[ \t]+(.+?)[ \t]*#*[ \t]*$")
# The opening of a lead sentence: its subject, then a verb of being or a bracket ("Lu Xun
# (Chinese: 鲁迅) was…"), a comma or the sentence's end.
_LEAD = re.compile(
    r"([^\s,;:(（.!?][^,;:(（\n]{0,80}?)\s*(?:\s(?:is|was|are|were)\b|[,;:(（]|[.!?](?:\s|$))"
)
_NAME_WORD = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ſ][\w'’.-]*")
_PARTICLES = frozenset("of de da di du del della der van von la le al bin ibn y the and".split())
MAX_NAME_WORDS = 6


@dataclass
class NoteHead:
    """A note's own title (None: it gives none) and its text without its front matter."""

    title: str | None
    text: str
    front_matter: bool = False


def read_note(text: str, markdown: bool) -> NoteHead:
    """The title a note gives itself and its text; only Markdown has front matter (a block
    that is not a YAML mapping is left as text)."""
    if markdown:
        fields, rest = _front_matter(text)
        if fields is not None:
            title = fields.get("title")
            own = " ".join(str(title).split()) if isinstance(title, (str, int, float)) else ""
            return NoteHead(own or _heading(rest), rest, True)
    return NoteHead(_heading(text) if markdown else None, text)


def _front_matter(text: str) -> tuple[dict[str, Any] | None, str]:
    start = _FENCE.match(text.lstrip("\ufeff"))
    if start is None:
        return None, text
    body = text.lstrip("\ufeff")[start.end() :]
    close = _CLOSE.search(body)
    if close is None:
        return None, text
    try:
        fields = yaml.safe_load(body[: close.start()])
    except yaml.YAMLError:
        return None, text
    if not isinstance(fields, dict):
        return None, text
    return fields, body[close.end() :].lstrip("\r\n")


def _heading(text: str) -> str | None:
    for line in text.splitlines():
        if line.strip():
            m = _H1.fullmatch(line.strip())
            return " ".join(m.group(1).split()) if m else None
    return None


def written_title(stem: str, text: str) -> str:
    """The file name ``stem`` as a title: as the text writes it when the stem is a lowercase
    slug the text opens with (words joined by ``-`` or ``_`` count as spaced), else as is."""
    if any(c.isupper() for c in stem) or sum(c.isalpha() for c in stem) < 3:
        return stem
    words = re.sub(r"[-_]+", " ", stem).split()
    first = text.lstrip(" \t\r\n\ufeff#*_>")
    lead = _LEAD.match(first)
    if lead is not None:
        subject = lead.group(1).split()
        if (
            len(subject) <= MAX_NAME_WORDS
            and [w.casefold() for w in subject[: len(words)]] == [w.casefold() for w in words]
            and _NAME_WORD.fullmatch(subject[0])
            and all(_NAME_WORD.fullmatch(w) or w in _PARTICLES for w in subject)
            and _NAME_WORD.fullmatch(subject[-1])
        ):
            return " ".join(subject)
    head = first[: len(" ".join(words))]
    if head.casefold() == " ".join(words).casefold() and head[:1].isupper():
        after = first[len(head) : len(head) + 1]
        if not after or not after.isalnum():
            return head
    return stem
