"""The cache tiers put in front of a backend: the store is handed the wrapped backend and two
hooks, and never learns that a cache is there.

:func:`cache_tiers` wraps a backend in :class:`~wikikv.cache.tiers.CachedBackend` (L1 in
process, L2 in a shared Redis when ``CacheSettings.l2_url`` names one) and starts the
cross-process follower the settings ask for: Redis pub/sub with L2, else one audit-trail poller
per opened kb. :meth:`CacheTiers.opened` is what the store calls when it opens a kb (pin its root
and dimensions in L1, follow its writes); :meth:`CacheTiers.close` stops the followers.

L2 entries live under ``<l2_namespace>:<store id>``: the store id comes from the store's format
record (:func:`wikikv.store.store.format_info`, read here from the bare backend, since the tiers
exist before the store does), so two stores sharing one Redis never share cached records, whatever
their kbs are called.
"""

from __future__ import annotations

from typing import Protocol

from wikikv.cache.tiers import CachedBackend
from wikikv.config import CacheSettings
from wikikv.store.backends.base import Backend


class _Follower(Protocol):
    def stop(self) -> None: ...


class CacheTiers:
    """A backend behind the cache tiers, and the followers that keep its L1 fresh."""

    def __init__(self, backend: Backend, settings: CacheSettings) -> None:
        from wikikv.cache.l2 import L2Cache

        self.settings = settings
        l2 = (
            L2Cache(
                settings.l2_url,
                ttl_ms=settings.l2_ttl_ms,
                capacity=settings.l2_capacity,
                namespace=l2_namespace(backend, settings),
            )
            if settings.l2_url
            else None
        )
        self.backend = CachedBackend(backend, l2=l2, l1=settings.l1)
        self._followers: list[_Follower] = []
        if l2 is not None and settings.follow:
            from wikikv.cache.invalidation import RedisSubscriber

            self._followers.append(RedisSubscriber(self.backend, l2).start())

    def opened(self, kb_name: str) -> None:
        """Pin ``kb_name``'s root and dimensions in L1 and, without Redis, follow its writes."""
        self.backend.pin_kb(kb_name)
        if self.settings.follow and self.backend.l2 is None:
            from wikikv.cache.invalidation import AuditFollower

            follower = AuditFollower(self.backend, [kb_name], self.settings.follow_interval)
            self._followers.append(follower.start())

    def close(self) -> None:
        for follower in self._followers:
            follower.stop()
        self._followers.clear()


def l2_namespace(backend: Backend, settings: CacheSettings) -> str:
    """The L2 namespace of the store on ``backend``: the configured prefix and the store's id
    (the prefix alone for a store that has none: one opened read-only before ids existed)."""
    from wikikv.store.store import format_info

    store_id = format_info(backend).store_id
    return f"{settings.l2_namespace}:{store_id}" if store_id else settings.l2_namespace


def cache_tiers(backend: Backend, settings: CacheSettings) -> CacheTiers:
    """``backend`` behind the tiers ``settings`` describe."""
    return CacheTiers(backend, settings)
