"""``wikikv bench``: the group of benchmarks. Its commands are listed once, in
:data:`wikikv.interfaces.commands.lazy.BENCH_COMMANDS`, and imported only when one runs."""

from __future__ import annotations

import click

from wikikv.interfaces.commands.lazy import LazyBenchGroup


def register(main: click.Group) -> None:
    """Add the ``bench`` group (its commands come from ``BENCH_COMMANDS`` on first use)."""
    main.add_command(bench)


@click.group("bench", cls=LazyBenchGroup)
def bench() -> None:
    """Benchmarks of WikiKV against baselines: each prints a table and writes JSON.

    Example: wikikv bench storage --quick
    """
