"""The compile state of a kb, kept as system records (outside the tree: never in ls, prefix,
fsck walks or reachability checks).

=========================  ===================================================================
``compile/schema``         the :class:`~wikikv.compile.schema.Schema` (scaffold + routing)
``descriptor``             the positioning descriptor, a first-class record (IASI)
``compile/doc/<hash>``     one :class:`~wikikv.compile.model.DocAnalysis` per document
``compile/pages``          path → signature of what each written page was rendered from
``compile/progress``       the running or last job: phase, counts (resume reads it)
=========================  ===================================================================
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgspec

from wikikv.compile.model import DocAnalysis
from wikikv.compile.schema import Schema
from wikikv.llm.base import Descriptor
from wikikv.store.backends.base import Delete, Op, Put
from wikikv.store.kb import KnowledgeBase

SCHEMA = "compile/schema"
DESCRIPTOR = "descriptor"
DOC_PREFIX = "compile/doc/"
PAGES = "compile/pages"
PROGRESS = "compile/progress"
_enc = msgspec.msgpack.Encoder()


class Progress(msgspec.Struct):
    job: str = ""
    state: str = "idle"  # running | done | failed
    phase: str = ""
    docs_total: int = 0
    docs_done: int = 0
    pages_written: int = 0
    started_at: float = 0.0
    updated_at: float = 0.0


class PageMap(msgspec.Struct):
    """What each written node was rendered from: path → signature."""

    sigs: dict[str, str] = msgspec.field(default_factory=dict)


def _key(kb: KnowledgeBase, name: str) -> bytes:
    return kb.keys.system(name)


def doc_key(kb: KnowledgeBase, doc_id: str) -> bytes:
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=16).hexdigest()
    return _key(kb, DOC_PREFIX + digest)


def _get(kb: KnowledgeBase, name: str) -> bytes | None:
    item = kb.backend.get(_key(kb, name))
    return None if item is None else item.value


def write(kb: KnowledgeBase, ops: list[Op]) -> None:
    if ops:
        kb.commit(ops)  # fenced by the job's lease like every other write of the kb


def load_schema(kb: KnowledgeBase) -> Schema | None:
    raw = _get(kb, SCHEMA)
    return None if raw is None else msgspec.msgpack.decode(raw, type=Schema)


def schema_op(kb: KnowledgeBase, schema: Schema) -> Op:
    return Put(_key(kb, SCHEMA), _enc.encode(schema))


def load_descriptor(kb: KnowledgeBase) -> Descriptor | None:
    raw = _get(kb, DESCRIPTOR)
    return None if raw is None else msgspec.msgpack.decode(raw, type=Descriptor)


def descriptor_op(kb: KnowledgeBase, descriptor: Descriptor) -> Op:
    return Put(_key(kb, DESCRIPTOR), _enc.encode(descriptor))


def load_docs(kb: KnowledgeBase) -> dict[str, DocAnalysis]:
    start = _key(kb, DOC_PREFIX)
    dec = msgspec.msgpack.Decoder(DocAnalysis)
    out: dict[str, DocAnalysis] = {}
    for _, item in kb.backend.scan(start, start + b"\xff"):
        d = dec.decode(item.value)
        out[d.id] = d
    return out


def doc_ops(kb: KnowledgeBase, docs: Iterable[DocAnalysis]) -> list[Op]:
    return [Put(doc_key(kb, d.id), _enc.encode(d)) for d in docs]


def drop_doc_ops(kb: KnowledgeBase, ids: Iterable[str]) -> list[Op]:
    return [Delete(doc_key(kb, i)) for i in ids]


def load_pages(kb: KnowledgeBase) -> PageMap:
    raw = _get(kb, PAGES)
    return PageMap() if raw is None else msgspec.msgpack.decode(raw, type=PageMap)


def pages_op(kb: KnowledgeBase, pages: PageMap) -> Op:
    return Put(_key(kb, PAGES), _enc.encode(pages))


def load_progress(kb: KnowledgeBase) -> Progress:
    raw = _get(kb, PROGRESS)
    return Progress() if raw is None else msgspec.msgpack.decode(raw, type=Progress)


def progress_op(kb: KnowledgeBase, progress: Progress) -> Op:
    return Put(_key(kb, PROGRESS), _enc.encode(progress))
