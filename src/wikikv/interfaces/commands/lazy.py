"""The ``bench`` group's commands, listed in one place and imported when first used, so that
``wikikv --help`` or ``wikikv nav`` imports no benchmark (the compile pipeline, rich tables,
baselines) it never runs. A new benchmark is one line in :data:`BENCH_COMMANDS`."""

from __future__ import annotations

import importlib

import click

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
