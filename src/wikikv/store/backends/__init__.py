"""Backends and the URL that opens one.

``lmdb:///abs/path`` or ``lmdb://rel/path`` or a bare directory path → LMDB (the default);
``memory://`` → in-process; ``redis://host:port/db``, ``redis+cluster://host:port`` and
``postgresql://...`` → the server backends (extras ``wikikv[redis]``, ``wikikv[postgres]``).
LMDB options go in the query string: ``?sync=false&map_size=1048576&resident_mb=256``.
"""

from __future__ import annotations

import importlib
from urllib.parse import parse_qs, urlsplit

from wikikv.errors import ConfigError
from wikikv.store.backends.base import ABSENT, ANY, Backend, Check, Delete, Item, Put

__all__ = ["ABSENT", "ANY", "Backend", "Check", "Delete", "Item", "Put", "open_backend"]

_SERVER_BACKENDS = {
    "redis": ("wikikv.store.backends.redis", "RedisBackend", "redis"),
    "rediss": ("wikikv.store.backends.redis", "RedisBackend", "redis"),
    "redis+cluster": ("wikikv.store.backends.redis", "RedisBackend", "redis"),
    "postgresql": ("wikikv.store.backends.postgres", "PostgresBackend", "postgres"),
    "postgres": ("wikikv.store.backends.postgres", "PostgresBackend", "postgres"),
}


def _flag(value: str, name: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"store option {name}={value!r} is not a boolean")


def _positive(value: str, name: str, url: str, minimum: int = 1) -> int:
    """A store URL option that must be an integer of at least ``minimum`` (a size or a count)."""
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        wanted = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ConfigError(f"store URL {url!r}: {name}={value!r} is not {wanted}")
    return number


def open_backend(url: str) -> Backend:
    """Open the backend a store URL names."""
    if not url:
        raise ConfigError("empty store URL")
    if "://" not in url:
        url = "lmdb://" + url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        from wikikv.store.backends.memory import MemoryBackend

        return MemoryBackend()
    if scheme == "lmdb":
        from wikikv.store.backends.lmdb import LMDBBackend

        path = (parts.netloc + parts.path) if parts.netloc else parts.path
        if not path:
            raise ConfigError(f"store URL {url!r} names no directory")
        opts = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        kwargs: dict[str, object] = {}
        for name in ("map_size", "max_readers"):
            if name in opts:
                kwargs[name] = _positive(opts.pop(name), name, url)
        if "resident_mb" in opts:  # 0: keep every page of the map the process read
            kwargs["resident_mb"] = _positive(opts.pop("resident_mb"), "resident_mb", url, 0)
        if "sync" in opts:
            kwargs["sync"] = _flag(opts.pop("sync"), "sync")
        if "readonly" in opts:
            kwargs["readonly"] = _flag(opts.pop("readonly"), "readonly")
        if opts:
            raise ConfigError(f"unknown LMDB store option(s): {', '.join(sorted(opts))}")
        return LMDBBackend(path, **kwargs)  # type: ignore[arg-type]
    if scheme in _SERVER_BACKENDS:
        module_name, cls_name, extra = _SERVER_BACKENDS[scheme]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(
                f"the {scheme} backend needs an extra: pip install 'wikikv[{extra}]' ({exc})"
            ) from exc
        backend: Backend = getattr(module, cls_name).from_url(url)
        return backend
    raise ConfigError(f"unknown store URL scheme {scheme!r} in {url!r}")
