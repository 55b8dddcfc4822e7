"""Who is calling, and what they may do: API keys to a :class:`Principal`, and its checks.

A request shows its key as ``Authorization: Bearer wkv:...`` (or ``X-API-Key: wkv:...``).
With no key configured in the store the server runs *open* — every caller is the loopback
user with every scope — and it binds loopback only (see :mod:`.server`).
"""

from __future__ import annotations

from dataclasses import dataclass

from wikikv.errors import Forbidden, Unauthenticated
from wikikv.interfaces.http.acl import PathACL, scoped
from wikikv.store.apikeys import authenticate, effective_scopes, keys_configured
from wikikv.store.backends.base import Backend
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import normalize

ALL_SCOPES = frozenset({"read", "write", "admin"})


@dataclass(frozen=True)
class Principal:
    """The caller of one request. ``kb`` is None for the open (no keys) mode: any kb."""

    who: str
    scopes: frozenset[str]
    kb: str | None = None
    acl: PathACL = PathACL()
    key_id: str = ""

    def check_kb(self, kb: str) -> None:
        """Refuse another kb's key without telling whether the kb exists."""
        if self.kb is not None and self.kb != kb:
            raise Forbidden(f"this key is for another kb, not {kb!r}")

    def check_scope(self, scope: str) -> None:
        if scope not in self.scopes:
            raise Forbidden(f"this key lacks the {scope!r} scope")

    def check_path(self, path: str, *, traverse: bool = False) -> str:
        """The normalized path, when the key may see it (or, with ``traverse``, list it)."""
        p = normalize(path)
        allowed = self.acl.traversable(p) if traverse else self.acl.visible(p)
        if not allowed:
            raise Forbidden(f"path {p!r} is outside this key's allow-list")
        return p

    def view(self, kb: KnowledgeBase) -> KnowledgeBase:
        """The kb as this caller may see it."""
        return scoped(kb, self.acl, self.who)

    def writer(self, kb: KnowledgeBase) -> KnowledgeBase:
        """The kb view this caller writes through: its changes are audited under its name."""
        if not self.acl.unrestricted:
            return scoped(kb, self.acl, self.who)
        view = KnowledgeBase(kb.store, kb.name)
        view.actor = self.who
        return view


OPEN = Principal(who="local", scopes=ALL_SCOPES)


def token_of(authorization: str | None, x_api_key: str | None) -> str | None:
    if x_api_key:
        return x_api_key.strip()
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return None


def principal_for(backend: Backend, token: str | None) -> Principal:
    """The caller a token names; :data:`OPEN` when the store has no key at all."""
    if not keys_configured(backend):
        return OPEN
    if token is None:
        raise Unauthenticated("this server needs an API key: Authorization: Bearer wkv:...")
    key = authenticate(backend, token)
    if key is None:
        raise Unauthenticated("unknown, malformed or revoked API key")
    return Principal(
        who=f"key:{key.id} ({key.name})",
        scopes=effective_scopes(key.scopes),
        kb=key.kb,
        acl=PathACL(tuple(key.prefixes)),
        key_id=key.id,
    )


__all__ = ["OPEN", "Principal", "principal_for", "token_of"]
