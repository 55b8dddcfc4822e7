"""Lease takeover: a killed job's lease is taken over at once on its own host; a live holder never
is, and ``wait`` counts down to its expiry instead."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wikikv.config import StoreSettings
from wikikv.errors import LeaseHeld
from wikikv.store.lease import TAKEOVER_OP, LeaseRecord, holder_is_gone, process_started
from wikikv.store.store import open_store

HOLDER = """
import sys, time
from wikikv.store.store import open_store
store = open_store(sys.argv[1])
lease = store.create_kb("w", exist_ok=True).lease("holder", ttl=60)
print("held", flush=True)
time.sleep(120)
"""


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _holder(url: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url], stdout=subprocess.PIPE, text=True, env=_env()
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_live_holder_is_waited_for_then_a_killed_one_taken_over(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'store'}"
    proc = _holder(url)
    store = open_store(url)
    try:
        kb = store.kb("w")
        with pytest.raises(LeaseHeld, match="expires in"):
            kb.lease("mine")
        seen: list[float] = []
        t0 = time.monotonic()
        with pytest.raises(LeaseHeld):
            kb.lease("mine", wait=1.5, on_wait=lambda holder, left: seen.append(left))
        assert time.monotonic() - t0 >= 1.5  # it did wait
        assert len(seen) >= 2
        assert seen == sorted(seen, reverse=True)  # a countdown
        assert all(0 < s <= 60 for s in seen)  # within the holder's ttl
        assert not any(e.op == TAKEOVER_OP for e in kb.audit(None))  # a live holder: never

        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        lease = kb.lease("mine")  # at once, though the dead holder's lease has ~55 s left
        try:
            assert lease.took_over is not None
            assert lease.took_over.owner == f"{socket.gethostname()}:{proc.pid}"
        finally:
            lease.release()
        [entry] = [e for e in kb.audit(None) if e.op == TAKEOVER_OP]
        assert f":{proc.pid}" in entry.detail
        assert "no longer exists" in entry.detail
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        store.close()


def test_holder_identity_checks() -> None:
    host, pid = socket.gethostname(), os.getpid()
    mine = process_started(pid)
    assert mine  # Linux /proc
    rec = LeaseRecord("t", f"{host}:{pid}", "job", time.time() + 60, time.time(), mine)
    assert not holder_is_gone(rec)  # this very process: alive
    rec.started = str(int(mine) + 1)
    assert holder_is_gone(rec)  # our pid, reused by a process started at another time
    rec.owner = f"another-host.example:{pid}"
    assert not holder_is_gone(rec)  # another host: only its expiry can tell
    rec.owner = f"{host}:not-a-pid"
    assert not holder_is_gone(rec)


def _corpus(root: Path, docs: int) -> Path:
    root.mkdir()
    for i in range(docs):
        (root / f"town{i:04d}.md").write_text(
            f"Town {i} lies on the river Tagus{i % 7}. It was founded by Maria Costa{i % 13} "
            f"in {1500 + i}. Its market trades with Town {(i + 1) % docs}.\n",
            encoding="utf-8",
        )
    return root


def test_kill9_build_then_a_new_build_takes_over(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus", 600)
    store_dir = tmp_path / "store"
    url = f"lmdb://{store_dir}"
    args = [sys.executable, "-m", "wikikv", "build", str(corpus), "--store", url, "--kb", "w"]
    first = subprocess.Popen(args, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:  # wait for the build to hold its lease, then kill it
            assert first.poll() is None, "the build ended before it could be killed"
            assert time.monotonic() < deadline
            if (store_dir / "data.mdb").exists():
                with open_store(url, StoreSettings()) as probe:
                    if probe.has_kb("w") and probe.kb("w").backend.get(
                        probe.kb("w").keys.system("lease")
                    ):
                        break
            time.sleep(0.005)
        first.send_signal(signal.SIGKILL)
        first.wait()
        assert first.returncode == -signal.SIGKILL
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    second = subprocess.run(args, env=_env(), capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    with open_store(url) as store:
        kb = store.kb("w")
        [entry] = [e for e in kb.audit(None) if e.op == TAKEOVER_OP]
        assert f":{first.pid}" in entry.detail
        assert kb.get("/sources/articles/town0000") is not None


def test_build_wait_counts_down_then_gives_up(tmp_path: Path) -> None:
    url = f"lmdb://{tmp_path / 'store'}"
    corpus = _corpus(tmp_path / "corpus", 3)
    proc = _holder(url)
    try:
        args = [sys.executable, "-m", "wikikv", "build", str(corpus), "--store", url, "--kb", "w"]
        done = subprocess.run(
            [*args, "--wait", "1.5"], env=_env(), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 1
        lines = [ln for ln in done.stderr.splitlines() if ln.startswith("waiting for bulk job")]
        assert len(lines) >= 2, done.stderr
        assert "'holder'" in lines[0]
        assert "already locked" in done.stderr
    finally:
        proc.kill()
        proc.communicate()
