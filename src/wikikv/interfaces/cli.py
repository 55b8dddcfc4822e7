"""The ``wikikv`` command line: one thin command per library call.

Every command takes ``--store URL`` (env ``WIKIKV_STORE``, default ``./wikikv-data``), ``--kb NAME``
(env ``WIKIKV_KB``) and ``--json``; WikiKV errors print as one ``Error: ...`` line (exit code 1).
Commands of other areas live in ``wikikv.interfaces.commands.<area>`` and are imported when
first used (:data:`wikikv.interfaces.commands.lazy.AREA_COMMANDS`).
"""

from __future__ import annotations

import datetime as dt
import importlib
from typing import Any, BinaryIO

import click
import yaml

from wikikv import pages_md
from wikikv.errors import DirectoryNotEmpty, NotFound
from wikikv.interfaces.commands.lazy import WikiKVMain
from wikikv.interfaces.common import (
    confirm_or_abort,
    dangling_links,
    emit,
    fail,
    json_option,
    open_cli_store,
    open_kb,
    resolve_page,
    store_option,
    store_options,
    to_builtins,
    trailing_slash,
)
from wikikv.store.records import DirRecord, FileRecord, text_from_bytes


def _print_version(ctx: click.Context, value: bool) -> None:
    """``--version``; the version is looked up only when asked for (it costs start-up time)."""
    if value and not ctx.resilient_parsing:
        import wikikv

        click.echo(f"wikikv {wikikv.__version__}")
        ctx.exit()


@click.group(cls=WikiKVMain, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx, value),
    help="Show the version and exit.",
)
def main() -> None:
    """WikiKV: LLM-curated hierarchical knowledge bases on a path-indexed key-value store.

    Example: wikikv demo
    """


# ----------------------------------------------------------------------------- store and kb
@main.command(short_help="Create the store and a kb.")
@store_options
@json_option
def init(store_url: str, kb_name: str, as_json: bool) -> None:
    """Create the store (if needed) and a kb in it.

    Example: wikikv init --store ./wikikv-data --kb notes
    """
    store = open_cli_store(store_url, create=True)
    created = not store.has_kb(kb_name)
    store.create_kb(kb_name, exist_ok=True)
    result = {"store": store.backend.describe(), "kb": kb_name, "created": created}
    verb = "Created" if created else "Already present:"
    emit(result, as_json, f"{verb} kb {kb_name!r} in {store.backend.describe()}")


@main.command(short_help="Copy the whole store to DEST, consistently.")
@store_options
@json_option
@click.argument("dest", type=click.Path(file_okay=False, writable=True))
def backup(store_url: str, kb_name: str, as_json: bool, dest: str) -> None:
    """Write a consistent, compacted copy of the whole store (every kb, whatever --kb says) to
    an empty directory DEST, safe while readers and writers run.

    Example: wikikv backup ./wikikv-backup
    """
    store = open_cli_store(store_url)
    path = store.backup(dest)
    emit({"backup": str(path)}, as_json, f"Backed up {store.backend.describe()} to {path}")


@main.command(short_help="Rewrite an older store in place to this WikiKV's format.")
@store_options
@json_option
def migrate(store_url: str, kb_name: str, as_json: bool) -> None:
    """Migrate the store (every kb) to the current on-disk format; a store already there is left
    as it is. Resumable: run it again after an interruption. Run it while nothing else uses the
    store. Format 1 → 2 moves every node record to a key that keeps a directory's children
    together (versions restart at 1).

    Example: wikikv migrate
    """
    from wikikv.errors import StoreNotFound
    from wikikv.store.backends import open_backend
    from wikikv.store.migrate import migrate as run_migration
    from wikikv.store.store import default_store_url, store_exists

    url = store_url or default_store_url()
    if not store_exists(url):
        raise StoreNotFound(url)
    backend = open_backend(url)
    try:
        report = run_migration(backend)
    finally:
        backend.close()
    moved = sum(report.moved.values())
    text = (
        f"Store is at format {report.to_format}; nothing to do"
        if report.from_format == report.to_format
        else f"Migrated format {report.from_format} → {report.to_format}: {moved} node records "
        f"moved in {len(report.moved)} kb(s)"
    )
    emit({"from": report.from_format, "to": report.to_format, "moved": report.moved}, as_json, text)


