"""What a build asks of a quality gate, as hooks handed to it (``CompileOptions.quality``).

The build does not import the quality layer: a caller that wants pages checked while they are
built hands the build an object with these three hooks (``wikikv.quality.hooks.ErrorBookGate``
is the one WikiKV has), as the evolution cadence is handed in through
``CompileOptions.after_ingest``. Without one the build writes pages unchecked
(``lint_status: unchecked``), and ``wikikv lint`` checks them later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from wikikv.compile.parsed import ParsedPage
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

PageWrite = Callable[[str, str, FileMeta], None]


class RenderCheck(Protocol):
    """Called on each page as it is rendered, before it is written: returns the meta to write
    (with its lint status); ``failed`` lists the pages it flagged. ``parsed``: the page taken
    apart, when the renderer made it (the text then need not be parsed again)."""

    failed: list[str]

    def __call__(
        self, path: str, text: str, meta: FileMeta, parsed: ParsedPage | None = None
    ) -> FileMeta: ...


class BuildQuality(Protocol):
    def before_sync(self, kb: KnowledgeBase, provider: Any) -> None:
        """Before documents are analysed (the Error Book's rules into the provider's prompts)."""

    def render_check(
        self, kb: KnowledgeBase, will_exist: Iterable[str], texts: dict[str, str]
    ) -> RenderCheck:
        """A checker for the pages of this sync: the paths the sync will hold, the texts of the
        documents its pages cite."""

    def after_batch(
        self,
        kb: KnowledgeBase,
        write: PageWrite,
        flagged: list[str],
        analyzed: int,
        whole: bool = True,
    ) -> None:
        """After the sync's pages are written: repairs through ``write``, the pages the render
        check flagged, how many documents the sync analysed; ``whole`` is False after an
        incremental add's local render (passes over the whole wiki then wait for a later
        sync: an add stays proportional to what it touched)."""
