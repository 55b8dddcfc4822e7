"""A bound on the pages of an LMDB file this process keeps resident through its memory map.

LMDB reads through a read-only shared map of ``data.mdb``, so every page a process ever read
(and every page a write transaction copied before changing it) stays in its resident set until
the map goes: a build that writes and reads back a store of N MB ends with ~N MB of file pages
counted in its RSS, on top of what it allocated. Those pages are the kernel's page cache; the
process only holds mappings of them. :class:`ResidentMap` drops the mappings
(``madvise(MADV_DONTNEED)``) once more than a budget of them is resident; a later read faults
the page back in from the page cache (a minor fault, no I/O while the cache holds it).

Why this is safe with readers and a writer running: the map is ``PROT_READ`` and shared (the
backend never opens with ``writemap``), so the pages hold exactly the file's page cache and
nothing is ever written through them; dropping a mapping changes what is resident, never what
a read sees, even for a read transaction in another thread that is using the page at that
moment (its next access faults in the same bytes). Only the data file's mappings are touched
(matched by device and inode), never the lock file's reader table or anonymous memory.
Linux only (``/proc/self`` and ``madvise``); elsewhere the bound is off.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Any

MADV_DONTNEED = 4
CHECK_EVERY = 64  # records read or written between two looks at the resident set (4 µs)
_NEVER = 1 << 62
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _libc_madvise() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:  # pragma: no cover - no C library to load
        return None
    fn = getattr(libc, "madvise", None)
    if fn is not None:
        fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        fn.restype = ctypes.c_int
    return fn


_madvise = _libc_madvise() if Path("/proc/self/maps").exists() else None


def file_mappings(path: Path) -> list[tuple[int, int]]:
    """The address ranges at which this process maps the file at ``path``."""
    try:
        st = os.stat(path)
    except OSError:
        return []
    out: list[tuple[int, int]] = []
    with open("/proc/self/maps", "rb") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6 or int(parts[4]) != st.st_ino:
                continue
            major, minor = (int(x, 16) for x in parts[3].split(b":"))
            if os.makedev(major, minor) != st.st_dev:
                continue
            lo, hi = (int(x, 16) for x in parts[0].split(b"-"))
            out.append((lo, hi))
    return out


class ResidentMap:
    """Keeps the resident pages of ``path``'s mappings (and of the process's other file
    mappings, which are counted with them) under ``budget`` bytes beyond what was resident
    when it was made. ``budget`` 0: no bound."""

    def __init__(self, path: Path, budget: int) -> None:
        self.path = path
        self.budget = budget if _madvise is not None else 0
        self.released = 0  # times the mappings were dropped
        self.countdown = CHECK_EVERY if self.budget else _NEVER
        self._fd = -1
        self._pid = -1
        self._base = 0

    def _statm(self) -> int:
        """Resident file-backed (and shared) bytes of this process."""
        if self._pid != os.getpid():  # a forked child: /proc/self of the parent was opened
            if self._fd >= 0:
                os.close(self._fd)
            self._fd = os.open("/proc/self/statm", os.O_RDONLY)
            self._pid = os.getpid()
            self._base = self._resident()
        return self._resident()

    def _resident(self) -> int:
        return int(os.pread(self._fd, 256, 0).split()[2]) * _PAGE

    def tick(self, n: int = 1) -> None:
        """Count ``n`` records read or written (a hot path may decrement :attr:`countdown`
        itself and call :meth:`check` when it reaches 0)."""
        self.countdown -= n
        if self.countdown <= 0:
            self.check()

    def check(self) -> None:
        """Drop the map's pages if more than the budget is resident."""
        self.countdown = CHECK_EVERY if self.budget else _NEVER
        if self.budget and self._statm() - self._base > self.budget:
            self.release()
            # what stays resident is the process's other file mappings: the bound is beyond them
            self._base = self._resident()

    def release(self) -> int:
        """Drop this process's mappings of the file's pages; returns the bytes of address
        range advised (not all of it was resident)."""
        if _madvise is None:
            return 0
        total = 0
        for lo, hi in file_mappings(self.path):
            if _madvise(lo, hi - lo, MADV_DONTNEED) == 0:
                total += hi - lo
        self.released += 1
        return total

    def close(self) -> None:
        if self._fd >= 0 and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = -1
        self._pid = -1
