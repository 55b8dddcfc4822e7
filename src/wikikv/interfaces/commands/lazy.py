"""Commands imported when first used, so that ``wikikv nav`` imports neither a benchmark (the
compile pipeline, rich tables, baselines) nor another area's command module (the validators,
the vault, the parallel builder) that it never runs — a cold CLI query's start-up (issue 14).

The ``bench`` group's commands are listed in :data:`BENCH_COMMANDS` (a new benchmark is one
line there); the top-level commands of each area in :data:`AREA_COMMANDS` (an area module
``wikikv.interfaces.commands.<area>`` has ``register(main)``; a new command is one line there,
and a test checks the list against what the areas register)."""

from __future__ import annotations

import importlib
from _collections_abc import dict_items, dict_keys, dict_values
from collections.abc import Iterator, Mapping
from typing import Any

import click

from wikikv.interfaces.common import WikiKVGroup

# ``wikikv bench <name>`` → (module, attribute) of its click command.
BENCH_COMMANDS: dict[str, tuple[str, str]] = {
    "compile": ("wikikv.bench.commands.compile", "compile_bench"),
    "errorbook": ("wikikv.bench.commands.errorbook", "errorbook_cmd"),
    "evolve": ("wikikv.bench.commands.evolve", "bench_evolve"),
    "llm": ("wikikv.bench.commands.llm", "llm_cmd"),
    "quality": ("wikikv.bench.commands.quality", "quality_cmd"),
    "retrieval": ("wikikv.bench.commands.retrieval", "retrieval_cmd"),
    "scaleout": ("wikikv.bench.commands.scaleout", "scaleout"),
    "serve": ("wikikv.bench.commands.serve", "serve_bench"),
    "startup": ("wikikv.bench.commands.quality", "startup_cmd"),
    "storage": ("wikikv.bench.commands.storage", "storage"),
    "vault": ("wikikv.bench.commands.vault", "vault_cmd"),
    "web": ("wikikv.bench.commands.web", "web_cmd"),
}


# ``wikikv <name>`` → the area module whose ``register(main)`` adds it (with its siblings).
AREA_COMMANDS: dict[str, str] = {
    **dict.fromkeys(("add", "build", "check", "descriptor", "remove", "update"), "build"),
    **dict.fromkeys(("evolve", "schema", "stats"), "evolve"),
    **dict.fromkeys(("errorbook", "lint", "review"), "quality"),
    **dict.fromkeys(("drill", "read", "rollup", "search"), "query"),
    **dict.fromkeys(("export", "import", "verify"), "vault"),
    **dict.fromkeys(("keys", "serve"), "serve"),
    "ask": "nav",
    "nav": "nav",
    "bench": "bench",
    "edit": "edit",
    "build-many": "parallel",
    "mcp": "mcp",
}


def register_area(group: click.Group, area: str) -> None:
    """Import ``wikikv.interfaces.commands.<area>`` and add its commands to ``group``."""
    module = importlib.import_module(f"wikikv.interfaces.commands.{area}")
    module.register(group)


class LazyGroup(click.Group):
    """A group that also offers :attr:`lazy` commands, importing each on first use."""

    lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.lazy:
            module, attr = self.lazy[cmd_name]
            command = getattr(importlib.import_module(module), attr)
            assert isinstance(command, click.Command)
            self.add_command(command, cmd_name)
        return command


class LazyBenchGroup(LazyGroup):
    lazy = BENCH_COMMANDS


class _AreaCommands(dict[str, click.Command]):
    """A group's command table that imports an area's commands the first time one of them is
    looked up (``group.commands["nav"]``, ``get``, ``in``)."""

    def __init__(self, group: click.Group, commands: Mapping[str, click.Command]) -> None:
        super().__init__(commands)
        self.group = group

    def __missing__(self, name: str) -> click.Command:
        if name in AREA_COMMANDS:
            register_area(self.group, AREA_COMMANDS[name])
            if dict.__contains__(self, name):
                return dict.__getitem__(self, name)
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in AREA_COMMANDS

    # Enumerating the table (a help listing, the docs tests) imports every area first.
    def load_all(self) -> None:
        for name, area in AREA_COMMANDS.items():
            if not dict.__contains__(self, name):
                register_area(self.group, area)

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return super().__iter__()

    def __len__(self) -> int:
        self.load_all()
        return super().__len__()

    def keys(self) -> dict_keys[str, click.Command]:
        self.load_all()
        return super().keys()

    def values(self) -> dict_values[str, click.Command]:
        self.load_all()
        return super().values()

    def items(self) -> dict_items[str, click.Command]:
        self.load_all()
        return super().items()


class WikiKVMain(WikiKVGroup):
    """The ``wikikv`` group: its own commands, and every area's, imported on first use."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _AreaCommands(self, self.commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(AREA_COMMANDS))
