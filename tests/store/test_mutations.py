"""Mutation checks (slow mode): each protocol mechanism is removed on purpose, and the test that
guards it must notice. A test that still passed here would prove nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.store.backends.base import Op
from wikikv.store.backends.lmdb import LMDBBackend
from wikikv.store.backends.memory import MemoryBackend
from wikikv.store.kb import KnowledgeBase
from wikikv.store.lease import write_guard
from wikikv.testing.fencing import lapsed_holder_leaks
from wikikv.testing.workloads import lost_updates, partial_reads

pytestmark = pytest.mark.slow


def test_update_without_its_version_check_loses_updates(tmp_path: Path) -> None:
    value, _ = lost_updates(f"lmdb://{tmp_path / 'db'}?sync=false", 2, 200, mutant=True)
    assert value < 400  # the lost-update test (value == 400) would fail on this copy


def test_child_listed_before_it_exists_is_caught(tmp_path: Path) -> None:
    res = partial_reads(f"lmdb://{tmp_path / 'db'}?sync=false", 2.0, readers=3, unsafe="create")
    assert res.errors == []
    assert res.violations > 0


def test_record_deleted_before_unlinking_is_caught(tmp_path: Path) -> None:
    res = partial_reads(f"lmdb://{tmp_path / 'db'}?sync=false", 2.0, readers=3, unsafe="delete")
    assert res.errors == []
    assert res.violations > 0


def _unfenced_guard(self: KnowledgeBase) -> list[Op]:
    """The holder's guard before fencing: a local flag, nothing the backend checks."""
    if self._lease is not None:
        self._lease.check_held()
        return []
    return [write_guard(self.backend, self.keys, None)]


@pytest.mark.parametrize("engine", ["memory", "lmdb"])
def test_unfenced_lease_holder_is_caught(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(KnowledgeBase, "_guard", _unfenced_guard)
    backend = MemoryBackend() if engine == "memory" else LMDBBackend(tmp_path / "db", sync=False)
    try:
        leaks = lapsed_holder_leaks(backend)
    finally:
        backend.close()
    assert "kb.put" in leaks
    assert "bulk flush" in leaks  # the conformance test (leaks == []) would fail on this copy
