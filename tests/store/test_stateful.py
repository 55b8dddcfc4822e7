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
