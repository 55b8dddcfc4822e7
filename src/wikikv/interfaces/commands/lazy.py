"""A click group whose subcommands are imported when first used, so that ``wikikv nav`` does not
import the benchmarks (the compile pipeline, rich tables, baselines) it never runs."""

from __future__ import annotations

import importlib

import click

# ``wikikv bench <name>`` → (module, attribute) of its click command.
BENCH_COMMANDS: dict[str, tuple[str, str]] = {
    "retrieval": ("wikikv.interfaces.commands.bench_retrieval", "retrieval_cmd"),
    "scaleout": ("wikikv.interfaces.commands.bench_scaleout", "scaleout"),
    "quality": ("wikikv.interfaces.commands.bench_quality", "quality_cmd"),
    "startup": ("wikikv.interfaces.commands.bench_quality", "startup_cmd"),
    "serve": ("wikikv.interfaces.commands.bench_serve", "serve_bench"),
    "vault": ("wikikv.interfaces.commands.bench_vault", "vault_cmd"),
    "web": ("wikikv.interfaces.commands.bench_web", "web_cmd"),
    "errorbook": ("wikikv.interfaces.commands.bench_errorbook", "errorbook_cmd"),
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
