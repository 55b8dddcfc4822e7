"""Limits and defaults, as named constants and one frozen settings object."""

from __future__ import annotations

from dataclasses import dataclass

MAX_DEPTH = 5
MAX_SEGMENT_BYTES = 255
MAX_RECORD_BYTES = 4 * 1024 * 1024
MAX_KB_NAME = 64
FANOUT_BOUND = 256
# Children listed in one directory record before continuation pages take over; keeps a huge
# directory's records bounded (about 1,000 names of up to 255 bytes stays well under 4 MiB).
DIR_PAGE_ENTRIES = 1000
MAX_REDIRECT_HOPS = 8
LEASE_TTL_SECONDS = 30.0
DEFAULT_RETRIES = 16
# Aliases one page may carry. Each is a name-index key and a search-vocabulary neighbourhood
# (~len(alias) keys), so a page with 200k aliases meant millions of keys for one write to replace.
MAX_ALIASES = 1000


@dataclass(frozen=True)
class StoreSettings:
    """Settings of one open store."""

    max_record_bytes: int = MAX_RECORD_BYTES
    max_depth: int = MAX_DEPTH
    dir_page_entries: int = DIR_PAGE_ENTRIES
    lease_ttl: float = LEASE_TTL_SECONDS
    max_aliases: int = MAX_ALIASES


@dataclass(frozen=True)
class CacheSettings:
    """The cache tiers of an open store (WikiKV paper §V-C).

    ``l1``: pin each opened kb's root and dimension records in process, pre-warmed and refreshed
    on invalidation. ``l2_url``: a Redis (or ``redis+cluster://``) URL for the shared L2 of hot
    records. ``follow``: learn of other processes' writes (Redis pub/sub with L2; otherwise by
    following the audit trail every ``follow_interval`` seconds).
    """

    l1: bool = True
    l2_url: str | None = None
    l2_ttl_ms: int = 300_000
    l2_capacity: int = 10_000
    # Prefix of the L2 keys in Redis; each store's entries sit under ``<prefix>:<store id>``
    # (wikikv.cache.wiring.l2_namespace), so stores sharing one Redis never share entries.
    l2_namespace: str = "wikikv:l2"
    follow: bool = True
    follow_interval: float = 0.005
