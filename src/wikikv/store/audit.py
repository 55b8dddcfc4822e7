"""The append-only audit trail of a kb: who did what to which path, from which version to which.

Entries are written in the same atomic batch as the change they describe, keyed by time so that
appends from concurrent writers never contend on a counter.
"""

from __future__ import annotations

import getpass
import os
import time
from collections.abc import Iterator

import msgspec

from wikikv.store.backends.base import Backend, Put
from wikikv.store.keys import KBKeys
from wikikv.store.logscan import scan_log


class AuditEntry(msgspec.Struct, omit_defaults=True):
    ts: float
    actor: str
    op: str
    path: str
    old_version: int = 0
    new_version: int = 0
    detail: str = ""


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(AuditEntry)


def default_actor() -> str:
    env = os.environ.get("WIKIKV_ACTOR")
    if env:
        return env
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid:{os.getuid()}"


def audit_op(
    keys: KBKeys, actor: str, op: str, path: str, old: int, new: int, detail: str = ""
) -> Put:
    entry = AuditEntry(time.time(), actor, op, path, old, new, detail)
    return Put(keys.audit(), _enc.encode(entry))


def read_audit(
    backend: Backend,
    keys: KBKeys,
    limit: int | None = None,
    newest_first: bool = True,
    path_prefix: str | None = None,
) -> Iterator[AuditEntry]:
    span = keys.space_range("L")
    return scan_log(backend, span, _dec.decode, limit, newest_first, path_prefix)
