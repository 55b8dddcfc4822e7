"""``wikikv demo``: load the bundled sample wiki into a fresh kb and tour the read operators."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from wikikv import pages_md
from wikikv.errors import NotFound
from wikikv.interfaces.common import emit, open_cli_store
from wikikv.sample import LoadResult, load_sample
from wikikv.store.kb import KnowledgeBase, NameHit
from wikikv.store.paths import join
from wikikv.store.records import DirRecord, FileRecord

LS_DIMENSION = "/people"
GET_PAGES = ("/people/Lu Xun", "/人物/鲁迅")
PATH_PREFIX = "/works/The"
NAME_PREFIXES = ("lu", "福尔")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped:
            return stripped
    return ""


def _page(kb: KnowledgeBase, path: str) -> FileRecord:
    rec = kb.get(path)
    if not isinstance(rec, FileRecord):
        raise NotFound(f"sample page {path!r} is missing from kb {kb.name!r}")
    return rec


def _command(console: Console, line: str) -> None:
    console.print(Text(f"$ {line}", style="bold cyan"))


def _ls_table(kb: KnowledgeBase, path: str) -> Table:
    listing = kb.ls_all(path)
    table = Table()
    table.add_column("entry", style="bold")
    table.add_column("description")
    children = kb.get_many(listing.child_paths())
    names = [f"{n}/" for n in listing.sub_dirs] + list(listing.files)
    for name, rec in zip(names, children, strict=True):
        if isinstance(rec, DirRecord):
            about = _first_line(rec.text)
        elif isinstance(rec, FileRecord):
            about = rec.meta.summary or _first_line(rec.text)
        else:
            about = ""
        table.add_row(Text(name), Text(about))
    return table


def _hits_table(rows: list[tuple[str, str]]) -> Table:
    table = Table()
    table.add_column("match", style="bold")
    table.add_column("path")
    for a, b in rows:
        table.add_row(Text(a), Text(b))
    return table


def run_demo(store_url: str, kb_name: str, as_json: bool) -> None:
    store = open_cli_store(store_url)
    if store.has_kb(kb_name):
        store.drop_kb(kb_name)
    kb = store.create_kb(kb_name)
    loaded = load_sample(kb)
    root = kb.ls_all("/")
    dimension = kb.ls_all(LS_DIMENSION)
    pages = [_page(kb, p) for p in GET_PAGES]
    by_path = kb.prefix(PATH_PREFIX, 20)
    by_name = {q: kb.find_names(q, 20) for q in NAME_PREFIXES}
    result: dict[str, Any] = {
        "store": store.backend.describe(),
        "load": loaded,
        "ls": {
            "/": [join("/", n) for n in root.sub_dirs + root.files],
            LS_DIMENSION: dimension.child_paths(),
        },
        "get": pages,
        "prefix": {PATH_PREFIX: by_path},
        "names": {q: hits for q, hits in by_name.items()},
    }
    if as_json:
        emit(result, True)
        return
    _show(kb, loaded, store.backend.describe(), pages, by_path, by_name)


def _show(
    kb: KnowledgeBase,
    loaded: LoadResult,
    where: str,
    pages: list[FileRecord],
    by_path: list[str],
    by_name: dict[str, list[NameHit]],
) -> None:
    console = Console(highlight=False, soft_wrap=False)
    how = "in one bulk job" if loaded.bulk else "page by page"
    console.print(
        Text.assemble(
            ("WikiKV demo", "bold"),
            f": loaded {loaded.pages} pages in {loaded.dirs} directories into kb ",
            (kb.name, "bold"),
            f" at {where} ({how}).",
        )
    )
    console.print(Rule("Q2 ls: the root, then one dimension"))
    for path in ("/", LS_DIMENSION):
        _command(console, f"wikikv ls {path!r} --kb {kb.name}")
        console.print(_ls_table(kb, path))
    console.print(Rule("Q1 get: one English and one Chinese page"))
    for rec in pages:
        _command(console, f"wikikv get {rec.path!r} --kb {kb.name}")
        console.print(Panel(Text(pages_md.render(rec).rstrip("\n"))))
    console.print(Rule("Q4 prefix: on the textual path, then on names and aliases"))
    _command(console, f"wikikv prefix {PATH_PREFIX!r} --kb {kb.name}")
    for p in by_path:
        console.print(Text(p))
    for query, hits in by_name.items():
        _command(console, f"wikikv prefix --names {query!r} --kb {kb.name}")
        console.print(_hits_table([(h.name, h.path) for h in hits]))
    console.print(
        Text(
            f"Try: wikikv ls / --kb {kb.name} · wikikv get '/places/Shaoxing' --kb {kb.name} · "
            f"wikikv prefix --names holmes --kb {kb.name}",
            style="dim",
        )
    )