@main.command(short_help="List the kbs of a store, or drop one.")
@store_options
@json_option
@click.option("--drop", is_flag=True, help="Delete the kb named by --kb, entirely.")
@click.option("-y", "--yes", is_flag=True, help="With --drop: do not ask first.")
def kbs(store_url: str, kb_name: str, as_json: bool, drop: bool, yes: bool) -> None:
    """List the kbs in the store with their node and document counts; with --drop, delete the
    kb named by --kb and everything in it (asks first unless --yes).

    \b
    Example:
      wikikv init --kb scratch
      wikikv kbs
      wikikv kbs --drop --kb scratch --yes
    """
    store = open_cli_store(store_url)
    if drop:
        kb = store.kb(kb_name)
        paths = sum(1 for _ in kb.prefix("/"))
        confirm_or_abort(f"drop kb {kb_name!r} and its {paths} node(s)? This cannot be undone", yes)
        keys = store.drop_kb(kb_name)
        emit({"dropped": kb_name, "keys": keys}, as_json, f"Dropped kb {kb_name!r} ({keys} keys)")
        return
    from wikikv.compile import state

    rows = []
    for name in store.kbs():
        kb = store.kb(name)
        rows.append(
            {
                "kb": name,
                "nodes": sum(1 for _ in kb.prefix("/")),
                "documents": len(state.load_docs(kb)),
            }
        )
    emit(
        rows,
        as_json,
        "\n".join(f"{r['kb']}\t{r['nodes']} nodes\t{r['documents']} documents" for r in rows)
        or "(no kbs; create one with `wikikv init --kb NAME`)",
    )


@main.command(short_help="List a kb's source documents with their ids.")
@store_options
@json_option
@click.option("--prefix", "id_prefix", default="", help="Only ids starting with this.")
def docs(store_url: str, kb_name: str, as_json: bool, id_prefix: str) -> None:
    """List the kb's source documents: id, title, language and article path. Use an id with
    `wikikv get ID`, `wikikv remove ID`.

    Example: wikikv docs --kb demo
    """
    from wikikv.compile import state
    from wikikv.compile.model import article_path

    kb = open_kb(store_url, kb_name)
    rows = [
        {"id": d.id, "title": d.title, "lang": d.lang, "path": article_path(d.id)}
        for d in sorted(state.load_docs(kb).values(), key=lambda d: d.id)
        if d.id.startswith(id_prefix)
    ]
    emit(rows, as_json, "\n".join(f"{r['id']}\t{r['title']}\t{r['lang']}" for r in rows))


# ----------------------------------------------------------------------------- reads
@main.command(short_help="List a directory.")
@store_options
@json_option
@click.argument("path", default="/", callback=trailing_slash)
@click.option("--page", type=click.IntRange(min=0), default=None, help="Listing page (0 first).")
@click.option("--all", "all_pages", is_flag=True, help="Every page of a large directory.")
def ls(
    store_url: str, kb_name: str, as_json: bool, path: str, page: int | None, all_pages: bool
) -> None:
    """List the sub-directories and pages of the directory PATH (default /).

    Example: wikikv ls /people --kb demo
    """
    if page is not None and all_pages:
        raise click.UsageError("--page and --all cannot be used together")
    kb = open_kb(store_url, kb_name)
    listing = kb.ls_all(path) if all_pages else kb.ls(path, page or 0)
    result = {
        "path": listing.path,
        "page": listing.page,
        "pages": listing.pages,
        "entry_count": listing.record.meta.entry_count,
        "sub_dirs": listing.sub_dirs,
        "files": listing.files,
        "text": listing.text,
    }

    def human() -> None:
        for name in listing.sub_dirs:
            click.echo(f"{name}/")
        for name in listing.files:
            click.echo(name)
        if listing.pages > 1 and not all_pages:
            click.echo(
                f"(page {listing.page} of 0..{listing.pages - 1}; use --page N or --all)", err=True
            )

    emit(result, as_json, human)


@main.command(short_help="Print a page (Markdown with front matter).")
@store_options
@json_option
@click.argument("path", callback=trailing_slash)
def get(store_url: str, kb_name: str, as_json: bool, path: str) -> None:
    """Print the page at PATH as Markdown with one YAML front-matter block (the record with
    --json). PATH may also be a page name or alias, or a source document's id. The block ends
    with the page's path and version (`wikikv: {path: ..., version: N}`), which `put` of the
    edited file checks.

    \b
    Example:
      wikikv get "/people/Lu Xun" --kb demo
      wikikv get 鲁迅 --kb demo
      wikikv get "en/Lu Xun" --kb demo
    """
    kb = open_kb(store_url, kb_name)
    path = resolve_page(kb, path)
    rec = kb.get(path)
    if rec is None:
        raise NotFound(f"no page or directory at {kb.norm(path)!r} in kb {kb_name!r}")
    if rec.path != kb.norm(path) and not as_json:
        click.echo(f"(redirected from {kb.norm(path)} to {rec.path})", err=True)
    if isinstance(rec, FileRecord):
        text = pages_md.render(rec, stamp=True)  # `put` of the edited file checks the stamp
    elif isinstance(rec, DirRecord):
        text = pages_md.render_dir(rec)
    else:  # pragma: no cover - kb.get follows redirects
        text = str(to_builtins(rec))
    emit(rec, as_json, lambda: click.echo(text, nl=not text.endswith("\n")))


