"""The search index fed beside a build's page writes: each page as written, flushed in runs of
``flush_chars`` characters (see wikikv.compile.pipeline), and nothing when the search module is
not installed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import basename
from wikikv.store.records import DirRecord, FileMeta, FileRecord


class IndexFeed:
    """The search index beside the pages, when the search module is installed."""

    def __init__(self, kb: KnowledgeBase, writer: Any, flush_chars: int) -> None:
        self.kb = kb
        self.writer = writer
        self.pending_chars = 0  # text waiting for the next flush
        self.moved_from: dict[str, str] = {}  # CompileOptions.moved_from
        self.flush_chars = flush_chars  # see due()

    def add_path(self, path: str, text: str, meta: FileMeta) -> None:
        old = self.moved_from.get(path)
        if old is not None:
            self.writer.remove(old)
        self.writer.add(FileRecord(name=basename(path), path=path, text=text, meta=meta))
        self.pending_chars += len(text) + len(meta.summary)

    def add_dir(self, path: str, text: str) -> None:
        self.writer.add(DirRecord(name=basename(path), path=path, text=text))
        self.pending_chars += len(text)

    def remove(self, path: str) -> None:
        self.writer.remove(path)

    def due(self) -> bool:
        """Whether enough waits for a flush: a background writer flushes more often, since
        its flushes cost this process little and the run after the last one overlaps nothing."""
        return self.pending_chars >= self.flush_chars

    def flush(self, last: bool = False, then: Callable[[], None] | None = None) -> None:
        """Write what waits, then call ``then`` (what records the batch as done); with a
        background writer both may happen at the next flush, the run analysed meanwhile.
        ``last`` (the end of a build): also merge what was staged."""
        if last:
            self.writer.finish()
            if then is not None:
                then()
        else:
            self.writer.flush(then)
        self.pending_chars = 0

    def drain(self) -> None:
        """Write the run in flight (see :meth:`flush`)."""
        self.writer.drain()

    def close(self) -> None:
        self.writer.close()


def index_feed(
    kb: KnowledgeBase, flush_chars: int, staged: bool = False, background: Any = False
) -> IndexFeed | None:
    """The feed of ``kb``'s index (see wikikv.search.index.IndexWriter for ``staged`` and
    ``background``), or None without the search module."""
    try:
        from wikikv.search.index import IndexWriter
    except ImportError:
        return None
    return IndexFeed(kb, IndexWriter(kb, staged=staged, background=background), flush_chars)
