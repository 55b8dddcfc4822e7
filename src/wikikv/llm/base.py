"""The compile pipeline's provider interface: one method per LLM role.

Roles (DESIGN.md "LLMs"): ``descriptor`` and ``schema`` (IASI cold start), ``digest`` (ranked
sentences of one document), ``entities`` (what a document is about, what it mentions; facts are
the cited sentences of those mentions), ``needs_deeper`` (does a page cover a query) and
``answer`` (a cited answer from evidence). :class:`CompileProvider` is what the pipeline calls;
:mod:`wikikv.llm.extractive` is the deterministic offline implementation (the default), and an
HTTP model plugs in by implementing the same methods on top of
:class:`wikikv.llm.types.Provider` (``complete_json``), re-exported here.

Results are plain structs whose offsets always refer to the stored article text, so a model's
answer is checked (quotes found verbatim) before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import msgspec

from wikikv.config import FANOUT_BOUND, MAX_DEPTH
from wikikv.llm.types import Provider, RoleRequest, Usage

__all__ = [
    "Answer",
    "CompileProvider",
    "Descriptor",
    "DimensionSpec",
    "DocInput",
    "EntitiesOut",
    "GroundedFact",
    "MentionOut",
    "ModelLink",
    "EntityNote",
    "PageNotes",
    "Provider",
    "RoleRequest",
    "Scaffold",
    "SentenceSpan",
    "Usage",
]


class DocInput(msgspec.Struct, frozen=True):
    """One document as a role sees it."""

    id: str
    title: str
    text: str
    lang: str = "en"
    group: str = ""


class SentenceSpan(msgspec.Struct, frozen=True, array_like=True):
    start: int
    end: int


class MentionOut(msgspec.Struct, frozen=True, array_like=True):
    """A name in a document: its folded key, the surface, a kind guess, the sentence index and
    the surface's character offsets in the stored text. ``central``: the document is about this
    name (a character of the story), so it deserves a page even if no other document names it.
    ``weak``: nothing in this document shows the word is used as a name (a dictionary word);
    a page needs at least one mention that is not weak."""

    key: str
    surface: str
    kind: str
    sent: int
    start: int
    end: int
    central: bool = False
    weak: bool = False


class GroundedFact(msgspec.Struct, frozen=True, array_like=True):
    """A key fact the model gave whose quote was found verbatim in the stored text: the entity
    name the model gave it (resolved to a page at derive time) and the quote's offsets."""

    entity: str
    start: int
    end: int


class ModelLink(msgspec.Struct, frozen=True, array_like=True):
    """A link the model proposed between two entities it listed, with its reason."""

    source: str
    target: str
    reason: str


class EntityNote(msgspec.Struct, frozen=True, array_like=True):
    """The model's one-line summary and tags of one entity it listed."""

    name: str
    summary: str
    tags: list[str]


class PageNotes(msgspec.Struct):
    """What the page role wrote for one document, after grounding (:mod:`wikikv.llm.grounding`):
    only facts whose quote is in the text, links between listed entities, summaries and tags.
    ``proposed`` and ``dropped`` count what the model gave and what grounding refused, by item
    kind and reason; ``selected`` are the existing pages SelectPages put in the prompt."""

    summary: str = ""
    facts: list[GroundedFact] = msgspec.field(default_factory=list)
    links: list[ModelLink] = msgspec.field(default_factory=list)
    entities: list[EntityNote] = msgspec.field(default_factory=list)
    proposed: dict[str, int] = msgspec.field(default_factory=dict)
    dropped: dict[str, int] = msgspec.field(default_factory=dict)
    selected: list[str] = msgspec.field(default_factory=list)


class EntitiesOut(msgspec.Struct, frozen=True):
    """What a document is about (its title entity's kind) and the names it mentions; ``page``:
    the grounded rest of an LLM page answer (None offline)."""

    about_kind: str
    mentions: list[MentionOut]
    page: PageNotes | None = None


class Descriptor(msgspec.Struct):
    """The corpus positioning descriptor (IASI): a first-class record of the kb."""

    about: str
    audience: str
    bias: str
    language: str
    documents: int
    sample_size: int
    kinds: dict[str, int] = msgspec.field(default_factory=dict)
    top_entities: list[str] = msgspec.field(default_factory=list)
    top_terms: list[str] = msgspec.field(default_factory=list)
    compiled_by: str = ""
    prompt_version: str = ""
    created_at: float = 0.0


class DimensionSpec(msgspec.Struct, frozen=True):
    """One top-level dimension: its path segment, the entity kinds it holds, a one-line
    description."""

    name: str
    kinds: list[str]
    description: str


class Scaffold(msgspec.Struct):
    """The dimension scaffold; ``fallback`` names the dimension for kinds no other one takes."""

    dimensions: list[DimensionSpec]
    fallback: str


class Answer(msgspec.Struct):
    """A cited answer: the text and the evidence paths it rests on."""

    text: str
    citations: list[str]


@runtime_checkable
class CompileProvider(Protocol):
    """What the compile pipeline and nav call. ``name`` and ``prompt_version`` are stored on the
    pages a provider produced (``compiled_by``, ``prompt_version``)."""

    name: str
    prompt_version: str

    def descriptor(
        self,
        sample: Sequence[DocInput],
        kinds: dict[str, int],
        top_entities: Sequence[str],
        documents: int,
    ) -> Descriptor:
        """The positioning descriptor of a corpus from a fixed-size sample."""
        ...

    def schema(
        self,
        descriptor: Descriptor,
        kinds: dict[str, int],
        fanout: int = FANOUT_BOUND,
        max_depth: int = MAX_DEPTH,
    ) -> Scaffold:
        """The dimension scaffold for the descriptor, within the fan-out and depth bounds."""
        ...

    def digest(self, doc: DocInput, sentences: Sequence[SentenceSpan], k: int) -> list[int]:
        """Indices of the ``k`` sentences that best summarise ``doc``, in document order."""
        ...

    def entities(self, doc: DocInput, sentences: Sequence[SentenceSpan]) -> EntitiesOut:
        """The kind of the entity ``doc`` is about and the names it mentions."""
        ...

    def needs_deeper(self, query: str, page_text: str) -> bool:
        """True when ``page_text`` does not cover ``query`` and nav should expand further."""
        ...

    def answer(self, query: str, evidence: Sequence[tuple[str, str]]) -> Answer:
        """A cited answer to ``query`` from (path, text) evidence."""
        ...

    def usage(self) -> Usage:
        """What this provider's calls have cost so far."""
        ...
