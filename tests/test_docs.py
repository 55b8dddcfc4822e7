"""Documentation tested against the code: every command has help with an example and is in the
README; the README's quick start is exactly two commands and CI runs its test command."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wikikv.interfaces.cli import main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
QUICK_START = ["pip install -e . && wikikv demo", "./scripts/test"]


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        out.append((*prefix, name))
        if isinstance(command, click.Group):
            out.extend(all_commands(command, (*prefix, name)))
    return out


COMMANDS = all_commands(main)


def test_the_core_commands_exist() -> None:
    names = {c[0] for c in COMMANDS}
    core = {"init", "ls", "get", "prefix", "put", "rm", "mv", "fsck", "audit", "demo", "backup"}
    assert core <= names


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_command_help_has_an_example(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example:" in result.stdout
    assert "wikikv " + " ".join(command) in result.stdout.split("Example:", 1)[1]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_command_is_in_the_readme(command: tuple[str, ...]) -> None:
    assert f"wikikv {' '.join(command)}" in README


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_command_takes_store_kb_and_json(command: tuple[str, ...]) -> None:
    cmd: click.Command = main
    for name in command:
        assert isinstance(cmd, click.Group)
        cmd = cmd.commands[name]
    if isinstance(cmd, click.Group):
        return
    options = {opt for p in cmd.params for opt in getattr(p, "opts", [])}
    if command[0] == "bench":
        # Benchmarks build their own throwaway stores; they only share the output option.
        assert "--json" in options
        return
    assert {"--store", "--kb", "--json"} <= options


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has a code block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_quick_start_is_exactly_two_commands() -> None:
    assert quick_start_commands() == QUICK_START


def test_ci_runs_the_readme_test_command() -> None:
    test_command = quick_start_commands()[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in [line.strip() for line in ci.splitlines()]
    for script in (".ci/run", "scripts/test", "scripts/check"):
        assert os.access(REPO / script, os.X_OK), f"{script} is executable"
