"""``wikikv --help`` and ``wikikv nav`` import no benchmark: the bench commands are listed in one
place (``BENCH_COMMANDS``) and imported only when one runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import wikikv

CODE = """
import sys
from click.testing import CliRunner
from wikikv.interfaces.cli import main
result = CliRunner().invoke(main, sys.argv[1:])
assert result.exit_code == 0, result.output
loaded = [m for m in sys.modules if m.startswith("wikikv.bench")]
print("loaded:", ",".join(sorted(loaded)))
"""


def _loaded(*args: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(wikikv.__file__).parents[1]))
    out = subprocess.run(
        [sys.executable, "-c", CODE, *args], env=env, capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("loaded:"))
    return [m for m in line.removeprefix("loaded:").strip().split(",") if m]


def test_help_and_nav_import_no_benchmark(tmp_path: Path) -> None:
    store = wikikv.open_store(str(tmp_path / "s"))
    store.create_kb("k").put("/people/Lu Xun", "Lu Xun was a writer.", wikikv.FileMeta())
    store.close()
    assert _loaded("--help") == []
    assert _loaded("nav", "writer", "--store", str(tmp_path / "s"), "--kb", "k") == []
    # the mechanism can fail: running a benchmark's help does import it
    assert "wikikv.bench.commands.storage" in _loaded("bench", "storage", "--help")
