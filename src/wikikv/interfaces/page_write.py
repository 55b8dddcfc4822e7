"""A person's write of a page from Markdown — what ``wikikv put`` and ``wikikv edit`` share.

The file's ``wikikv: {path, version}`` line (:func:`wikikv.pages_md.edit_stamp`, printed by
``get`` and ``edit``) says where and at which version the page was read: the write is refused
when the page changed since, or when it is aimed at another path, unless ``force``. A source
(``/sources/...``: an article or digest the compiler keeps from the corpus, cited by offset) is
not a page to edit by hand, unless ``force`` (the checks a person's write shares:
:mod:`wikikv.compile.guards`).
"""

from __future__ import annotations

import shlex

from wikikv import pages_md
from wikikv.errors import ConflictError, InvalidRecord
from wikikv.store.backends.base import ANY
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord


def write_page(
    kb: KnowledgeBase,
    path: str,
    source: str,
    origin: str,
    expect: int | None = None,
    force: bool = False,
    redo: str = "get it again and redo the edit",
) -> FileRecord:
    """Write ``source`` (Markdown with front matter, read from ``origin``) as the page at
    ``path``, marked as edited by hand; ``expect``: the version the page must be at (0: none),
    else the stamp's; ``redo``: what the conflict message tells the person to do."""
    from wikikv.compile import guards, handedits

    pages_md.parse(source, origin)  # bad front matter is refused before anything is read
    stamp = pages_md.edit_stamp(source, origin)
    p = kb.norm(path)
    if not force:
        guards.refuse_source_write(
            kb, p, "Edit the document's file and `wikikv update` it, or use --force"
        )
    hint = ""
    if stamp is not None and not force:
        if kb.norm(stamp.path) != p:
            raise InvalidRecord(
                f"{origin} was printed from {stamp.path} (its `wikikv:` line); writing it to "
                f"{p} would make a second page. Put it back at {stamp.path}, move the page "
                "with `wikikv mv`, or delete the `wikikv:` line to write a new page"
            )
        if expect is None:
            expect = stamp.version
            hint = (
                f"{origin} was printed at version {stamp.version} and the page changed since "
                f"(`wikikv audit --path {shlex.quote(p)}` says who): {redo}, or use --force "
                "to overwrite"
            )
    cur = kb.get(p, follow_redirects=False)
    if stamp is not None and not force:
        moved = (
            f"{origin} was printed before the move: put it at {{target}} (its version check "
            "applies), or use --force to write a new page here"
        )
        guards.refuse_moved(kb, p, cur, moved, stamp.version)
    current = cur if isinstance(cur, FileRecord) else None
    if expect is not None and expect != (cur.version if cur is not None else 0):
        raise ConflictError(p, expect, cur.version if cur is not None else 0, hint)
    body, meta = pages_md.page_for_put(source, current, kb.actor, origin, handedits.owned_sig)
    try:
        rec = kb.put(p, body, meta, expect=ANY if expect is None else expect)
    except ConflictError as exc:  # changed between the check above and the write
        raise ConflictError(p, exc.expected, exc.actual, hint) from exc
    if meta.edited_by and meta.edited_at != (current.meta.edited_at if current else None):
        handedits.mark_edited(kb, rec.path)
    return rec
