"""What a person's write may not do, whichever way it comes — ``wikikv put`` / ``edit``, the HTTP
API's page routes, MCP's ``wiki_write``. Each check runs before anything is written, so a refusal
changes nothing; the compiler's own writes (which keep ``/sources``) never pass through here.

* **A source is not a page to edit** (:func:`refuse_source_write`). ``/sources/articles/ID`` is
  a document's text as compiled and ``/sources/digests/ID`` its digest; every page cites the
  articles by character offset, so an edit would silently shift or break those citations. The
  document is what to change, then compile it again.
* **Nor to delete** (:func:`refuse_source_delete`): the pages citing it would dangle. Removing
  the document takes its pages, links, citations and index entries with it.
* **A moved page is written where it went** (:func:`refuse_moved`): a write at its old path
  would put a second page over the redirect that bookmarks and links follow.
"""

from __future__ import annotations

import json
import shlex

from wikikv.errors import PageMoved, ReadOnlySource
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import is_under, unescape_segment
from wikikv.store.records import NodeRecord, RedirectRecord

SOURCES = "/sources"  # articles and digests: the corpus as compiled, cited by exact offsets
_DOCS = ("articles", "digests")


def doc_of(path: str) -> str | None:
    """The id of the document whose article or digest ``path`` is (None for anything else)."""
    parts = path.split("/")
    if len(parts) == 4 and parts[1] == SOURCES[1:] and parts[2] in _DOCS:
        return unescape_segment(parts[3])
    return None


def _what(path: str, doc: str | None) -> str:
    if doc is None:
        return f"{path} holds the sources: the documents' texts as compiled"
    return f"{path} is a source: the text of document {doc!r} as compiled"


def refuse_source_write(kb: KnowledgeBase, path: str, instead: str = "") -> None:
    """Refuse a person's write at ``path`` (normalised) under ``/sources``; ``instead``: what
    to do instead, said the caller's way (the default names the CLI and the HTTP API)."""
    if not is_under(path, SOURCES):
        return
    instead = instead or (
        "Edit the document's file and compile it again (`wikikv update FILE`; over HTTP, POST "
        f"/v1/kbs/{kb.name}/jobs/update)"
    )
    raise ReadOnlySource(
        path,
        f"{_what(path, doc_of(path))}, which pages cite by character offset: editing it would "
        f"break their citations. {instead}",
    )


def refuse_source_delete(kb: KnowledgeBase, path: str) -> None:
    """Refuse a person's delete of ``path`` (normalised) under ``/sources``."""
    if not is_under(path, SOURCES):
        return
    doc = doc_of(path)
    ids = "DOC-ID..." if doc is None else shlex.quote(doc)
    body = '{"doc_ids": [...]}' if doc is None else json.dumps({"doc_ids": [doc]})
    raise ReadOnlySource(
        path,
        f"{_what(path, doc)}, which pages cite by character offset: deleting it would leave "
        "their citations dangling. Remove the document instead, with its pages, links and "
        f"citations: `wikikv remove {ids}` (over HTTP, POST /v1/kbs/{kb.name}/jobs/remove "
        f"{body})",
    )


def refuse_moved(
    kb: KnowledgeBase, path: str, cur: NodeRecord | None, hint: str, expected: int | None
) -> None:
    """Refuse a person's write at ``path`` when ``cur`` (its record, redirects not followed)
    is a redirect to a page that is there: :class:`PageMoved` names where it went. A redirect
    to nothing is no page: a write there makes one."""
    if not isinstance(cur, RedirectRecord):
        return
    there = kb.get(path)
    if there is None:
        return
    raise PageMoved(path, there.path, hint.format(target=there.path), expected, cur.version)
