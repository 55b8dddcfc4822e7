"""``wikikv demo``: compile the bundled sample corpus into a fresh kb and tour what was built."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from wikikv.compile.pipeline import Compiler, CompileReport
from wikikv.errors import NotFound
from wikikv.interfaces.common import emit, open_cli_store
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, nav
from wikikv.sample import CORPUS_DIR
from wikikv.search import SearchHit, search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.paths import join
from wikikv.store.records import DirRecord, FileRecord

LS_DIMENSION = "/people"
GET_PAGES = ("/people/Sherlock Holmes", "/people/Lu Xun")
SEARCH_QUERY = "detective Baker Street"
NAV_QUERY = "Where was Lu Xun born?"
NAV_READS = 12
SEARCH_LIMIT = 5


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#>").strip()
        if stripped:
            return stripped
    return ""


def _gist(text: str) -> str:
    """The first line of content: past YAML front matter and headings."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() == "---"), 0)
        lines = lines[end + 1 :]
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.lstrip(">-* ").strip()
    return _first_line(text)


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


def _summary_table(report: CompileReport) -> Table:
    table = Table(title="what was built")
    table.add_column("documents", justify="right")
    table.add_column("entities", justify="right")
    table.add_column("pages", justify="right")
    table.add_column("links", justify="right")
    table.add_column("facts", justify="right")
    table.add_column("seconds", justify="right")
    table.add_row(
        str(report.documents),
        str(report.entities),
        str(report.pages),
        str(report.links),
        str(report.facts),
        f"{report.elapsed:.1f}",
    )
    return table


def _search_table(hits: list[SearchHit]) -> Table:
    table = Table()
    table.add_column("score", justify="right")
    table.add_column("path", style="bold")
    table.add_column("why")
    for h in hits:
        table.add_row(f"{h.score:.2f}", Text(h.path), Text(", ".join(h.why)))
    return table


def _nav_table(results: list[NavResult]) -> Table:
    table = Table()
    table.add_column("level")
    table.add_column("path", style="bold")
    table.add_column("text")
    for r in results:
        table.add_row(r.level, Text(r.path), Text(_gist(r.text)[:100]))
    return table


def compile_sample(kb: KnowledgeBase) -> CompileReport:
    """Compile the bundled sample corpus into ``kb`` with the offline provider (and the quality
    gate, as ``wikikv build`` does)."""
    from wikikv.quality.hooks import gated

    return Compiler(kb, provider=ExtractiveProvider(), options=gated()).build(CORPUS_DIR)


def run_demo(store_url: str, kb_name: str, as_json: bool) -> None:
    store = open_cli_store(store_url, create=True)
    if store.has_kb(kb_name):
        store.drop_kb(kb_name)
    kb = store.create_kb(kb_name)
    report = compile_sample(kb)
    root = kb.ls_all("/")
    dimension = kb.ls_all(LS_DIMENSION)
    pages = [_page(kb, p) for p in GET_PAGES]
    hits = search(kb, SEARCH_QUERY, SEARCH_LIMIT)
    walked = list(nav(kb, NAV_QUERY, Budget(max_reads=NAV_READS)))
    result: dict[str, Any] = {
        "store": store.backend.describe(),
        "corpus": str(CORPUS_DIR),
        "build": report.to_dict(),
        "ls": {
            "/": [join("/", n) for n in root.sub_dirs + root.files],
            LS_DIMENSION: dimension.child_paths(),
        },
        "get": pages,
        "search": {"query": SEARCH_QUERY, "hits": [h.to_dict() for h in hits]},
        "nav": {"query": NAV_QUERY, "results": [r.to_dict() for r in walked]},
    }
    if as_json:
        emit(result, True)
        return
    _show(kb, report, store.backend.describe(), pages, hits, walked)


def _show(
    kb: KnowledgeBase,
    report: CompileReport,
    where: str,
    pages: list[FileRecord],
    hits: list[SearchHit],
    walked: list[NavResult],
) -> None:
    console = Console(highlight=False, soft_wrap=False)
    console.print(
        Text.assemble(
            ("WikiKV demo", "bold"),
            f": compiled the bundled sample corpus ({CORPUS_DIR.name}/en, {CORPUS_DIR.name}/zh) "
            "offline into kb ",
            (kb.name, "bold"),
            f" at {where}.",
        )
    )
    _command(console, f"wikikv build {str(CORPUS_DIR)!r} --kb {kb.name} --llm offline")
    console.print(_summary_table(report))
    console.print(Rule("ls: the root, then one dimension"))
    for path in ("/", LS_DIMENSION):
        _command(console, f"wikikv ls {path!r} --kb {kb.name}")
        console.print(_ls_table(kb, path))
    console.print(Rule("get: an English and a Chinese entity page, facts cited to their source"))
    for rec in pages:
        _command(console, f"wikikv get {rec.path!r} --kb {kb.name}")
        console.print(Panel(Text(rec.text.rstrip("\n")), title=Text(rec.path)))
    console.print(Rule("search: ranked pages"))
    _command(console, f"wikikv search {SEARCH_QUERY!r} --kb {kb.name}")
    console.print(_search_table(hits))
    console.print(Rule("nav: coarse to fine, within a budget of reads"))
    _command(console, f"wikikv nav {NAV_QUERY!r} --kb {kb.name} --max-reads {NAV_READS}")
    console.print(_nav_table(walked))
    console.print(Rule("try next"))
    for line in (
        f"wikikv get '/people/John Watson' --kb {kb.name}",
        f"wikikv prefix --names holmes --kb {kb.name}",
        f"wikikv check --report --kb {kb.name}",
        "wikikv build ./my-notes --kb notes   (your own Markdown / text / JSONL corpus)",
    ):
        console.print(Text(f"  {line}", style="dim"))
