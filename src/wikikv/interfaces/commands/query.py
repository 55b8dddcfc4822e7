"""CLI commands of the query layer: ``search``, ``read``, ``drill`` and ``rollup``.

Each is a thin twin of one function of :mod:`wikikv.query.ops`.
"""

from __future__ import annotations

from typing import Any

import click

from wikikv.interfaces.common import (
    emit,
    json_option,
    open_kb,
    resolve_page,
    store_options,
    trailing_slash,
)
from wikikv.query.ops import drill_down, roll_up, wiki_read, wiki_search


def _print_hits(hits: list[dict[str, Any]]) -> None:
    if not hits:
        click.echo("No match.")
    for i, h in enumerate(hits, 1):
        click.echo(f"{i:>2}. {h['title'] or h['path']}  [{h['kind']}]  {h['score']:.3f}")
        click.echo(f"    {h['path']}")
        if h["summary"]:
            click.echo(f"    {h['summary']}")
        if h["why"]:
            click.echo(f"    why: {'; '.join(h['why'][:6])}")


def _print_read(items: list[dict[str, Any]]) -> None:
    for n, item in enumerate(items):
        if n:
            click.echo("")
        if "error" in item:
            click.echo(f"# {item['path']}: {item['error']}")
            continue
        click.echo(f"# {item['title']}  ({item['path']}, {item['kind']})")
        if item.get("summary"):
            click.echo(f"> {item['summary']}")
        if item["text"]:
            click.echo(item["text"].rstrip("\n"))
        for key in ("sub_dirs", "files"):
            for child in item.get(key, []):
                click.echo(f"- {child}{'/' if key == 'sub_dirs' else ''}")
        if item["links"]:
            click.echo("links:")
            for link in item["links"]:
                click.echo(f"  [[{link['target']}]] -> {link['path'] or '(unresolved)'}")


def register(main: click.Group) -> None:
    """Add the query commands to the ``wikikv`` group."""

    @main.command()
    @store_options
    @json_option
    @click.option("--limit", "-n", default=10, show_default=True, help="Hits to return.")
    @click.option(
        "--kind", "kinds", multiple=True, help="Only pages of this kind (repeatable; dir too)."
    )
    @click.argument("query", nargs=-1, required=True)
    def search(
        store_url: str,
        kb_name: str,
        as_json: bool,
        limit: int,
        kinds: tuple[str, ...],
        query: tuple[str, ...],
    ) -> None:
        """Rank the kb's pages for QUERY: names and aliases first, then tags and summaries, then
        body text; typos in names are tolerated.

        Example: wikikv search --kb demo "Lu Xun"
        """
        kb = open_kb(store_url, kb_name)
        hits = wiki_search(kb, " ".join(query), limit=limit, kinds=kinds or None)
        emit(hits, as_json, lambda: _print_hits(hits))

    @main.command()
    @store_options
    @json_option
    @click.argument("paths", nargs=-1, required=True)
    def read(store_url: str, kb_name: str, as_json: bool, paths: tuple[str, ...]) -> None:
        """Read the pages and directory indices at PATHS (paths, page names or aliases, or
        document ids), with the links on them resolved.

        \b
        Example:
          wikikv read --kb demo "/people/Lu Xun" /people
          wikikv read --kb demo 鲁迅
        """
        kb = open_kb(store_url, kb_name)
        items = wiki_read(kb, [resolve_page(kb, p) for p in paths])
        emit(items, as_json, lambda: _print_read(items))

    @main.command()
    @store_options
    @json_option
    @click.option("--levels", "-l", default=1, show_default=True, help="Levels below PATH.")
    @click.argument("path", default="/", callback=trailing_slash)
    def drill(store_url: str, kb_name: str, as_json: bool, levels: int, path: str) -> None:
        """List the nodes under PATH down to --levels levels (drill-down).

        Example: wikikv drill --kb demo / --levels 2
        """
        kb = open_kb(store_url, kb_name)
        result = drill_down(kb, path, levels)

        def human() -> None:
            for node in result["nodes"]:
                mark = "/" if node["type"] == "dir" and node["path"] != "/" else ""
                click.echo(f"{'  ' * node['level']}{node['path']}{mark}")
            if result["truncated"]:
                click.echo("(truncated)")

        emit(result, as_json, human)

    @main.command()
    @store_options
    @json_option
    @click.argument("path", callback=trailing_slash)
    def rollup(store_url: str, kb_name: str, as_json: bool, path: str) -> None:
        """Show the ancestors of PATH from the root down (roll-up), with their overviews.

        Example: wikikv rollup --kb demo "/people/Lu Xun"
        """
        kb = open_kb(store_url, kb_name)
        chain = roll_up(kb, path)

        def human() -> None:
            for node in chain:
                overview = f"  — {node['overview']}" if node["overview"] else ""
                click.echo(f"{'  ' * node['level']}{node['path']}{overview}")

        emit(chain, as_json, human)
