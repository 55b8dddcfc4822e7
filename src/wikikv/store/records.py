"""Typed records and their msgpack codec (msgspec).

Three record kinds live at node paths — directories, files (pages) and redirects — plus the
continuation pages of a directory that has outgrown one record. The backend keeps each record's
version beside the bytes; ``meta.version`` mirrors it and is the compare-and-swap token.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import msgspec

from wikikv.config import MAX_RECORD_BYTES
from wikikv.errors import CorruptRecord, InvalidRecord, RecordTooLarge

FileKind = Literal["page", "entity", "digest", "article", "overview"]
LintStatus = Literal["unchecked", "passed", "failed"]


class DirMeta(msgspec.Struct, omit_defaults=True):
    version: int = 0
    updated_at: float = 0.0
    entry_count: int = 0
    # Number of continuation pages holding children beyond the first ``dir_page_entries``.
    pages: int = 0


class FileMeta(msgspec.Struct, omit_defaults=True):
    version: int = 0
    kind: str = "page"
    created_at: float = 0.0
    updated_at: float = 0.0
    confidence: float = 1.0
    sources: list[str] = msgspec.field(default_factory=list)
    last_verified: float = 0.0
    aliases: list[str] = msgspec.field(default_factory=list)
    tags: list[str] = msgspec.field(default_factory=list)
    summary: str = ""
    title: str = ""
    lint_status: str = "unchecked"
    # Lint codes and messages behind ``lint_status`` ("E2: fact [^3] ..."); see wikikv.quality.
    lint_errors: list[str] = msgspec.field(default_factory=list)
    # When the content was compiled; quality writes (lint status, repairs) keep it, so the
    # direct-answer gate can still tell a page older than its sources. 0: use ``updated_at``.
    compiled_at: float = 0.0
    compiled_by: str = ""
    prompt_version: str = ""
    fingerprint: str = ""
    links: list[str] = msgspec.field(default_factory=list)
    # Hand edits (issue 13): who last changed the page by hand (put, the HTTP API) and when;
    # empty when only the compiler wrote it. The compiler merges into such a page, never over it.
    edited_by: str = ""
    edited_at: float = 0.0
    # Hash of the compiler-owned sections as the compiler last wrote them (set when a person
    # first edits the page): tells the merge whether the person changed those sections too.
    compiled_sig: str = ""
    # Front-matter fields WikiKV has no field for (Obsidian's ``created``, ...), kept as given.
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


class RedirectMeta(msgspec.Struct, omit_defaults=True):
    version: int = 0
    updated_at: float = 0.0


class DirRecord(msgspec.Struct, tag="dir", omit_defaults=True):
    name: str
    path: str
    text: str = ""
    sub_dirs: list[str] = msgspec.field(default_factory=list)
    files: list[str] = msgspec.field(default_factory=list)
    meta: DirMeta = msgspec.field(default_factory=DirMeta)

    @property
    def version(self) -> int:
        return self.meta.version


class FileRecord(msgspec.Struct, tag="file", omit_defaults=True):
    name: str
    path: str
    text: str = ""
    meta: FileMeta = msgspec.field(default_factory=FileMeta)

    @property
    def version(self) -> int:
        return self.meta.version


class RedirectRecord(msgspec.Struct, tag="redirect", omit_defaults=True):
    name: str
    path: str
    target: str
    meta: RedirectMeta = msgspec.field(default_factory=RedirectMeta)

    @property
    def version(self) -> int:
        return self.meta.version


class DirPage(msgspec.Struct, tag="dirpage", omit_defaults=True):
    """A continuation page of a large directory's listing (page numbers start at 1)."""

    path: str
    page: int
    sub_dirs: list[str] = msgspec.field(default_factory=list)
    files: list[str] = msgspec.field(default_factory=list)


NodeRecord = DirRecord | FileRecord | RedirectRecord
AnyRecord = DirRecord | FileRecord | RedirectRecord | DirPage

_encoder = msgspec.msgpack.Encoder()
_decoder: msgspec.msgpack.Decoder[AnyRecord] = msgspec.msgpack.Decoder(AnyRecord)


def encode(record: AnyRecord, limit: int = MAX_RECORD_BYTES) -> bytes:
    """Encode a record, refusing one over ``limit`` bytes or holding text that is not UTF-8."""
    try:
        data = _encoder.encode(record)
    except (UnicodeEncodeError, TypeError, OverflowError) as exc:
        raise InvalidRecord(
            f"record at {getattr(record, 'path', '?')!r} cannot be encoded: {exc}"
        ) from exc
    if len(data) > limit:
        raise RecordTooLarge(record.path, len(data), limit)
    return data


class _Kept(msgspec.Struct, tag="file"):
    """A record read for its existence alone: every field skipped, not built."""


class _KeptDir(msgspec.Struct, tag="dir"):
    pass


class _KeptPage(msgspec.Struct, tag="dirpage"):
    pass


class _Forward(msgspec.Struct, tag="redirect"):
    target: str


_kind_decoder: msgspec.msgpack.Decoder[_Kept | _KeptDir | _KeptPage | _Forward] = (
    msgspec.msgpack.Decoder(_Kept | _KeptDir | _KeptPage | _Forward)
)


def redirect_target(data: bytes) -> str | None:
    """The target of a stored redirect record, None for any other record — without building
    the record (a page's text is skipped, not decoded)."""
    try:
        rec = _kind_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise CorruptRecord(f"stored record does not decode: {exc}") from exc
    return rec.target if isinstance(rec, _Forward) else None


def decode(data: bytes) -> AnyRecord:
    try:
        return _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise CorruptRecord(f"stored record does not decode: {exc}") from exc


def text_from_bytes(payload: bytes, origin: str) -> str:
    """Decode page text supplied as bytes; non-UTF-8 input is refused, never guessed."""
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRecord(
            f"{origin} is not valid UTF-8 (byte {exc.start}: {payload[exc.start : exc.start + 4]!r})"
        ) from exc


def now() -> float:
    return time.time()
