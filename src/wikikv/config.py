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


@dataclass(frozen=True)
class StoreSettings:
    """Settings of one open store."""

    max_record_bytes: int = MAX_RECORD_BYTES
    max_depth: int = MAX_DEPTH
    dir_page_entries: int = DIR_PAGE_ENTRIES
    lease_ttl: float = LEASE_TTL_SECONDS
