"""Request and response schemas of the HTTP API (they make the OpenAPI document).

Responses are encoded by msgspec straight from the query layer's JSON-ready values (the hot
path skips pydantic); these models describe them, and the schemathesis test holds the server
to them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wikikv.query.ops import MAX_READ_PATHS

MAX_DOCUMENTS = 1000


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. not_found, forbidden.")
    message: str
    type: str = Field(description="The WikiKV exception class.")


class ErrorOut(BaseModel):
    error: ErrorDetail


class KBsOut(BaseModel):
    kbs: list[str]


class NodeOut(_Open):
    type: Literal["file", "dir", "redirect"]
    name: str
    path: str
    text: str = ""
    meta: dict[str, Any] = {}
    sub_dirs: list[str] | None = None
    files: list[str] | None = None
    target: str | None = None


class ListingOut(BaseModel):
    path: str
    page: int
    pages: int
    sub_dirs: list[str]
    files: list[str]
    text: str


class PrefixOut(BaseModel):
    paths: list[str]


class SearchHitOut(BaseModel):
    path: str
    title: str
    summary: str
    score: float
    why: list[str]
    kind: str


class SearchOut(BaseModel):
    hits: list[SearchHitOut]


class ReadIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    paths: list[str] = Field(min_length=1, max_length=MAX_READ_PATHS)


class ReadOut(BaseModel):
    items: list[dict[str, Any]]


class NavResultOut(BaseModel):
    level: str
    path: str
    title: str
    text: str
    score: float
    elapsed_ms: float
    reason: str
    sources: list[str]


class AskIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=2000)
    max_reads: int = Field(24, ge=1, le=500)
    budget_ms: float = Field(500.0, gt=0, le=60_000)
    allow_direct: bool = True


class AskOut(_Open):
    question: str
    answer: str
    mode: str
    from_wiki: bool
    citations: list[dict[str, str]]


class DrillOut(BaseModel):
    path: str
    levels: int
    nodes: list[dict[str, Any]]
    truncated: bool


class RollupOut(BaseModel):
    path: str
    ancestors: list[dict[str, Any]]


class AuditEntryOut(_Open):
    ts: float
    path: str


class AuditOut(BaseModel):
    kind: Literal["changes", "access"]
    entries: list[AuditEntryOut]


class PageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, max_length=4096)
    text: str
    title: str = ""
    summary: str = ""
    kind: str = "page"
    aliases: list[str] = []
    tags: list[str] = []
    expect_version: int | None = Field(
        None, ge=0, description="Write only if the page is at this version (0: create only)."
    )


class WriteOut(BaseModel):
    path: str
    version: int


class DeleteOut(BaseModel):
    path: str
    deleted: bool


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=512)
    title: str = ""
    text: str = Field(min_length=1)


class CorpusIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    documents: list[DocumentIn] = Field(min_length=1, max_length=MAX_DOCUMENTS)


class RemoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_ids: list[str] = Field(min_length=1, max_length=MAX_DOCUMENTS)


class JobOut(BaseModel):
    id: str
    kb: str
    kind: str
    state: Literal["queued", "running", "done", "failed", "cancelled"]
    phase: str = ""
    done: int = 0
    total: int = 0
    created_at: float
    updated_at: float
    cancel_requested: bool = False
    result: dict[str, Any] | None = None
    error: ErrorDetail | None = None


class DescriptorOut(BaseModel):
    descriptor: dict[str, Any] | None
    schema_: dict[str, Any] | None = Field(None, alias="schema")


class CheckOut(_Open):
    ok: bool


class HealthOut(BaseModel):
    status: str
    store: str = ""
    auth: str = ""
