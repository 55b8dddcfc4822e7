"""Helpers for the build's forked worker processes (document analysis, index runs).

A build forks its workers rather than spawning them: a spawned child imports the caller's main
module again, which breaks a library user's script without a ``__main__`` guard, and a forked one
shares the parent's loaded state (the gazetteer) copy-on-write.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import multiprocessing as mp
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import TypeVar

T = TypeVar("T")
_OK, _FAILED = b"\x00", b"\x01"

_PR_SET_PDEATHSIG = 1


def cpus() -> int:
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether a worker could run beside this process: two CPUs or more and ``fork``."""
    return cpus() >= 2 and "fork" in mp.get_all_start_methods()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Fork inside this block: the children's collector leaves the heap they share alone (it
    would write to every object it visits and so copy every page of it)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def process_cpu(pid: int) -> float:
    """CPU seconds a live process has used so far (user + system), 0.0 where /proc cannot tell:
    a worker's CPU shows in RUSAGE_CHILDREN only once it has ended, and a build's index worker
    lives through every phase."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            stat = fh.read()
    except OSError:
        return 0.0
    # the command name may hold spaces or parentheses: the fields start after its last ")"
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        ticks = int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    except (IndexError, ValueError):
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


def become_worker(parent: int) -> None:
    """What a forked worker does first: ignore Ctrl-C (it reaches the whole process group and
    the parent stops its workers itself, without a traceback from each) and ask Linux to kill
    it when ``parent`` dies, even killed outright (elsewhere an orphan ends at its pipe's EOF)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not sys.platform.startswith("linux"):
        return
    prctl = getattr(_libc(), "prctl", None)
    if prctl is None:  # pragma: no cover - no prctl: orphans end at EOF
        return
    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # pragma: no cover - the parent died before the request
        os._exit(0)


def answer_each(
    receive: Callable[[], T], answer: Callable[[T], bytes], results: Connection
) -> None:
    """A worker's loop: each request ``receive`` returns is answered on ``results`` (its error
    pickled instead, for the parent to raise: see :func:`unpacked`) until the task pipe ends
    or the parent is gone."""
    while True:
        try:
            request = receive()
        except EOFError:
            return
        try:
            out = _OK + answer(request)
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            out = _FAILED + pickle.dumps(exc)
        try:
            results.send_bytes(out)
        except OSError:  # the parent is gone (broken pipe): nobody wants the rest
            return
        del request, out
        release_free_memory()


def release_free_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc keeps what a request freed, so
    a worker would hold its largest request's memory for the rest of the build)."""
    trim = getattr(_libc(), "malloc_trim", None)  # glibc only: musl and macOS have none
    if trim is not None:
        trim(0)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library this process runs on, loaded on first use (not on import: queries import
    this module and never fork)."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no C library to open by handle
        return None


def unpacked(raw: bytes) -> memoryview:
    """A worker's answer (see :func:`answer_each`), its error raised here as itself."""
    if raw[:1] == _FAILED:
        raise pickle.loads(raw[1:])
    return memoryview(raw)[1:]
