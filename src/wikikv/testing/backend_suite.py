"""The backend conformance suite: one pytest base class every backend's test module subclasses.

Pattern borrowed from zarr's ``testing/store.py``: the subclass supplies a ``backend`` fixture (a
fresh, empty backend per test) and two out-of-band helpers that read and write through the
engine's *own* client — the ``lmdb`` environment for LMDB, the dict for memory, ``redis-py`` for
Redis — never through the :class:`~wikikv.store.backends.base.Backend` methods under test. So a
backend whose ``get`` and ``put_if`` agree with each other but store the wrong bytes still fails.

Every key used here starts with the shard prefix ``b"suite\\x00"`` so clustered engines keep one
test's keys on one shard, as the batch contract requires.
"""

from __future__ import annotations

import pytest

from wikikv.errors import ConflictError
from wikikv.store.backends.base import ABSENT, ANY, Backend, Check, Delete, Item, Put, prefix_end

SHARD = b"suite\x00"


def k(suffix: bytes | str) -> bytes:
    """A key in the suite's shard."""
    return SHARD + (suffix.encode("utf-8") if isinstance(suffix, str) else suffix)


class BackendTests:
    """Conformance tests of the Backend primitives; subclass and provide the fixture/helpers."""

    @pytest.fixture
    def backend(self) -> Backend:
        """A fresh, empty backend (override in the subclass, usually as a yield fixture)."""
        raise NotImplementedError("a BackendTests subclass must provide a backend fixture")

    def raw_get(self, backend: Backend, key: bytes) -> tuple[int, bytes] | None:
        """(version, value) at ``key`` read with the engine's own client, or None."""
        raise NotImplementedError

    def raw_put(self, backend: Backend, key: bytes, value: bytes, version: int) -> None:
        """Store ``value`` at ``key`` with ``version`` through the engine's own client."""
        raise NotImplementedError

    # ------------------------------------------------------------ helpers
    def _fill(self, backend: Backend, keys: list[bytes]) -> None:
        for i, key in enumerate(keys):
            self.raw_put(backend, key, b"v%d" % i, 1)

    def _scan_keys(
        self,
        backend: Backend,
        start: bytes,
        end: bytes,
        limit: int | None = None,
        reverse: bool = False,
    ) -> list[bytes]:
        return [key for key, _ in backend.scan(start, end, limit=limit, reverse=reverse)]

    # ----------------------------------------------------------- get / put
    def test_get_missing_is_none(self, backend: Backend) -> None:
        assert backend.get(k("nothing")) is None
        assert backend.get_many([k("a"), k("b")]) == [None, None]

    def test_put_is_visible_to_the_engine(self, backend: Backend) -> None:
        version = backend.put_if(k("a"), b"hello")
        assert version == 1
        assert self.raw_get(backend, k("a")) == (1, b"hello")

    def test_out_of_band_write_is_visible(self, backend: Backend) -> None:
        self.raw_put(backend, k("a"), b"written outside", 7)
        assert backend.get(k("a")) == Item(7, b"written outside")
        assert backend.put_if(k("a"), b"next", 7) == 8
        assert self.raw_get(backend, k("a")) == (8, b"next")

    def test_versions_increment(self, backend: Backend) -> None:
        assert [backend.put_if(k("a"), b"%d" % i) for i in range(5)] == [1, 2, 3, 4, 5]
        assert backend.get(k("a")) == Item(5, b"4")

    def test_put_absent(self, backend: Backend) -> None:
        assert backend.put_if(k("a"), b"first", ABSENT) == 1
        with pytest.raises(ConflictError) as info:
            backend.put_if(k("a"), b"second", ABSENT)
        assert info.value.expected == ABSENT
        assert info.value.actual == 1
        assert self.raw_get(backend, k("a")) == (1, b"first")

    def test_put_on_version(self, backend: Backend) -> None:
        backend.put_if(k("a"), b"one")
        assert backend.put_if(k("a"), b"two", 1) == 2
        with pytest.raises(ConflictError) as info:
            backend.put_if(k("a"), b"stale", 1)
        assert (info.value.expected, info.value.actual) == (1, 2)
        assert self.raw_get(backend, k("a")) == (2, b"two")

    def test_put_on_version_of_missing_key_conflicts(self, backend: Backend) -> None:
        with pytest.raises(ConflictError) as info:
            backend.put_if(k("a"), b"x", 3)
        assert info.value.actual == 0
        assert self.raw_get(backend, k("a")) is None

    def test_empty_value(self, backend: Backend) -> None:
        backend.put_if(k("empty"), b"")
        assert backend.get(k("empty")) == Item(1, b"")
        assert self.raw_get(backend, k("empty")) == (1, b"")
        assert backend.get_many([k("empty")]) == [Item(1, b"")]

    def test_binary_keys_and_values(self, backend: Backend) -> None:
        key = k(b"\xff\xfe\x80\x00\x01\xff")
        value = bytes(range(256)) * 4
        backend.put_if(key, value)
        assert backend.get(key) == Item(1, value)
        assert self.raw_get(backend, key) == (1, value)
        assert self._scan_keys(backend, k(b"\xff"), prefix_end(k(b"\xff"))) == [key]

    def test_large_value(self, backend: Backend) -> None:
        value = (b"0123456789abcdef" * 65536) * 3  # 3 MiB
        backend.put_if(k("big"), value)
        got = backend.get(k("big"))
        assert got is not None
        assert got.version == 1
        assert got.value == value
        assert self.raw_get(backend, k("big")) == (1, value)

    def test_get_many_keeps_order_and_misses(self, backend: Backend) -> None:
        self.raw_put(backend, k("a"), b"A", 1)
        self.raw_put(backend, k("c"), b"C", 4)
        got = backend.get_many([k("c"), k("b"), k("a"), k("c")])
        assert got == [Item(4, b"C"), None, Item(1, b"A"), Item(4, b"C")]
        assert backend.get_many([]) == []

    # --------------------------------------------------------------- delete
    def test_delete_any(self, backend: Backend) -> None:
        backend.put_if(k("a"), b"x")
        assert backend.delete_if(k("a")) is True
        assert backend.get(k("a")) is None
        assert self.raw_get(backend, k("a")) is None
        assert backend.delete_if(k("a")) is False

    def test_delete_on_version(self, backend: Backend) -> None:
        backend.put_if(k("a"), b"x")
        backend.put_if(k("a"), b"y")
        with pytest.raises(ConflictError):
            backend.delete_if(k("a"), 1)
        assert self.raw_get(backend, k("a")) == (2, b"y")
        assert backend.delete_if(k("a"), 2) is True
        assert self.raw_get(backend, k("a")) is None

    def test_delete_absent_condition(self, backend: Backend) -> None:
        assert backend.delete_if(k("a"), ABSENT) is False
        backend.put_if(k("a"), b"x")
        with pytest.raises(ConflictError):
            backend.delete_if(k("a"), ABSENT)
        assert self.raw_get(backend, k("a")) == (1, b"x")
        with pytest.raises(ConflictError):
            backend.delete_if(k("missing"), 1)

    def test_version_restarts_after_delete(self, backend: Backend) -> None:
        backend.put_if(k("a"), b"x")
        backend.put_if(k("a"), b"y")
        backend.delete_if(k("a"))
        assert backend.put_if(k("a"), b"z", ABSENT) == 1

    # ----------------------------------------------------------------- scan
    def test_scan_bounds(self, backend: Backend) -> None:
        keys = [k(c) for c in ("a", "b", "c", "d", "e")]
        self._fill(backend, keys)
        assert self._scan_keys(backend, k("b"), k("d")) == [k("b"), k("c")]  # start in, end out
        assert self._scan_keys(backend, k("bb"), k("dd")) == [k("c"), k("d")]
        assert self._scan_keys(backend, k(""), prefix_end(SHARD)) == keys
        assert self._scan_keys(backend, k("x"), k("z")) == []
        assert self._scan_keys(backend, k("c"), k("c")) == []

    def test_scan_values_and_versions(self, backend: Backend) -> None:
        self.raw_put(backend, k("a"), b"A", 3)
        self.raw_put(backend, k("b"), b"B", 9)
        assert list(backend.scan(k(""), prefix_end(SHARD))) == [
            (k("a"), Item(3, b"A")),
            (k("b"), Item(9, b"B")),
        ]

    def test_scan_limit(self, backend: Backend) -> None:
        keys = [k(c) for c in "abcdef"]
        self._fill(backend, keys)
        assert self._scan_keys(backend, k("b"), k("z"), limit=2) == [k("b"), k("c")]
        assert self._scan_keys(backend, k("b"), k("z"), limit=0) == []
        assert self._scan_keys(backend, k("b"), k("z"), limit=100) == keys[1:]

    def test_scan_reverse(self, backend: Backend) -> None:
        keys = [k(c) for c in "abcdef"]
        self._fill(backend, keys)
        assert self._scan_keys(backend, k("b"), k("e"), reverse=True) == [k("d"), k("c"), k("b")]
        assert self._scan_keys(backend, k("bb"), k("ee"), reverse=True) == [
            k("e"),
            k("d"),
            k("c"),
        ]
        assert self._scan_keys(backend, k("b"), k("e"), limit=2, reverse=True) == [
            k("d"),
            k("c"),
        ]
        # end beyond every key in the store, and the last key of the shard
        assert self._scan_keys(backend, k(""), b"\xff\xff", limit=1, reverse=True) == [k("f")]

    def test_scan_does_not_leave_its_shard(self, backend: Backend) -> None:
        self._fill(backend, [k("a"), b"suitf\x00a", b"suite", b"other\x00a"])
        assert self._scan_keys(backend, SHARD, prefix_end(SHARD)) == [k("a")]
        assert self._scan_keys(backend, SHARD, prefix_end(SHARD), reverse=True) == [k("a")]

    def test_scan_sibling_prefix_trap(self, backend: Backend) -> None:
        """The children of ``a`` are under ``a/``; ``ab`` and ``ab/..`` share the text prefix
        ``a`` but are not children. A scan of the range of ``a/`` must not return them."""
        keys = [k(s) for s in ("a", "a/x", "a/y/z", "a0", "ab", "ab/q", "b")]
        self._fill(backend, keys)
        children = self._scan_keys(backend, k("a/"), prefix_end(k("a/")))
        assert children == [k("a/x"), k("a/y/z")]
        textual = self._scan_keys(backend, k("a"), prefix_end(k("a")))
        assert textual == [k(s) for s in ("a", "a/x", "a/y/z", "a0", "ab", "ab/q")]
        assert self._scan_keys(backend, k("a/"), prefix_end(k("a/")), reverse=True) == [
            k("a/y/z"),
            k("a/x"),
        ]

    def test_scan_high_bytes(self, backend: Backend) -> None:
        keys = [k(b"\x7f"), k(b"\x80"), k(b"\xfe\xff"), k(b"\xff"), k(b"\xff\xff\x01")]
        self._fill(backend, keys)
        assert self._scan_keys(backend, k(b""), prefix_end(SHARD)) == keys
        assert self._scan_keys(backend, k(b"\xff"), prefix_end(k(b"\xff"))) == keys[3:]
        assert self._scan_keys(backend, k(b"\x80"), k(b"\xff"), reverse=True) == [
            k(b"\xfe\xff"),
            k(b"\x80"),
        ]

    def test_scan_sees_deletes(self, backend: Backend) -> None:
        self._fill(backend, [k("a"), k("b"), k("c")])
        backend.delete_if(k("b"))
        assert self._scan_keys(backend, k(""), prefix_end(SHARD)) == [k("a"), k("c")]

    # ---------------------------------------------------------------- batch
    def test_batch_applies_every_op(self, backend: Backend) -> None:
        self.raw_put(backend, k("old"), b"o", 2)
        self.raw_put(backend, k("gone"), b"g", 1)
        out = backend.batch(
            [
                Put(k("new"), b"n", ABSENT),
                Put(k("old"), b"o2", 2),
                Delete(k("gone"), 1),
                Check(k("absent"), ABSENT),
            ]
        )
        assert out == [1, 3, 0, 0]
        assert self.raw_get(backend, k("new")) == (1, b"n")
        assert self.raw_get(backend, k("old")) == (3, b"o2")
        assert self.raw_get(backend, k("gone")) is None
        assert self.raw_get(backend, k("absent")) is None

    def test_empty_batch(self, backend: Backend) -> None:
        assert backend.batch([]) == []

    @pytest.mark.parametrize("failing_at", [0, 1, 3])
    def test_batch_is_atomic(self, backend: Backend, failing_at: int) -> None:
        """A failed condition anywhere in the batch leaves every key as it was."""
        self.raw_put(backend, k("a"), b"A", 1)
        self.raw_put(backend, k("b"), b"B", 5)
        ops: list[Put | Delete | Check] = [
            Put(k("a"), b"A2", 1),
            Delete(k("b"), 5),
            Put(k("c"), b"C", ABSENT),
            Put(k("d"), b"D"),
        ]
        bad: dict[int, Put | Delete | Check] = {
            0: Put(k("a"), b"A2", 4),
            1: Delete(k("b"), ABSENT),
            3: Put(k("d"), b"D", 2),
        }
        ops[failing_at] = bad[failing_at]
        with pytest.raises(ConflictError):
            backend.batch(ops)
        assert self.raw_get(backend, k("a")) == (1, b"A")
        assert self.raw_get(backend, k("b")) == (5, b"B")
        assert self.raw_get(backend, k("c")) is None
        assert self.raw_get(backend, k("d")) is None

    def test_batch_check_ops(self, backend: Backend) -> None:
        self.raw_put(backend, k("lease"), b"L", 3)
        assert backend.batch([Check(k("lease"), 3), Put(k("x"), b"X")]) == [0, 1]
        assert self.raw_get(backend, k("lease")) == (3, b"L")  # a Check never writes
        with pytest.raises(ConflictError):
            backend.batch([Put(k("y"), b"Y"), Check(k("lease"), 2)])
        with pytest.raises(ConflictError):
            backend.batch([Put(k("y"), b"Y"), Check(k("lease"), ABSENT)])
        with pytest.raises(ConflictError):
            backend.batch([Check(k("nothing"), 1), Put(k("y"), b"Y")])
        assert self.raw_get(backend, k("y")) is None
        assert backend.batch([Check(k("nothing"), ABSENT)]) == [0]
        assert backend.batch([Check(k("lease"), ANY)]) == [0]

    def test_batch_delete_of_missing_key(self, backend: Backend) -> None:
        assert backend.batch([Delete(k("missing")), Put(k("a"), b"A")]) == [0, 1]
        assert self.raw_get(backend, k("a")) == (1, b"A")

    def test_batch_many_ops(self, backend: Backend) -> None:
        ops = [Put(k(f"n{i:05d}"), f"v{i}".encode(), ABSENT) for i in range(2000)]
        assert backend.batch(ops) == [1] * 2000
        assert len(self._scan_keys(backend, k("n"), prefix_end(k("n")))) == 2000
        assert self.raw_get(backend, k("n01999")) == (1, b"v1999")

    # ------------------------------------------------------- lease fence
    def test_lapsed_lease_holder_is_fenced(self, backend: Backend) -> None:
        """Every write of a job whose lease passed to another job is refused by the backend in
        its own batch (the lease fence; see :mod:`wikikv.testing.fencing`)."""
        from wikikv.testing.fencing import lapsed_holder_leaks

        assert lapsed_holder_leaks(backend) == []
