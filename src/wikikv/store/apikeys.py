"""API keys of the serving layer (HTTP API, MCP over HTTP): per kb, stored hashed in the store.

A key is shown once, at creation, as ``wkv:<kb>:<id>:<secret>``; the store keeps only the
SHA-256 of the secret (the secret is 32 random bytes, so a plain hash is enough — there is
nothing to brute-force) beside the key's name, scopes and path allow-list, in the kb's system
keyspace (``S`` + ``apikey/<id>``). Carrying the kb in the key finds its record with one read.

Scopes nest: ``admin`` includes ``write``, which includes ``read``. An allow-list of path
prefixes, when given, limits every read and write to the subtrees it names.

A store-wide marker (``\\x00!apikeys``) says whether any key exists: a server with no key
configured serves without authentication and binds loopback only. Key records and the marker
are always read from the engine itself, past the cache tiers, so a revoked key stops working at
the next request, whatever process revoked it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import msgspec

from wikikv.errors import ConfigError, NotFound
from wikikv.store.audit import audit_op
from wikikv.store.backends.base import Backend, Delete, Op, Put, prefix_end
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import KBKeys, check_kb_name
from wikikv.store.paths import ROOT, normalize
from wikikv.store.records import now

SCOPES = ("read", "write", "admin")
_IMPLIED = {"read": {"read"}, "write": {"read", "write"}, "admin": {"read", "write", "admin"}}
KEY_PREFIX = "wkv"
MARKER_KEY = b"\x00!apikeys"
_RECORD = "apikey/"


class ApiKey(msgspec.Struct, omit_defaults=True):
    """A stored key: everything but the secret, which is kept only as ``secret_sha256``."""

    id: str
    kb: str
    name: str
    scopes: list[str]
    secret_sha256: str
    created_at: float
    created_by: str = ""
    prefixes: list[str] = []

    def public(self) -> dict[str, object]:
        """The key as shown by ``keys list``: no hash."""
        return {
            "id": self.id,
            "kb": self.kb,
            "name": self.name,
            "scopes": list(self.scopes),
            "prefixes": list(self.prefixes),
            "created_at": self.created_at,
            "created_by": self.created_by,
        }


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(ApiKey)


@dataclass(frozen=True)
class NewKey:
    """A created key and its one-time token."""

    key: ApiKey
    token: str


def engine(backend: Backend) -> Backend:
    """The storage engine under any cache tiers (auth state must never be served stale)."""
    inner = getattr(backend, "inner", None)
    return inner if isinstance(inner, Backend) else backend


def effective_scopes(scopes: list[str]) -> frozenset[str]:
    out: set[str] = set()
    for s in scopes:
        out |= _IMPLIED.get(s, set())
    return frozenset(out)


def check_scopes(scopes: list[str]) -> list[str]:
    if not scopes:
        raise ConfigError(f"a key needs at least one scope of {', '.join(SCOPES)}")
    bad = [s for s in scopes if s not in SCOPES]
    if bad:
        raise ConfigError(f"unknown scope {bad[0]!r}: use {', '.join(SCOPES)}")
    return sorted(set(scopes), key=SCOPES.index)


def check_prefixes(prefixes: list[str]) -> list[str]:
    """Normalized allow-list; ``/`` (everything) collapses the list to empty."""
    out = sorted({normalize(p) for p in prefixes})
    return [] if ROOT in out else out


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _record_key(kb: str, key_id: str) -> bytes:
    return KBKeys(kb).system(_RECORD + key_id)


def create_key(
    kb: KnowledgeBase, name: str, scopes: list[str], prefixes: list[str] | None = None
) -> NewKey:
    """Create a key for ``kb``; the returned token is the only copy of its secret."""
    if not name.strip():
        raise ConfigError("a key needs a name (who or what uses it)")
    key = ApiKey(
        id=secrets.token_hex(6),
        kb=kb.name,
        name=name.strip(),
        scopes=check_scopes(scopes),
        secret_sha256="",
        created_at=now(),
        created_by=kb.actor,
        prefixes=check_prefixes(prefixes or []),
    )
    secret = secrets.token_urlsafe(32)
    key.secret_sha256 = _hash(secret)
    ops: list[Op] = [
        Put(_record_key(kb.name, key.id), _enc.encode(key)),
        audit_op(kb.keys, kb.actor, "key-create", ROOT, 0, 0, f"{key.id} {key.name}"),
    ]
    backend = engine(kb.backend)
    backend.batch(ops)
    backend.put_if(MARKER_KEY, b"1")
    return NewKey(key, f"{KEY_PREFIX}:{kb.name}:{key.id}:{secret}")


def list_keys(kb: KnowledgeBase) -> list[ApiKey]:
    start = KBKeys(kb.name).system(_RECORD)
    return [
        _dec.decode(item.value) for _, item in engine(kb.backend).scan(start, prefix_end(start))
    ]


def revoke_key(kb: KnowledgeBase, key_id: str) -> ApiKey:
    """Delete a key; the next request that shows it is refused."""
    backend = engine(kb.backend)
    item = backend.get(_record_key(kb.name, key_id))
    if item is None:
        raise NotFound(f"no key {key_id!r} in kb {kb.name!r}")
    key = _dec.decode(item.value)
    backend.batch(
        [
            Delete(_record_key(kb.name, key_id)),
            audit_op(kb.keys, kb.actor, "key-revoke", ROOT, 0, 0, f"{key.id} {key.name}"),
        ]
    )
    if not any(list_keys(k) for k in (kb.store.kb(n) for n in kb.store.kbs())):
        backend.delete_if(MARKER_KEY)
    return key


def keys_configured(backend: Backend) -> bool:
    """Whether any kb of the store has a key (then every request must show one)."""
    return engine(backend).get(MARKER_KEY) is not None


def authenticate(backend: Backend, token: str) -> ApiKey | None:
    """The live key a token names, or None (malformed, unknown, revoked or wrong secret)."""
    parts = token.split(":")
    if len(parts) != 4 or parts[0] != KEY_PREFIX:
        return None
    _, kb, key_id, secret = parts
    try:
        check_kb_name(kb)
    except ValueError:
        return None
    if not key_id.isalnum() or len(key_id) > 32:
        return None
    item = engine(backend).get(_record_key(kb, key_id))
    if item is None:
        return None
    key = _dec.decode(item.value)
    if not hmac.compare_digest(key.secret_sha256, _hash(secret)):
        return None
    return key


__all__ = [
    "SCOPES",
    "ApiKey",
    "NewKey",
    "authenticate",
    "create_key",
    "effective_scopes",
    "keys_configured",
    "list_keys",
    "revoke_key",
]
