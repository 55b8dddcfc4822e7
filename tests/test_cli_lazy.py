"""The ``wikikv`` group imports an area's command module only when one of its commands runs, so
a cold ``wikikv nav`` pays for nothing else (issue 14 item 1); the lazy table lists exactly what
the areas register."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click

from wikikv.interfaces.cli import main
from wikikv.interfaces.commands.lazy import AREA_COMMANDS, register_area


def test_the_lazy_table_lists_exactly_what_each_area_registers() -> None:
    registered: dict[str, str] = {}
    for area in sorted(set(AREA_COMMANDS.values())):
        group = click.Group()
        register_area(group, area)
        registered.update(dict.fromkeys(group.commands, area))
    assert registered == AREA_COMMANDS


def test_every_listed_command_resolves_and_is_in_the_help() -> None:
    ctx = click.Context(main)
    names = main.list_commands(ctx)
    for name in AREA_COMMANDS:
        assert name in names
        assert isinstance(main.get_command(ctx, name), click.Command)
        assert name in main.commands


def test_nav_imports_no_other_area_of_the_cli() -> None:
    code = (
        "import sys\n"
        "from wikikv.interfaces.cli import main\n"
        "assert main.get_command(None, 'nav') is not None\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('wikikv.'))))\n"
    )
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "wikikv.interfaces.commands.nav" in out
    heavy = ("wikikv.compile", "wikikv.quality", "wikikv.vault", "wikikv.bench", "wikikv.evolve")
    assert [m for m in out if m.startswith(heavy)] == []
    others = ("build", "quality", "vault", "parallel", "serve", "mcp", "evolve", "bench", "query")
    assert not {f"wikikv.interfaces.commands.{a}" for a in others} & set(out)


def test_enumerating_the_commands_lists_every_area() -> None:
    assert set(AREA_COMMANDS) <= set(main.commands)
    assert set(AREA_COMMANDS) <= {name for name, _ in main.commands.items()}
