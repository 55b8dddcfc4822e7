"""The exclusive lease a bulk job (a build, an evolution pass) holds on its kb.

While a lease is live, writes to the kb from anyone but its holder fail with LeaseHeld. Every
write checks the lease key's version inside its own atomic batch, so a lease taken between a
writer's check and its commit turns that commit into a conflict, never a silent interleaving.
The holder renews the lease from a background thread; a killed job stops renewing and its lease
expires after ``ttl`` seconds instead of blocking the kb forever. The holder's own writes carry no
check (renewals change the lease's version); instead a holder whose renewal failed — its lease
lapsed and may have passed to another job — refuses to write.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable

import msgspec

from wikikv.errors import ConflictError, LeaseHeld
from wikikv.store.backends.base import ABSENT, Backend, Check
from wikikv.store.keys import KBKeys

LEASE_NAME = "lease"


class LeaseRecord(msgspec.Struct):
    token: str
    owner: str
    job: str
    expires_at: float
    acquired_at: float


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(LeaseRecord)


def read_lease(backend: Backend, keys: KBKeys) -> tuple[int, LeaseRecord | None]:
    item = backend.get(keys.system(LEASE_NAME))
    if item is None:
        return ABSENT, None
    return item.version, _dec.decode(item.value)


def write_guard(backend: Backend, keys: KBKeys, token: str | None) -> Check:
    """The batch op that makes a write fail if the lease changes hands before it commits."""
    version, lease = read_lease(backend, keys)
    if lease is not None and lease.expires_at > time.time() and lease.token != token:
        raise LeaseHeld(
            f"kb {keys.kb!r} is locked by bulk job {lease.job!r} of {lease.owner} until "
            f"{time.strftime('%H:%M:%S', time.localtime(lease.expires_at))} (renewed while it runs)"
        )
    return Check(keys.system(LEASE_NAME), version)


class Lease:
    """A held lease; use as a context manager. Renews itself every ``ttl / 3`` seconds."""

    def __init__(
        self,
        backend: Backend,
        keys: KBKeys,
        job: str,
        ttl: float,
        on_release: Callable[[], None] | None = None,
    ) -> None:
        self.backend = backend
        self.keys = keys
        self.job = job
        self.ttl = ttl
        self.token = uuid.uuid4().hex
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self._version = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.lost = False
        self._on_release = on_release

    def acquire(self) -> Lease:
        version, current = read_lease(self.backend, self.keys)
        now = time.time()
        if current is not None and current.expires_at > now:
            raise LeaseHeld(
                f"kb {self.keys.kb!r} is already locked by bulk job {current.job!r} of "
                f"{current.owner}; it expires in {current.expires_at - now:.0f} s unless renewed"
            )
        rec = LeaseRecord(self.token, self.owner, self.job, now + self.ttl, now)
        try:
            self._version = self.backend.put_if(
                self.keys.system(LEASE_NAME), _enc.encode(rec), version
            )
        except ConflictError as exc:
            raise LeaseHeld(f"kb {self.keys.kb!r}: another job took the lease first") from exc
        self._thread = threading.Thread(target=self._renew_loop, name="wikikv-lease", daemon=True)
        self._thread.start()
        return self

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            try:
                self.renew()
            except Exception:  # noqa: BLE001 - a failed renewal lets the lease lapse, by design
                self.lost = True
                return

    def renew(self) -> None:
        with self._lock:
            now = time.time()
            rec = LeaseRecord(self.token, self.owner, self.job, now + self.ttl, now)
            self._version = self.backend.put_if(
                self.keys.system(LEASE_NAME), _enc.encode(rec), self._version
            )

    def check_held(self) -> None:
        """Raise LeaseHeld when this lease lapsed (a renewal failed) and may belong to another."""
        if self.lost:
            raise LeaseHeld(f"the lease of job {self.job!r} on kb {self.keys.kb!r} lapsed")

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            try:
                self.backend.delete_if(self.keys.system(LEASE_NAME), self._version)
            except ConflictError:
                pass  # it expired and someone else took it: nothing of ours to release
        if self._on_release is not None:
            self._on_release()

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
