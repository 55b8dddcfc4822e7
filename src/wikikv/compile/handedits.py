"""Pages a person edited: the compiler merges into them, or leaves them and files a review item.

A person's write (``wikikv put``, the HTTP API, MCP's ``wiki_write``) marks the page
(``meta.edited_by``) and adds its path to the kb's ``compile/edited`` system record, so a build
finds the hand-edited pages it is about to rewrite with one read; a page that moves takes its
mark along (:func:`follow_moves`).

**What the compiler owns on a page** (:func:`owned_part`): the sections it renders — Key Facts,
Mentioned In, Related Pages, Related Sources (and their Chinese headings) — and the citation footnotes
(``[^n]: [[/sources/articles/…]] chars a-b``). Everything else (the heading, the summary line,
sections a person added, the front-matter fields) is the person's.

**Merge** (:func:`merge`): when the person left the compiler-owned part as the compiler wrote it
(its hash equals ``meta.compiled_sig``, recorded when the person first edited the page), the new
rendering's owned sections replace the old ones in place, new owned sections are added after the
last one, and the person's text and fields are kept. When the person changed the owned part too,
there is no safe merge: the page is left as it is and a ``hand-edit`` review item is filed (its
key names the compiler's new version, so a decided item is not raised again; an *accepted* item
lets the next build write the compiler's version).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterable

import msgspec

from wikikv.compile import guards
from wikikv.store.backends.base import ANY, Put
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta, FileRecord

EDITED = "compile/edited"
OWNED_HEADINGS = frozenset(
    (
        "Key Facts",
        "Mentioned In",
        "Related Pages",
        "Related Sources",
        "要点",
        "提及",
        "相关页面",
        "相关来源",
    )
)
_NOTE = re.compile(r"^\[\^\d+\]: \[\[[^\]]+\]\].*$")
_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(list[str])


# ----------------------------------------------------------------------------- the edited set
def _key(kb: KnowledgeBase) -> bytes:
    return kb.keys.system(EDITED)


def edited_paths(kb: KnowledgeBase) -> set[str]:
    """Paths of the pages people edited (one read)."""
    item = kb.backend.get(_key(kb))
    return set() if item is None else set(_dec.decode(item.value))


def _change(kb: KnowledgeBase, add: set[str], drop: set[str]) -> None:
    for _ in range(20):
        item = kb.backend.get(_key(kb))
        have = set() if item is None else set(_dec.decode(item.value))
        new = (have | add) - drop
        if new == have:
            return
        try:
            kb.backend.batch([Put(_key(kb), _enc.encode(sorted(new)), item.version if item else 0)])
            return
        except Exception:  # noqa: BLE001 - a concurrent change: read again
            continue
    kb.backend.batch([Put(_key(kb), _enc.encode(sorted((edited_paths(kb) | add) - drop)), ANY)])


def mark_edited(kb: KnowledgeBase, path: str) -> None:
    """Record that a person edited the page at ``path``."""
    _change(kb, {path}, set())


def unmark_edited(kb: KnowledgeBase, paths: set[str]) -> None:
    _change(kb, set(), paths)


def follow_moves(kb: KnowledgeBase, moves: Iterable[tuple[str, str]]) -> int:
    """Keep the marks of the hand-edited pages that moved (old path, new path): the render
    after the moves merges into them at their new paths instead of writing over them. Runs
    again without harm (a mark already moved is not at its old path any more); returns how
    many marks moved."""
    edited = edited_paths(kb)
    moved = {old: new for old, new in moves if old in edited}
    if moved:
        _change(kb, set(moved.values()), set(moved))
    return len(moved)


# ----------------------------------------------------------------------------- page sections
def _sections(text: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(sections, footnotes): sections as (heading or '' for the preamble, lines), in order;
    footnote lines pulled out of wherever they are."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    notes: list[str] = []
    for line in text.split("\n"):
        if _NOTE.match(line):
            notes.append(line)
        elif line.startswith("## "):
            sections.append((line[3:].strip(), [line]))
        else:
            sections[-1][1].append(line)
    return sections, notes


def _owned(heading: str) -> bool:
    return heading in OWNED_HEADINGS


def owned_part(text: str) -> str:
    """The compiler-owned part of a page text, normalised (trailing blank lines dropped)."""
    sections, notes = _sections(text)
    parts = ["\n".join(lines).rstrip() for h, lines in sections if _owned(h)]
    return "\n\n".join(parts + ["\n".join(notes)])


def owned_sig(text: str) -> str:
    return hashlib.blake2b(owned_part(text).encode("utf-8"), digest_size=12).hexdigest()


def merge(
    person_text: str, person_meta: FileMeta, new_text: str, new_meta: FileMeta
) -> tuple[str, FileMeta] | None:
    """The person's page with the compiler's new owned sections and facts merged in, or None
    when the person changed compiler-owned sections too (no safe merge)."""
    if not person_meta.compiled_sig or owned_sig(person_text) != person_meta.compiled_sig:
        return None
    mine, _ = _sections(person_text)
    theirs, new_notes = _sections(new_text)
    fresh = {h: lines for h, lines in theirs if _owned(h)}
    out: list[str] = []
    placed: set[str] = set()
    last_owned = max((i for i, (h, _) in enumerate(mine) if _owned(h)), default=-1)
    for i, (heading, lines) in enumerate(mine):
        if _owned(heading):
            if heading in fresh:
                out.append("\n".join(fresh[heading]).rstrip())
                placed.add(heading)
        else:
            out.append("\n".join(lines).rstrip())
        if i == max(last_owned, 0):
            out += ["\n".join(ls).rstrip() for h, ls in theirs if _owned(h) and h not in placed]
            placed.update(fresh)
    if new_notes:
        out.append("\n".join(new_notes))
    text = "\n\n".join(part for part in out if part) + "\n"
    meta = msgspec.structs.replace(
        person_meta,
        sources=list(new_meta.sources),
        links=list(new_meta.links),
        confidence=new_meta.confidence,
        compiled_by=new_meta.compiled_by,
        prompt_version=new_meta.prompt_version,
        fingerprint=new_meta.fingerprint,
        compiled_sig=owned_sig(text),
    )
    return text, meta


# ----------------------------------------------------------------------------- a person's write
_COMPILER_FIELDS = (
    "confidence",
    "last_verified",
    "lint_status",
    "compiled_by",
    "prompt_version",
    "fingerprint",
    "compiled_sig",
)


# The fields a person's write may set; one it does not send keeps the page's value.
PERSON_FIELDS = frozenset({"title", "summary", "kind", "aliases", "tags"})


MOVED_HINT = (
    "write it at {target} instead (a read of the old path gives that page and its version), or "
    "delete the redirect first to start a new page here"
)


def person_put(
    kb: KnowledgeBase,
    path: str,
    text: str,
    meta: FileMeta,
    editor: str,
    expect: int = ANY,
    given: frozenset[str] = PERSON_FIELDS,
) -> FileRecord:
    """Write a page as a person does (the HTTP API, MCP's ``wiki_write``; the CLI goes through
    :func:`wikikv.pages_md.page_for_put`): compiler metadata, links and sources the person did
    not give are carried over from the current page, and so is each of the person's own fields
    (:data:`PERSON_FIELDS`) not in ``given`` — a write that sends only a text and a title keeps
    the page's kind, aliases, tags and summary. The page is marked as edited by hand so later
    builds merge into it instead of overwriting it. A source, or the old path of a page that
    moved, is refused (:mod:`wikikv.compile.guards`)."""
    p = kb.norm(path)
    guards.refuse_source_write(kb, p)
    cur = kb.get(p, follow_redirects=False)
    guards.refuse_moved(kb, p, cur, MOVED_HINT, None if expect == ANY else expect)
    new = msgspec.structs.replace(meta)
    if isinstance(cur, FileRecord):
        old = cur.meta
        for name in (*_COMPILER_FIELDS, *(PERSON_FIELDS - given)):
            setattr(new, name, getattr(old, name))
        new.links = list(dict.fromkeys([*old.links, *new.links]))
        new.sources = list(new.sources or old.sources)
        if not old.edited_by and old.compiled_by:
            new.compiled_sig = owned_sig(cur.text)
    new.edited_by, new.edited_at = editor, time.time()
    rec = kb.put(p, text, new, expect=expect)
    mark_edited(kb, rec.path)
    return rec


def person_delete(kb: KnowledgeBase, path: str, expect: int = ANY, recursive: bool = False) -> str:
    """Delete a page (or, ``recursive``, a directory) as a person does through the HTTP API;
    a source is refused (removing its document is the way). Returns the normalised path."""
    p = kb.norm(path)
    guards.refuse_source_delete(kb, p)
    kb.delete(p, expect=expect, recursive=recursive)
    return p
