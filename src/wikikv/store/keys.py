"""Key derivation: ``(kb, path)`` → physical keys, and the ordered keyspaces beside them.

Every key of a kb starts with ``<kb>\\x00`` (the shard prefix, see backends/base.py) and one byte
naming its keyspace:

====  ==================================================================================
N     node records: 8-byte BLAKE2b of the parent's path + 8-byte BLAKE2b of the path (fixed
      width, any path length; a directory's children are neighbours in key order — format 2)
D     continuation pages of a large directory: node hash + 4-byte page number
P     ordered path index: the path's UTF-8 (cut at 400 bytes + hash when longer) → path
A     ordered name index: case-folded page name or alias + NUL + path hash → (name, path)
S     system records (descriptor, lease, error book, ...), by name
L     audit trail: 8-byte time in ns + 4 random bytes, so appends never contend
I     search index (query layer)        C  LLM response cache (compile)
T     access statistics (buffered by readers, read by evolution)
X     access records of the serving layer (who read or wrote which path through which route)
====  ==================================================================================

Store-wide keys have an empty shard prefix: ``\\x00!format`` and ``\\x00!kb\\x00<name>``.
LMDB limits keys to 511 bytes; the longest key here is under 460.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import struct
import time
import unicodedata

from wikikv.config import MAX_KB_NAME
from wikikv.errors import InvalidKBName
from wikikv.store.backends.base import prefix_end

PATH_KEY_MAX = 400
NAME_KEY_MAX = 400
_KB_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")
FORMAT_KEY = b"\x00!format"
KB_REGISTRY_PREFIX = b"\x00!kb\x00"


def check_kb_name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidKBName(name, f"expected str, got {type(name).__name__}")
    if not name:
        raise InvalidKBName(name, "empty")
    if len(name) > MAX_KB_NAME:
        raise InvalidKBName(name, f"{len(name)} characters, the bound is {MAX_KB_NAME}")
    if not _KB_NAME.match(name):
        raise InvalidKBName(
            name, "use lowercase letters, digits, '_', '-' and '.', starting with a letter or digit"
        )
    return name


def path_hash(path: str, size: int = 16) -> bytes:
    return hashlib.blake2b(path.encode("utf-8"), digest_size=size).digest()


@functools.lru_cache(maxsize=65536)
def _node_hash(path: str) -> bytes:
    """The 16-byte node key suffix, memoized: hot paths are looked up again and again (saves the
    BLAKE2b calls, about 0.8 us of a 7 us get).

    The parent's hash comes first, so the children of a directory are neighbours in key order:
    a bulk load writing a directory's pages fills a few adjacent B-tree leaves instead of
    dirtying one random leaf per record (at one million nodes that cut the bytes a load writes
    per record by ~60%). The path's own hash (8 bytes) tells siblings apart."""
    cut = path.rfind("/")
    up = "" if path == "/" else ("/" if cut == 0 else path[:cut])
    return (
        hashlib.blake2b(up.encode("utf-8"), digest_size=8).digest()
        + hashlib.blake2b(path.encode("utf-8"), digest_size=8).digest()
    )


def legacy_node_hash(path: str) -> bytes:
    """The node key suffix of format 1 stores (the path's hash alone), for migration."""
    return hashlib.blake2b(path.encode("utf-8"), digest_size=16).digest()


@functools.lru_cache(maxsize=4096)
def _short_hash(path: str) -> bytes:
    """The 8-byte path hash of a name-index key, memoized: a page's name, title and aliases are
    keyed one after the other with the same path."""
    return hashlib.blake2b(path.encode("utf-8"), digest_size=8).digest()


_AUDIT_TS = struct.Struct(">Q")


class KBKeys:
    """Key builder for one kb (precomputes the prefixes; the hot path is one hash + concat)."""

    __slots__ = ("kb", "prefix", "_n", "_d", "_p", "_a", "_s", "_l", "_hash_cache")

    def __init__(self, kb: str) -> None:
        self.kb = kb
        self.prefix = kb.encode("utf-8") + b"\x00"
        self._n = self.prefix + b"N"
        self._d = self.prefix + b"D"
        self._p = self.prefix + b"P"
        self._a = self.prefix + b"A"
        self._s = self.prefix + b"S"
        self._l = self.prefix + b"L"

    def space(self, letter: str) -> bytes:
        return self.prefix + letter.encode("ascii")

    def node(self, path: str) -> bytes:
        return self._n + _node_hash(path)

    def dir_page(self, path: str, page: int) -> bytes:
        return self._d + path_hash(path) + struct.pack(">I", page)

    def path_index(self, path: str) -> bytes:
        raw = path.encode("utf-8")
        if len(raw) > PATH_KEY_MAX:
            raw = raw[:PATH_KEY_MAX] + path_hash(path, 8)
        return self._p + raw

    def path_range(self, text_prefix: str) -> tuple[bytes, bytes]:
        raw = text_prefix.encode("utf-8")[:PATH_KEY_MAX]
        return self._p + raw, prefix_end(self._p + raw)

    def name_index(self, name: str, path: str) -> bytes:
        folded = fold_name(name).encode("utf-8")[:NAME_KEY_MAX]
        return self._a + folded + b"\x00" + _short_hash(path)

    def name_range(self, name_prefix: str, exact: bool = False) -> tuple[bytes, bytes]:
        folded = fold_name(name_prefix).encode("utf-8")[:NAME_KEY_MAX]
        if exact:
            # The path hash after the NUL may start with 0xff: end just past the NUL instead.
            start = self._a + folded + b"\x00"
            return start, self._a + folded + b"\x01"
        start = self._a + folded
        return start, prefix_end(start)

    def system(self, name: str) -> bytes:
        return self._s + name.encode("utf-8")

    def audit(self, when_ns: int | None = None) -> bytes:
        ts = time.time_ns() if when_ns is None else when_ns
        return self._l + _AUDIT_TS.pack(ts) + random.randbytes(4)

    def all_range(self) -> tuple[bytes, bytes]:
        return self.prefix, self.kb.encode("utf-8") + b"\x01"

    def space_range(self, letter: str) -> tuple[bytes, bytes]:
        # Not ``start + b"\xff"``: node and page keys continue with a hash that may start with
        # 0xff and would fall past that end. The next letter bounds the keyspace exactly.
        start = self.space(letter)
        return start, self.prefix + bytes([start[-1] + 1])


def kb_registry_key(kb: str) -> bytes:
    return KB_REGISTRY_PREFIX + kb.encode("utf-8")


def fold_name(name: str) -> str:
    """The form names and aliases are indexed under: NFKC (full-width → half-width), case-folded,
    whitespace collapsed."""
    if not name.isascii():  # ASCII is already NFKC: skip the normalization call
        name = unicodedata.normalize("NFKC", name)
    return " ".join(name.casefold().split())