@main.command(short_help="Find paths or page names by prefix.")
@store_options
@json_option
@click.argument("text")
@click.option("--names", is_flag=True, help="Match page names, titles and aliases (case-folded).")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
def prefix(store_url: str, kb_name: str, as_json: bool, text: str, names: bool, limit: int) -> None:
    """Find paths starting with TEXT, or with --names, pages whose name or alias starts with it.

    \b
    Example:
      wikikv prefix /people/Lu --kb demo
      wikikv prefix --names sherlock --kb demo
    """
    kb = open_kb(store_url, kb_name)
    if names:
        hits = kb.find_names(text, limit)
        emit(
            [{"name": h.name, "path": h.path} for h in hits],
            as_json,
            "\n".join(f"{h.name}\t{h.path}" for h in hits),
        )
        return
    paths = kb.prefix(text, limit)
    emit(paths, as_json, "\n".join(paths))


@main.command(short_help="Show the audit trail, newest first.")
@store_options
@json_option
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--path", "path_prefix", default=None, help="Only entries under this path prefix.")
def audit(store_url: str, kb_name: str, as_json: bool, limit: int, path_prefix: str | None) -> None:
    """Show the kb's audit trail, newest first: who changed which path, from which version.

    Example: wikikv audit --limit 10 --path /people --kb demo
    """
    kb = open_kb(store_url, kb_name)
    entries = kb.audit(limit, path_prefix)

    def human() -> None:
        for e in entries:
            when = dt.datetime.fromtimestamp(e.ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
            detail = f"  {e.detail}" if e.detail else ""
            click.echo(
                f"{when}  {e.actor}  {e.op:<8} {e.path}  v{e.old_version}->v{e.new_version}{detail}"
            )

    emit(entries, as_json, human)


# ----------------------------------------------------------------------------- writes
@main.command(short_help="Write a page from a Markdown file.")
@store_options
@json_option
@click.argument("path")
@click.argument("file", type=click.File("rb"))
@click.option(
    "--expect",
    type=int,
    default=None,
    help="Write only if the page is at this version (0: only if it does not exist).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Write even if the page changed since `get` printed FILE, or FILE came from another path.",
)
def put(
    store_url: str,
    kb_name: str,
    as_json: bool,
    path: str,
    file: BinaryIO,
    expect: int | None,
    force: bool,
) -> None:
    """Write the page at PATH from FILE, Markdown with YAML front matter (title, aliases, tags,
    summary, sources, type; other fields are kept as given); FILE '-' reads stdin. What `get`
    printed can be edited and put back: links and compiler metadata are kept, and the page is
    marked as edited by hand so later builds merge into it instead of overwriting it. Its
    `wikikv:` line says where and at which version it was read: the write is refused if the
    page has changed since (someone's edit, a build) or PATH is another page (--force writes
    anyway; delete the line to write the file as a new page).

    \b
    Example:
      wikikv get "/people/Lu Xun" --kb demo > lu.md
      wikikv put "/people/Lu Xun" lu.md --kb demo
    """
    from wikikv.interfaces.page_write import write_page

    name = str(getattr(file, "name", "-"))
    origin = "stdin" if name in ("-", "<stdin>") else name
    source = text_from_bytes(file.read(), origin)
    pages_md.parse(source, origin)  # refuse bad front matter before opening anything
    kb = open_kb(store_url, kb_name)
    rec = write_page(kb, path, source, origin, expect, force)
    emit(
        {"path": rec.path, "version": rec.version},
        as_json,
        f"Wrote {rec.path} (version {rec.version})",
    )


@main.command(short_help="Delete a page or directory.")
@store_options
@json_option
@click.argument("path", callback=trailing_slash)
@click.option("-r", "--recursive", is_flag=True, help="Delete a directory and everything in it.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask before leaving links dangling.")
@click.option(
    "--force", is_flag=True, help="Delete under /sources too (citations into it will dangle)."
)
def rm(
    store_url: str,
    kb_name: str,
    as_json: bool,
    path: str,
    recursive: bool,
    yes: bool,
    force: bool,
) -> None:
    """Delete the page or directory at PATH (a non-empty directory needs -r). When pages
    elsewhere link into what is deleted, says how many links will dangle and asks first
    (unless --yes). A source (/sources/...), which pages cite by character offset, is refused:
    `wikikv remove DOC-ID` removes a document with its pages and citations (--force deletes it
    anyway).

    \b
    Example:
      wikikv rm "/people/John Watson" --kb demo --yes
      wikikv rm -r /topics --kb demo --yes
    """
    from wikikv.compile.guards import refuse_source_delete
    from wikikv.errors import ReadOnlySource
    from wikikv.search.sync import subtree
    from wikikv.store.paths import is_under

    kb = open_kb(store_url, kb_name)
    p = kb.norm(path)
    if not force:
        # a source, or (with -r) a directory holding the sources: as HTTP and MCP refuse it
        try:
            refuse_source_delete(kb, "/sources" if recursive and is_under("/sources", p) else p)
        except ReadOnlySource as exc:
            raise ReadOnlySource(exc.path, f"{exc} (`--force` deletes it anyway)") from None
    rec = kb.get(p, follow_redirects=False)
    if rec is None:
        raise NotFound(f"no page or directory at {p!r} in kb {kb_name!r}")
    if isinstance(rec, DirRecord) and not recursive and len(kb.ls_all(p)):
        raise DirectoryNotEmpty(
            f"{p!r} is a directory with {len(kb.ls_all(p))} children; delete it and them "
            f"with `wikikv rm -r {p}`"
        )
    gone = subtree(kb, p)
    dangling = dangling_links(kb, set(gone))
    if dangling:
        pages = len({src for src, _ in dangling})
        confirm_or_abort(
            f"{len(dangling)} link(s) from {pages} other page(s) point into {p} and will "
            f"dangle; delete {len(gone)} node(s)?",
            yes,
        )
    kb.delete(p, recursive=recursive)  # the kb keeps its search index current
    emit({"deleted": p}, as_json, f"Deleted {p}")


@main.command(short_help="Move a page or directory.")
@store_options
@json_option
@click.argument("src")
@click.argument("dst")
@click.option("--no-redirect", is_flag=True, help="Do not leave redirects at the old paths.")
def mv(store_url: str, kb_name: str, as_json: bool, src: str, dst: str, no_redirect: bool) -> None:
    """Move the page or directory SRC to DST, leaving redirects so old links keep working.

    Example: wikikv mv "/people/John Watson" "/characters/John Watson" --kb demo
    """
    kb = open_kb(store_url, kb_name)
    s, d = kb.norm(src), kb.norm(dst)
    kb.move(s, d, redirect=not no_redirect)  # the kb keeps its search index current
    emit(
        {"moved": s, "to": d, "redirect": not no_redirect},
        as_json,
        f"Moved {s} -> {d}" + ("" if no_redirect else " (redirect left)"),
    )


@main.command(short_help="Check (and repair) a kb's consistency.")
@store_options
@json_option
@click.option("--repair", is_flag=True, help="Fix what is found, without losing any page.")
def fsck(store_url: str, kb_name: str, as_json: bool, repair: bool) -> None:
    """Check a kb for dangling listings, orphan records, listings out of order and name-index
    drift; exit code 1 if problems remain.

    Example: wikikv fsck --repair --kb demo
    """
    try:
        check = importlib.import_module("wikikv.store.fsck").fsck
    except ImportError as exc:
        fail(f"fsck is not available in this build ({exc})")
    kb = open_kb(store_url, kb_name)
    report = check(kb, repair)
    found: dict[str, Any] = report.to_dict()
    unrepaired = bool(found.get("unrepaired"))
    if report.clean:
        summary = f"fsck {kb_name}: {found.get('records', '?')} records, clean"
    else:
        details = {k: v for k, v in found.items() if v not in ([], None, "", 0, False)}
        summary = yaml.safe_dump(details, allow_unicode=True, sort_keys=False).rstrip("\n")
        if repair:
            summary += "\n" + ("repair incomplete" if unrepaired else "repaired")
    emit(found, as_json, summary)
    if (not repair and not report.clean) or unrepaired:
        raise SystemExit(1)


@main.command(short_help="Load and tour the bundled sample wiki.")
@store_option
@json_option
@click.option(
    "--kb",
    "kb_name",
    default="demo",
    show_default=True,
    metavar="NAME",
    help="Kb to (re)create for the demo; replaced if present.",
)
def demo(store_url: str, as_json: bool, kb_name: str) -> None:
    """Load the bundled sample wiki (English and Chinese) into a fresh kb and show ls, get and
    prefix on it.

    Example: wikikv demo --store ./wikikv-data
    """
    from wikikv.interfaces.demo import run_demo

    run_demo(store_url, kb_name, as_json)


# ----------------------------------------------------------------------------- other areas
# The commands of the other areas (build, query, nav, bench, ...) are imported when first used:
# list a new one in AREA_COMMANDS (interfaces/commands/lazy.py), whose area module has a
# ``register(main: click.Group)``; a new benchmark goes in BENCH_COMMANDS there.
