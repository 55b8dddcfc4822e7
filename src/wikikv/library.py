"""The library's composition root: a store opened with the layers above the storage core wired
in. The store itself knows neither the cache nor the search index; this module hands it a backend
wrapped in the cache tiers and the hooks through which kb writes keep the search index and the
directories' index texts current.

:func:`open_store` is ``wikikv.open_store``: what a program using WikiKV, the CLI and the HTTP
API open. ``wikikv.store.store.open_store`` is the storage layer alone (the build's workers,
benchmarks of raw storage, tests of the store).
"""

from __future__ import annotations

from collections.abc import Callable

from wikikv.config import CacheSettings, StoreSettings
from wikikv.errors import StoreNotFound
from wikikv.store.backends import open_backend
from wikikv.store.backends.base import Backend
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, default_store_url, store_exists


def _keep_search_current(kb: KnowledgeBase) -> None:
    # Imported on the first kb, not with the package: the search modules (tokenizer, read
    # caches) cost start-up time that a command never writing or searching need not pay.
    from wikikv.search.sync import keep_current

    keep_current(kb)


def _keep_dir_index_current(kb: KnowledgeBase) -> None:
    from wikikv.dirindex import keep_dir_index_current

    keep_dir_index_current(kb)


def wire(
    backend: Backend,
    settings: StoreSettings | None = None,
    cache: CacheSettings | None = None,
    *,
    search: bool = True,
) -> Store:
    """A :class:`Store` on ``backend``: behind the cache tiers when ``cache`` is given, and with
    ``search`` its kbs' page writes keep the search index current. Page writes always keep
    the parent directory's index text current (:mod:`wikikv.dirindex`)."""
    on_kb: list[Callable[[KnowledgeBase], None]] = [_keep_dir_index_current]
    if search:
        on_kb.append(_keep_search_current)
    if cache is None:
        return Store(backend, settings, on_kb=on_kb)
    from wikikv.cache.wiring import cache_tiers

    tiers = cache_tiers(backend, cache)
    try:
        return Store(
            tiers.backend, settings, on_kb=on_kb, on_open=[tiers.opened], on_close=[tiers.close]
        )
    except BaseException:
        tiers.close()
        raise


def open_store(
    url: str | None = None,
    settings: StoreSettings | None = None,
    cache: CacheSettings | None = None,
    *,
    create: bool = True,
    search: bool = True,
) -> Store:
    """Open the store a URL names (default: ``$WIKIKV_STORE`` or ``./wikikv-data``), optionally
    behind the cache tiers; every page write of its kbs (``put``, ``mkdir``, ``delete``,
    ``move``, ``redirect``) keeps the kb's search index current unless ``search=False``. With
    ``create=False`` a URL where no store exists raises :class:`~wikikv.errors.StoreNotFound`
    and nothing is created there (a mistyped path stays a mistake, not a new empty store)."""
    target = url or default_store_url()
    if not create and not store_exists(target):
        raise StoreNotFound(target)
    return wire(open_backend(target), settings, cache, search=search)


__all__ = ["open_store", "wire"]
