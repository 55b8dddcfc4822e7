"""jieba's dictionary as an on-disk hash table, so a query is segmented without loading it.

Loading jieba costs 0.5–1.7 s per process (it unmarshals a 9 MB prefix dictionary of 580k
entries), which a one-shot CLI query pays before its first result. A query needs the frequencies
of a few hundred substrings at most, so the package builds, once per installed ``dict.txt``, a
file holding exactly jieba's prefix dictionary (every word with its frequency, every prefix of a
word with 0 — ``jieba.Tokenizer.gen_pfdict``) as an open-addressing hash table, and maps it: opening
costs well under a millisecond and a lookup a few microseconds.

:class:`LazyDictionary` then runs jieba's own algorithm over it — the DAG of dictionary words, the
maximum-probability route, the ``HMM=False`` cut and the search-mode sub-words — so its
``cut_for_search`` returns what ``jieba.cut_for_search(text, HMM=False)`` returns (tested on the
runs of a real corpus). It is meant for short texts; long ones (index builds) go to jieba itself,
which is faster per character once loaded.

File layout (little-endian): header ``MAGIC, slot count (power of two), entries, total frequency``;
then the slots, each ``(crc32 of the key, offset of its entry; 0 = empty)``; then the entries, each
``key length (u8), key (UTF-8), frequency (u32)``. The file is written to a temporary name and
renamed into place, so a concurrent reader sees no file or a whole one.
"""

from __future__ import annotations

import importlib.util
import math
import mmap
import os
import re
import struct
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

MAGIC = b"WKVJD\x00\x01\x00"
HEADER = struct.Struct("<8sIIQ")
SLOT = struct.Struct("<II")
FREQ = struct.Struct("<I")
CACHE_ENV = "WIKIKV_CACHE_DIR"

# jieba's block pattern: only these characters go through the DAG; any other character of a run
# (CJK extension A, the newest unified ideographs, compatibility ideographs) is its own word.
_HAN = re.compile(r"([\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]+)")
_ENG = re.compile(r"[a-zA-Z0-9]")


def jieba_dict_file() -> Path | None:
    """The ``dict.txt`` jieba loads by default, found without importing jieba."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "dict.txt"
    return path if path.is_file() else None


def cache_dir() -> Path:
    """Where built dictionaries live: ``$WIKIKV_CACHE_DIR``, else the user's cache directory."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "wikikv"


def cache_path(source: Path, directory: Path | None = None) -> Path:
    """The cache file of ``source``: named by its size and mtime, so a changed dictionary (a new
    jieba) gets a new file rather than stale frequencies."""
    st = source.stat()
    return (directory or cache_dir()) / f"jieba-dict-{st.st_size}-{st.st_mtime_ns}.bin"


def prefix_dictionary(source: Path) -> tuple[dict[str, int], int]:
    """jieba's prefix dictionary of ``source`` and its total frequency (``gen_pfdict``)."""
    freq: dict[str, int] = {}
    total = 0
    with source.open(encoding="utf-8") as fh:
        for line in fh:
            parts = line.strip().split(" ")
            if len(parts) < 2:
                continue
            word, n = parts[0], int(parts[1])
            freq[word] = n
            total += n
            for end in range(1, len(word)):
                freq.setdefault(word[:end], 0)
    return freq, total


def write_table(freq: dict[str, int], total: int, dest: Path) -> None:
    """Write ``freq`` as the hash-table file at ``dest`` (atomically)."""
    slots = 1
    while slots < len(freq) * 2:
        slots <<= 1
    mask = slots - 1
    table = bytearray(SLOT.size * slots)
    data = bytearray(b"\x00")  # offset 0 means "empty slot"
    base = HEADER.size + len(table)
    for word, n in freq.items():
        key = word.encode("utf-8")
        if len(key) > 255:
            continue  # longer than any word jieba's DAG could use here
        h = zlib.crc32(key)
        i = h & mask
        while SLOT.unpack_from(table, i * SLOT.size)[1]:
            i = (i + 1) & mask
        SLOT.pack_into(table, i * SLOT.size, h, base + len(data))
        data += bytes([len(key)]) + key + FREQ.pack(min(n, 0xFFFFFFFF))
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as fh:
        fh.write(HEADER.pack(MAGIC, slots, len(freq), total))
        fh.write(table)
        fh.write(data)
    os.replace(tmp, dest)


