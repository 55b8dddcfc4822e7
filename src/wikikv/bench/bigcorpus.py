"""A large corpus generated from a shared one: ``copies`` renamed copies of the 2Wiki 6k corpus.

Copy 0 is the corpus itself. In copy ``k`` every word that appears in some title (``Lothair``,
``Tuscany``) gets the copy's tag appended (``Lothairb``), in the titles and in the texts alike, so
each copy is a new world with its own entities, links and facts, while the words that name no
title (``American``, ``Bishop``) stay shared and tie the copies together: the entity graph grows
with the corpus, as the benchmark needs, and every copy has the shape of the original.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

SOURCE = "multihop/2wiki-corpus-6k/corpus.jsonl"
_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
# Capitalised words that open sentences: renaming them would invent entities ("Thec").
_KEEP = frozenset(
    "The And For From With This That These Those His Her Its Their When After Before During "
    "She They Was Not Also But One Two Three First Second Third New Old North South East West Saint".split()
)


def copy_tag(k: int) -> str:
    """``""`` for copy 0, then ``b`` ... ``z``, ``bb`` ...: a lowercase suffix per copy."""
    letters = "bcdefghijklmnopqrstuvwxyz"
    tag = ""
    while k > 0:
        k, r = divmod(k - 1, len(letters))
        tag = letters[r] + tag
    return tag


def _title_words(records: list[dict[str, str]]) -> frozenset[str]:
    return frozenset(
        w for r in records for w in _WORD.findall(r.get("title", "")) if w not in _KEEP
    )


def renamed(records: list[dict[str, str]], k: int) -> Iterator[dict[str, str]]:
    """Copy ``k`` of ``records`` (see the module docstring)."""
    if k == 0:
        yield from records
        return
    tag = copy_tag(k)
    words = _title_words(records)

    def rename(text: str) -> str:
        return _WORD.sub(lambda m: m.group(0) + tag if m.group(0) in words else m.group(0), text)

    for r in records:
        yield {"id": f"c{k:02d}-{r['id']}", "title": rename(r["title"]), "text": rename(r["text"])}


def _records(source: Path, limit: int | None = None) -> list[dict[str, str]]:
    lines = source.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line][:limit]


def write_corpus(source: Path, copies: int, dest: Path, limit: int | None = None) -> int:
    """Write ``copies`` renamed copies of the JSONL corpus ``source`` (its first ``limit``
    records) to ``dest``; returns the bytes of text (titles and bodies, UTF-8) it holds."""
    records = _records(source, limit)
    dest.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with dest.open("w", encoding="utf-8") as out:
        for k in range(copies):
            for r in renamed(records, k):
                size += len(r["title"].encode("utf-8")) + len(r["text"].encode("utf-8"))
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
    return size


def extra_document(source: Path, copies: int, limit: int | None = None) -> dict[str, str]:
    """A document that is in none of the ``copies``: the first record of copy ``copies``."""
    return next(renamed(_records(source, limit), copies))


def extra_documents(
    source: Path, copies: int, count: int, limit: int | None = None
) -> list[dict[str, str]]:
    """``count`` documents in none of the ``copies``: the first records of copy ``copies``."""
    out: list[dict[str, str]] = []
    for r in renamed(_records(source, limit), copies):
        out.append(r)
        if len(out) == count:
            break
    return out


# The name the 2Wiki corpus uses most, kept by every copy (only title words are renamed): an
# add naming it updates the corpus's most-named entity, the add the corpus's size weighs most.
HUB_NAME = "United States"


def documents_naming(
    source: Path, copies: int, name: str, count: int, skip: int, limit: int | None = None
) -> list[dict[str, str]]:
    """``count`` documents of copy ``copies`` whose text names ``name``, after its first
    ``skip`` records (those :func:`extra_documents` gives)."""
    out: list[dict[str, str]] = []
    for i, r in enumerate(renamed(_records(source, limit), copies)):
        if i >= skip and name in r.get("text", ""):
            out.append(r)
            if len(out) == count:
                break
    return out
