"""Per-document analysis: sentences, digest, entities → :class:`DocAnalysis`.

Chinese part-of-speech tagging (jieba's HMM tagger) is the expensive step — about 45 s for the
whole Lu Xun corpus on one core here, against ~3 s without the HMM, which misses most names
jieba's dictionary lacks (蒲力汗, 杨荫榆, 西滢). So the tagging of a batch's Chinese documents
is spread over a small pool of forked worker processes, each initializing jieba once; the rest
of the analysis stays in the parent. Where ``fork`` is unavailable it runs serially.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from wikikv.compile.categories import doc_category
from wikikv.compile.ingest import Document
from wikikv.compile.model import DocAnalysis
from wikikv.compile.pages import one_line
from wikikv.compile.subjects import sentence_roles
from wikikv.llm.base import CompileProvider, DocInput, MentionOut, SentenceSpan
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.text.digest import (
    Sentence,
    is_heading,
    is_informative,
    lead_sentence,
    split_sentences,
)
from wikikv.text.entities import declared_aliases
from wikikv.text.jieba_tags import jieba_pos, jieba_pos_fast


def source_hash(files: Iterable[Path]) -> str:
    """A hash of source files: stored with what they computed, it tells a stale result."""
    h = hashlib.blake2b(digest_size=12)
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def analysis_sources() -> list[Path]:
    import wikikv.llm.extractive as extractive
    import wikikv.text as text_pkg

    here = Path(__file__).parent
    return [
        here / "analyze.py",
        here / "subjects.py",
        here / "categories.py",  # the category stored with each analysis
        Path(extractive.__file__),
        *sorted(Path(text_pkg.__file__).parent.glob("*.py")),
    ]


# The version of the analysis code (entity detection, digests, subjects), stored in every
# DocAnalysis: a build re-analyses a document whose analysis another version wrote, so a
# detector change needs no manual step (and the persisted model, which hashes the same
# sources, is derived again).
ANALYSIS_VERSION = source_hash(analysis_sources())

DIGEST_K = {"en": 6, "zh": 8}
DIGEST_MAX = 30


def digest_size(lang: str, informative: int) -> int:
    """How many sentences a digest keeps: a few for a passage, about one in four of the
    informative sentences of a long essay (bounded), so its page covers more than the lead."""
    return min(DIGEST_MAX, max(DIGEST_K.get(lang, 6), informative // 4))


_PARALLEL_MIN_CHARS = 200_000


def analyze(
    doc: Document, provider: CompileProvider, pos: list[tuple[str, str]] | None = None
) -> DocAnalysis:
    sents = split_sentences(doc.text, doc.lang)
    spans = [SentenceSpan(s.start, s.end) for s in sents]
    dinput = DocInput(doc.id, doc.title, doc.text, doc.lang, doc.group)
    informative = [i for i, s in enumerate(sents) if is_informative(s, doc.lang)]
    digest = provider.digest(dinput, spans, digest_size(doc.lang, len(informative)))
    # whatever the provider ranked, a heading line is a title, not a sentence of the digest
    digest = [i for i in digest if 0 <= i < len(sents) and not is_heading(sents[i].text)]
    if isinstance(provider, ExtractiveProvider):
        found = provider.entities(dinput, spans, pos)
    else:
        found = provider.entities(dinput, spans)
    lead = sents[digest[0]].text if digest else lead_sentence(doc.text, doc.lang)
    summary = one_line(lead)
    if found.page is not None and found.page.summary:  # LLM mode: the model's summary
        lead = found.page.summary
        summary = one_line(lead)
    mentions = list(found.mentions) + _aliases(doc, sents)
    return DocAnalysis(
        id=doc.id,
        title=doc.title,
        lang=doc.lang,
        fingerprint=doc.fingerprint,
        group=doc.group,
        about_kind=found.about_kind,
        sentences=spans,
        digest=digest,
        mentions=mentions,
        informative=informative,
        summary=summary,
        roles=sentence_roles(doc.text, sents, mentions, doc.lang),
        llm=found.page,
        version=ANALYSIS_VERSION,
        # the whole sentence: the summary is cut at 200 characters, and a category read from
        # "was the founding mona…" was "mona" ("/topics/in articles on monas")
        category=doc_category(doc.title, " ".join(lead.split()), doc.lang),
    )


def _aliases(doc: Document, sents: Sequence[Sentence]) -> list[MentionOut]:
    found = declared_aliases(doc.title, doc.text, sents, doc.lang)
    return [MentionOut(m.key, m.surface, m.kind, m.sent, m.start, m.end) for m in found]


def _fork_context() -> mp.context.BaseContext | None:
    try:
        return mp.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None


def tag_chinese(
    texts: Sequence[str], workers: int, fast: bool = False
) -> list[list[tuple[str, str]]]:
    """jieba POS tags of ``texts``, in parallel when it pays (big batch, fork available);
    ``fast`` uses :func:`~wikikv.text.jieba_tags.jieba_pos_fast`."""
    ctx = _fork_context()
    tagger = jieba_pos_fast if fast else jieba_pos
    total = sum(len(t) for t in texts)
    workers = max(1, min(workers, os.cpu_count() or 1, len(texts)))
    if ctx is None or workers < 2 or total < _PARALLEL_MIN_CHARS:
        return [tagger(t) for t in texts]
    jieba_pos("初始化")  # load the dictionary once, before forking: children inherit it
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    out: list[list[tuple[str, str]]] = [[] for _ in texts]
    with ctx.Pool(workers) as pool:
        for i, tags in zip(
            order, pool.imap(tagger, [texts[i] for i in order], chunksize=1), strict=True
        ):
            out[i] = tags
    return out


def analyze_documents(
    docs: Sequence[Document], provider: CompileProvider, workers: int = 2, fast_zh: bool = False
) -> list[DocAnalysis]:
    """Analyses of ``docs`` in order."""
    pos: dict[int, list[tuple[str, str]]] = {}
    prefetch = getattr(provider, "prefetch", None)
    if prefetch is not None:  # an LLM-backed provider runs a chunk's calls concurrently
        prefetch([DocInput(d.id, d.title, d.text, d.lang, d.group) for d in docs])
    if isinstance(provider, ExtractiveProvider):
        zh = [i for i, d in enumerate(docs) if d.lang == "zh"]
        if zh:
            tags = tag_chinese([docs[i].text for i in zh], workers, fast_zh)
            pos = dict(zip(zh, tags, strict=True))
    return [analyze(d, provider, pos.get(i)) for i, d in enumerate(docs)]
