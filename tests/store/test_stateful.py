"""The kb state machine (wikikv.testing.stateful) on the memory and LMDB backends."""

from __future__ import annotations

import shutil
import tempfile

from hypothesis import settings

from wikikv.store.store import Store, open_store
from wikikv.testing.stateful import KBStateMachine

# A few seconds per backend: enough runs to cover the error paths and the continuation pages.
RUN = settings(max_examples=30, stateful_step_count=25, deadline=None)


class MemoryMachine(KBStateMachine):
    pass


class LMDBMachine(KBStateMachine):
    def open_store(self) -> Store:
        self._dir = tempfile.mkdtemp(prefix="wikikv-sm-")
        return open_store(f"lmdb://{self._dir}?sync=false&map_size=4194304", self.settings)

    def teardown(self) -> None:
        super().teardown()
        shutil.rmtree(self._dir, ignore_errors=True)


TestMemoryMachine = MemoryMachine.TestCase
TestMemoryMachine.settings = RUN
TestLMDBMachine = LMDBMachine.TestCase
TestLMDBMachine.settings = RUN


def test_the_machines_invariant_check_catches_a_dangling_listing() -> None:
    """The invariants the machines check after every step can fail: break the protocol by hand."""
    from wikikv.store.backends.base import Delete
    from wikikv.testing.stateful import tree_problems

    store = open_store("memory://")
    kb = store.create_kb("k")
    kb.put("/a/page", "text")
    assert tree_problems(kb) == []
    kb.backend.batch([Delete(kb.keys.node("/a/page"))])  # record gone, listing still names it
    assert any("page" in p for p in tree_problems(kb))
