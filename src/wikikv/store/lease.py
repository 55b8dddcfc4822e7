"""The exclusive lease a bulk job (a build, an evolution pass) holds on its kb.

While a lease is live, writes to the kb from anyone but its holder fail with LeaseHeld. Every
write checks the lease key's version inside its own atomic batch, so a lease taken between a
writer's check and its commit turns that commit into a conflict, never a silent interleaving.
The holder renews the lease from a background thread; a killed job stops renewing and its lease
expires after ``ttl`` seconds instead of blocking the kb forever.

**Fencing.** The holder's own writes cannot check the lease key (each renewal changes its
version). They check a second key instead, the *fence* (``S lease-fence``), which only a job
taking the lease writes, in the same batch as the lease; it is never deleted, so its version only
grows. The holder remembers the fence version it wrote, and every batch it commits carries a
``Check`` of it: when the lease lapsed and another job took it, the fence moved on and the backend
refuses the holder's batch as a whole — on every engine, through the one batch primitive. (A local
flag set by a failed renewal still makes such a holder fail early, before it sends anything.)

**Takeover.** A lease whose holder was killed (SIGKILL, power loss) would block the kb until it
expires. When the holder ran on this host and that process no longer exists — its pid is gone,
or now belongs to a process started at another time — the lease is taken over at once, and the
takeover is written to the kb's audit trail in the same batch. A live holder is never taken over;
``wait`` makes acquire wait (calling ``on_wait`` with the seconds left, for a countdown) until the
lease expires or is released.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import msgspec

from wikikv.errors import ConflictError, LeaseHeld
from wikikv.store.audit import audit_op
from wikikv.store.backends.base import ABSENT, ANY, Backend, Check, Op, Put
from wikikv.store.keys import KBKeys

LEASE_NAME = "lease"
FENCE_NAME = "lease-fence"
TAKEOVER_OP = "lease-takeover"


class LeaseRecord(msgspec.Struct):
    token: str
    owner: str
    job: str
    expires_at: float
    acquired_at: float
    # When the holder process started (Linux: /proc/<pid>/stat field 22), so a pid reused by an
    # unrelated process is not mistaken for the holder; "" where it cannot be read.
    started: str = ""


_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder(LeaseRecord)
WaitFn = Callable[[LeaseRecord, float], None]


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


def process_started(pid: int) -> str:
    """The start time of process ``pid`` (clock ticks since boot), or "" when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: count from the last ")".
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def holder_is_gone(lease: LeaseRecord) -> bool:
    """Whether the lease's holder was a process on this host that no longer exists."""
    host, _, pid_text = lease.owner.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False  # another host's process: only its expiry can tell
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # it exists (another user's process)
    started = process_started(pid)
    return bool(lease.started and started and started != lease.started)


class Lease:
    """A held lease; use as a context manager. Renews itself every ``ttl / 3`` seconds."""

    def __init__(
        self,
        backend: Backend,
        keys: KBKeys,
        job: str,
        ttl: float,
        on_release: Callable[[], None] | None = None,
        actor: str = "",
    ) -> None:
        self.backend = backend
        self.keys = keys
        self.job = job
        self.ttl = ttl
        self.token = uuid.uuid4().hex
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.actor = actor or self.owner
        self._started = process_started(os.getpid())
        self._version = 0
        self.fence_version = 0
        self.took_over: LeaseRecord | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.lost = False
        self._on_release = on_release

    def acquire(self, wait: float = 0.0, on_wait: WaitFn | None = None) -> Lease:
        """Take the lease: at once when it is free, expired, or held by a dead process of this
        host (a takeover, audited); otherwise wait up to ``wait`` seconds for it to expire or be
        released, then raise LeaseHeld."""
        deadline = time.monotonic() + wait
        while True:
            version, current = read_lease(self.backend, self.keys)
            now = time.time()
            live = current is not None and current.expires_at > now
            if not live or (current is not None and holder_is_gone(current)):
                self._take(version, current if live else None)
                break
            assert current is not None
            left = deadline - time.monotonic()
            if left <= 0:
                raise LeaseHeld(
                    f"kb {self.keys.kb!r} is already locked by bulk job {current.job!r} of "
                    f"{current.owner}; it expires in {current.expires_at - now:.0f} s unless "
                    "renewed"
                )
            if on_wait is not None:
                on_wait(current, current.expires_at - now)
            time.sleep(min(1.0, left, max(0.05, current.expires_at - now)))
        self._thread = threading.Thread(target=self._renew_loop, name="wikikv-lease", daemon=True)
        self._thread.start()
        return self

    def _take(self, version: int, dead: LeaseRecord | None) -> None:
        """Write the lease and move the fence on, in one batch (with the audit entry of a
        takeover from ``dead``)."""
        now = time.time()
        rec = LeaseRecord(self.token, self.owner, self.job, now + self.ttl, now, self._started)
        ops: list[Op] = [
            Put(self.keys.system(LEASE_NAME), _enc.encode(rec), version),
            Put(self.keys.system(FENCE_NAME), self.token.encode(), ANY),
        ]
        if dead is not None:
            detail = (
                f"took over the lease of job {dead.job!r} from {dead.owner}, a process that no "
                f"longer exists (it had {dead.expires_at - now:.0f} s left)"
            )
            ops.append(audit_op(self.keys, self.actor, TAKEOVER_OP, "/", 0, 0, detail))
        try:
            versions = self.backend.batch(ops)
        except ConflictError as exc:
            raise LeaseHeld(f"kb {self.keys.kb!r}: another job took the lease first") from exc
        self._version, self.fence_version = versions[0], versions[1]
        self.took_over = dead

    def fence(self) -> Check:
        """The op every write of the holder carries: the fence still at the version it set."""
        return Check(self.keys.system(FENCE_NAME), self.fence_version)

    def is_fence(self, exc: ConflictError) -> bool:
        """Whether a batch's conflict came from this lease's fence (the lease changed hands)."""
        key = self.keys.system(FENCE_NAME)
        return exc.key in (repr(key), key.hex())

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
            rec = LeaseRecord(self.token, self.owner, self.job, now + self.ttl, now, self._started)
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
