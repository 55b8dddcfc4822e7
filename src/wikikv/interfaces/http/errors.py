"""Typed WikiKV errors → HTTP status and a stable machine-readable code.

Every error body is ``{"error": {"code": ..., "message": ..., "type": ...}}``. The first entry of
:data:`ERROR_TABLE` that the exception is an instance of wins, so subclasses come before their
bases. The codes are part of the API: clients may switch on them.
"""

from __future__ import annotations

from wikikv import errors as e

# (exception class, HTTP status, stable code)
ERROR_TABLE: tuple[tuple[type[BaseException], int, str], ...] = (
    (e.Unauthenticated, 401, "unauthenticated"),
    (e.Forbidden, 403, "forbidden"),
    (e.ReadOnlySource, 403, "read_only_source"),
    (e.AccessDenied, 403, "forbidden"),
    (e.InvalidPath, 400, "invalid_path"),
    (e.InvalidKBName, 400, "invalid_kb_name"),
    (e.RecordTooLarge, 413, "record_too_large"),
    (e.RequestTooLarge, 413, "request_too_large"),
    (e.InvalidRecord, 400, "invalid_record"),
    (e.UnknownKB, 404, "unknown_kb"),
    (e.NotFound, 404, "not_found"),
    (e.NotADirectory, 400, "not_a_directory"),
    (e.IsADirectory, 400, "is_a_directory"),
    (e.PageMoved, 409, "page_moved"),
    (e.ConflictError, 409, "version_conflict"),
    (e.AlreadyExists, 409, "already_exists"),
    (e.DirectoryNotEmpty, 409, "directory_not_empty"),
    (e.KBExists, 409, "kb_exists"),
    (e.LeaseHeld, 423, "kb_locked"),
    (e.JobCancelled, 409, "job_cancelled"),
    (e.ConfigError, 400, "bad_request"),
    (e.CorpusError, 400, "bad_corpus"),
    (e.BudgetExceeded, 429, "budget_exceeded"),
    (e.LLMError, 502, "llm_failed"),
    (e.BackendUnavailable, 503, "backend_unavailable"),
    (e.BackendError, 500, "backend_error"),
    (e.CorruptRecord, 500, "corrupt_record"),
    (e.FormatError, 500, "format_error"),
    (e.WikiKVError, 500, "internal_error"),
)

BAD_REQUEST = "bad_request"


def classify(exc: BaseException) -> tuple[int, str]:
    for cls, status, code in ERROR_TABLE:
        if isinstance(exc, cls):
            return status, code
    return 500, "internal_error"


def error_body(code: str, message: str, kind: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message, "type": kind}}


__all__ = ["BAD_REQUEST", "ERROR_TABLE", "classify", "error_body"]