class LazyDictionary:
    """jieba's prefix dictionary, read from the mapped cache file one lookup at a time."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as fh:
            self._mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        magic, slots, self.entries, total = HEADER.unpack_from(self._mm, 0)
        if magic != MAGIC:
            raise ValueError(f"{path} is not a WikiKV dictionary cache")
        self._mask = slots - 1
        self.logtotal = math.log(total)
        self._memo: dict[str, int | None] = {}

    def get(self, word: str) -> int | None:
        """The frequency of ``word`` (0 for a bare prefix), or None when jieba does not know it."""
        memo = self._memo
        if word in memo:
            return memo[word]
        key = word.encode("utf-8")
        h = zlib.crc32(key)
        i = h & self._mask
        mm = self._mm
        found: int | None = None
        while True:
            sh, off = SLOT.unpack_from(mm, HEADER.size + i * SLOT.size)
            if off == 0:
                break
            if sh == h and mm[off] == len(key) and mm[off + 1 : off + 1 + len(key)] == key:
                found = FREQ.unpack_from(mm, off + 1 + len(key))[0]
                break
            i = (i + 1) & self._mask
        if len(memo) < 100_000:
            memo[word] = found
        return found

    # jieba's algorithm, over this dictionary ------------------------------------------------
    def _route(self, sentence: str) -> list[int]:
        """For each position, the end (exclusive) of the word the best route takes there."""
        n = len(sentence)
        get = self.get
        dag: list[list[int]] = []
        for k in range(n):
            ends: list[int] = []
            i = k
            frag = sentence[k]
            while i < n:
                f = get(frag)
                if f is None:
                    break
                if f:
                    ends.append(i)
                i += 1
                frag = sentence[k : i + 1]
            dag.append(ends or [k])
        best: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        logtotal = self.logtotal
        for idx in range(n - 1, -1, -1):
            best[idx] = max(
                (math.log(get(sentence[idx : x + 1]) or 1) - logtotal + best[x + 1][0], x)
                for x in dag[idx]
            )
        return [x + 1 for _, x in best[:n]]

    def _cut_block(self, sentence: str) -> Iterator[str]:
        route = self._route(sentence)
        x, buf = 0, ""
        while x < len(sentence):
            y = route[x]
            word = sentence[x:y]
            if len(word) == 1 and _ENG.match(word):
                buf += word
            else:
                if buf:
                    yield buf
                    buf = ""
                yield word
            x = y
        if buf:
            yield buf

    def cut(self, text: str) -> Iterator[str]:
        """``jieba.cut(text, HMM=False)`` for text without whitespace (a run of ideographs)."""
        for block in _HAN.split(text):
            if not block:
                continue
            if _HAN.match(block):
                yield from self._cut_block(block)
            else:
                yield from block

    def cut_for_search(self, text: str) -> list[str]:
        """``jieba.cut_for_search(text, HMM=False)``."""
        out: list[str] = []
        get = self.get
        for w in self.cut(text):
            if len(w) > 2:
                out.extend(w[i : i + 2] for i in range(len(w) - 1) if get(w[i : i + 2]))
            if len(w) > 3:
                out.extend(w[i : i + 3] for i in range(len(w) - 2) if get(w[i : i + 3]))
            out.append(w)
        return out


_lazy: LazyDictionary | None = None
_lazy_failed = False
_lock = threading.Lock()


def ensure_cache(directory: Path | None = None) -> Path | None:
    """Build the cache file for the installed jieba dictionary unless it exists; its path, or
    None when jieba or its dictionary is missing."""
    source = jieba_dict_file()
    if source is None:
        return None
    path = cache_path(source, directory)
    if not path.is_file():
        freq, total = prefix_dictionary(source)
        write_table(freq, total, path)
    return path


def lazy_dictionary() -> LazyDictionary | None:
    """The mapped dictionary of this process (built on first use), or None when it cannot be
    had (no jieba, an unwritable cache directory): callers then load jieba itself."""
    global _lazy, _lazy_failed
    if _lazy is None and not _lazy_failed:
        with _lock:
            if _lazy is None and not _lazy_failed:
                try:
                    path = ensure_cache()
                    _lazy = LazyDictionary(path) if path is not None else None
                except (OSError, ValueError):
                    _lazy = None
                _lazy_failed = _lazy is None
    return _lazy
