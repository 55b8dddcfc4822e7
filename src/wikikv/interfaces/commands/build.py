"""Compile commands: ``build`` (with ``--dry-run``), ``add``, ``update``, ``remove``,
``descriptor``, ``check``, and ``bench compile`` in the ``bench`` group."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from wikikv.interfaces.common import (
    confirm_or_abort,
    emit,
    fail,
    json_option,
    open_cli_store,
    open_kb,
    store_options,
    to_builtins,
)


def register(main: click.Group) -> None:
    for command in (build, add, update, remove, descriptor, check):
        main.add_command(command)


def _provider(llm: str, kb: Any, max_tokens: int | None, max_cost: float | None) -> Any:
    if llm == "offline":
        from wikikv.llm.extractive import ExtractiveProvider

        return ExtractiveProvider()
    from wikikv.compile.llm_provider import LLMCompileProvider
    from wikikv.llm.callcache import CallCache
    from wikikv.llm.estimate import TokenBudget
    from wikikv.llm.openai_compat import OpenAICompatProvider
    from wikikv.store.callcache_storage import BackendCacheStorage

    # Responses are cached in the kb itself, so a rerun makes no call and `remove` erases them.
    http = OpenAICompatProvider.from_env(
        cache=CallCache(BackendCacheStorage.for_kb(kb)),
        budget=TokenBudget(max_tokens=max_tokens, max_cost=max_cost),
    )
    return LLMCompileProvider(http)


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    if not enabled:
        yield lambda phase, done, total: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=max(total, 1))
            bar.update(tasks[phase], completed=done, total=max(total, 1))

        yield update


def _summary(report: Any) -> str:
    r = report
    lines = [
        f"{r.job}: {r.documents} documents in the kb ({r.elapsed:.1f} s)"
        + (" — resumed an interrupted job" if r.resumed else ""),
        f"  documents: read {r.read}, compiled {r.analyzed}, skipped (unchanged) {r.skipped}, "
        f"dropped {sum(r.dropped.values())}{' ' + str(dict(r.dropped)) if r.dropped else ''}, "
        f"removed {r.removed}, "
        + (f"hand-edited pages {dict(r.hand_edits)}, " if r.hand_edits else "")
        + f"unreadable {len(r.issues)}",
        f"  wiki: {r.entities} entity pages, {r.links} links, {r.facts} facts; "
        f"{r.written} nodes written, {r.deleted} deleted"
        + (
            f", {r.moved} moved (redirects left at the old paths)" if getattr(r, "moved", 0) else ""
        ),
    ]
    if r.llm.get("calls") or r.llm.get("cache_hits"):
        lines.append(
            f"  LLM: {r.llm['calls']} calls, {r.llm['prompt_tokens'] + r.llm['completion_tokens']}"
            f" tokens, {r.llm['cache_hits']} cache hits, cost {r.llm['cost']:.4f}"
        )
    for role, u in r.llm.get("by_role", {}).items():
        lines.append(
            f"    {role}: {u['calls']} calls, {u['prompt_tokens'] + u['completion_tokens']} "
            f"tokens, cost {u['cost']:.4f}"
        )
    g = getattr(r, "grounding", {})
    if g:
        f, links = g["facts"], g["links"]
        lines.append(
            f"  grounding: {f['kept']} of {f['proposed']} model facts kept (quote found "
            f"verbatim), {links['kept']} of {links['proposed']} links; dropped "
            f"{dict(f['dropped'])} {dict(links['dropped'])}"
        )
    if getattr(r, "model_fallback", ""):
        # an add normally updates the stored entity model for its documents alone; say why
        # this one derived it from every document (the reason it took longer)
        lines.append(f"  entity model derived again from every document: {r.model_fallback}")
    if getattr(r, "kept_absent", 0):
        ids = ", ".join(r.kept_absent_ids) + (
            ", ..." if r.kept_absent > len(r.kept_absent_ids) else ""
        )
        lines.append(
            f"  kept {r.kept_absent} document(s) of the kb not in this corpus ({ids}); "
            "`--sync` would remove them, after showing the plan"
        )
    if getattr(r, "rescaffolded", False):
        lines.append(
            "  dimensions induced again: the kb has grown past the sample its first build "
            "read (pages moved to the new directories)"
        )
    if r.documents and r.elapsed:
        lines.append(f"  throughput: {r.analyzed / r.elapsed:.0f} documents/s")
    for issue in r.issues[:10]:
        lines.append(f"  skipped {issue.source}: {issue.reason}")
    if len(r.issues) > 10:
        lines.append(f"  ... and {len(r.issues) - 10} more skipped")
    if getattr(r, "restored", 0):
        lines.append(f"  restored {r.restored} pages that had been deleted outside the build")
    for guess in getattr(r, "encodings", [])[:10]:
        lines.append(f"  not UTF-8, {guess.reason}: {guess.source}")
    return "\n".join(lines)


def _run(
    store_url: str,
    kb_name: str,
    as_json: bool,
    llm: str,
    create: bool,
    job: Callable[[Any], Any],
    max_tokens: int | None = None,
    max_cost: float | None = None,
    fast_zh: bool = False,
    wait: float = 0.0,
    semantic_routing: bool = True,
) -> None:
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated

    if create:
        kb = open_cli_store(store_url, create=True).create_kb(kb_name, exist_ok=True)
    else:
        kb = open_kb(store_url, kb_name)
    kb.lease_wait, kb.lease_countdown = wait, _lease_countdown
    provider = _provider(llm, kb, max_tokens, max_cost)
    with _progress(not as_json) as progress:
        options = gated(fast_zh=fast_zh, semantic_routing=semantic_routing)
        compiler = Compiler(kb, provider, options, progress=progress)
        try:
            report = job(compiler)
        finally:
            close = getattr(getattr(provider, "llm", None), "close", None)
            if close is not None:
                close()  # the HTTP client's connections
        usage = compiler.provider.usage()
        report.llm = usage.to_dict()
        by_role = getattr(compiler.provider, "usage_by_role", None)
        if by_role is not None:  # LLM mode: tokens and cost per role
            report.llm["by_role"] = {r: u.to_dict() for r, u in sorted(by_role().items())}
    emit(report.to_dict(), as_json, _summary(report))


def _lease_countdown(holder: Any, left: float) -> None:
    """--wait: one stderr line a second while another job's lease runs out."""
    click.echo(
        f"waiting for bulk job {holder.job!r} of {holder.owner}: its lease expires in "
        f"{left:.0f} s unless renewed",
        err=True,
    )


def _llm(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option(
        "--fast-zh",
        is_flag=True,
        help="Tag Chinese without jieba's HMM POS model (~10x faster; misses some "
        "transliterated names).",
    )(fn)
    fn = click.option(
        "--max-cost", type=float, default=None, help="Hard cap on LLM cost (stops cleanly)."
    )(fn)
    fn = click.option(
        "--max-tokens", type=int, default=None, help="Hard cap on LLM tokens (stops cleanly)."
    )(fn)
    return click.option(
        "--llm",
        default="offline",
        show_default=True,
        envvar="WIKIKV_LLM",
        type=click.Choice(["offline", "openai"]),
        help="offline: the deterministic extractive provider; openai: an OpenAI-compatible "
        "endpoint from WIKIKV_LLM_BASE_URL / WIKIKV_LLM_MODEL (key in WIKIKV_LLM_API_KEY).",
    )(fn)


def _id_prefix(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--id-prefix",
        default="",
        metavar="PREFIX",
        help="Put the document ids under PREFIX (ids are the paths relative to the corpus "
        "folder, or to the current directory for single files).",
    )(fn)


@click.command(short_help="Compile a corpus into a kb (resumable).")
@click.argument("corpus", type=click.Path(exists=True))
@store_options
@json_option
@_llm
@_id_prefix
@click.option(
    "--sync",
    "--prune",
    "sync",
    is_flag=True,
    help="Also remove the kb's documents that are not in CORPUS (prints the plan and asks).",
)
@click.option("-y", "--yes", is_flag=True, help="With --sync: do not ask before removing.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan (documents to add / update / remove) and estimate LLM calls, tokens, "
    "cost and time, without calling anything or writing.",
)
@click.option(
    "--price-in",
    type=float,
    default=0.0,
    show_default=True,
    help="Dry run: price per 1k prompt tokens.",
)
@click.option(
    "--price-out",
    type=float,
    default=0.0,
    show_default=True,
    help="Dry run: price per 1k completion tokens.",
)
@click.option(
    "--concurrency",
    type=int,
    default=4,
    show_default=True,
    help="Dry run: concurrent LLM calls assumed for the time estimate.",
)
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Seconds to wait, with a countdown, for another job's lease on the kb to run out. "
    "(A lease whose holder process on this host is gone is taken over at once.)",
)
@click.option(
    "--no-evolution",
    is_flag=True,
    help="Build the kb without evolution: an overflowing dimension is cut into plain name "
    "ranges, not semantic sub-dimensions (the ablation baseline; `wikikv evolve` regroups it).",
)
def build(
    corpus: str,
    store_url: str,
    kb_name: str,
    as_json: bool,
    llm: str,
    max_tokens: int | None,
    max_cost: float | None,
    fast_zh: bool,
    id_prefix: str,
    sync: bool,
    yes: bool,
    dry_run: bool,
    price_in: float,
    price_out: float,
    concurrency: int,
    wait: float,
    no_evolution: bool,
) -> None:
    """Compile CORPUS (a folder of .md/.txt/.html, a JSONL or a JSON array file) into the kb
    (created if needed): new and changed documents compiled, unchanged ones skipped. Documents
    already in the kb but not in CORPUS are kept; with --sync (or --prune) they are removed,
    after the plan is printed and confirmed (--yes skips the question). A killed build resumes
    where it stopped when run again. With --dry-run, print the same plan and estimate what the
    build would spend, writing nothing.

    \b
    Example:
      wikikv build ./my-notes --kb notes
      wikikv build ./my-notes --kb notes --sync --dry-run
    """
    if dry_run:
        _dry_run(
            corpus,
            llm,
            as_json,
            price_in,
            price_out,
            concurrency,
            _plan_if_store(store_url, kb_name, corpus, sync, id_prefix),
        )
        return

    if sync:
        plan = _plan_if_store(store_url, kb_name, corpus, sync, id_prefix)
        if plan.remove:
            click.echo(plan.summary(), err=True)
            confirm_or_abort(
                f"remove {len(plan.remove)} document(s) and {plan.nodes} node(s) from kb "
                f"{kb_name!r}?",
                yes,
            )
    _run(
        store_url,
        kb_name,
        as_json,
        llm,
        True,
        lambda c: c.build(corpus, sync=sync, id_prefix=id_prefix),
        max_tokens,
        max_cost,
        fast_zh,
        wait,
        semantic_routing=not no_evolution,
    )


def _plan_if_store(store_url: str, kb_name: str, corpus: str, sync: bool, id_prefix: str) -> Any:
    """The build plan against the kb, or against an empty kb when the store or the kb does
    not exist yet (a dry run creates nothing)."""
    from wikikv.compile.pipeline import Compiler
    from wikikv.store.store import open_store, store_exists

    if store_exists(store_url):
        with open_store(store_url) as store:
            if store.has_kb(kb_name):
                return Compiler(store.kb(kb_name)).plan(corpus, sync=sync, id_prefix=id_prefix)
    with open_store("memory://") as empty:
        return Compiler(empty.create_kb(kb_name)).plan(corpus, sync=sync, id_prefix=id_prefix)


def _dry_run(
    corpus: str,
    llm: str,
    as_json: bool,
    price_in: float,
    price_out: float,
    concurrency: int,
    plan: Any,
) -> None:
    from wikikv.compile.dryrun import dry_run
    from wikikv.llm.estimate import Prices

    if concurrency < 1:
        raise click.BadParameter("must be at least 1", param_hint="--concurrency")
    result = dry_run(corpus, llm, Prices(price_in, price_out), concurrency)

    def show() -> None:
        from rich.console import Console
        from rich.table import Table

        click.echo(plan.summary())
        table = Table(title=f"build dry run: {Path(corpus).name}, --llm {llm}")
        table.add_column("estimate")
        table.add_column("value", justify="right")
        for name, value in result.rows():
            table.add_row(name, value)
        Console(highlight=False).print(table)
        click.echo("Nothing was called or written.")

    emit({**result.to_dict(), "plan": plan.to_dict()}, as_json, show)


@click.command(short_help="Add documents to a kb.")
@click.argument("corpus", nargs=-1, required=True, type=click.Path(exists=True))
@store_options
@json_option
@_llm
@_id_prefix
def add(
    corpus: tuple[str, ...],
    store_url: str,
    kb_name: str,
    as_json: bool,
    llm: str,
    max_tokens: int | None,
    max_cost: float | None,
    fast_zh: bool,
    id_prefix: str,
) -> None:
    """Add (or update) the documents of CORPUS (one or more folders or files), touching only
    what they affect. A file's id is its path relative to the current directory (or
    PREFIX/name with --id-prefix), so files with the same name in different folders stay
    distinct documents.

    \b
    Example:
      wikikv add new-essays/ --kb demo
      wikikv add notes/a.md notes/b.md --kb demo
    """
    _run(
        store_url,
        kb_name,
        as_json,
        llm,
        False,
        lambda c: c.add(list(corpus), id_prefix),
        max_tokens,
        max_cost,
        fast_zh,
    )


@click.command(short_help="Recompile changed documents.")
@click.argument("corpus", nargs=-1, required=True, type=click.Path(exists=True))
@store_options
@json_option
@_llm
@_id_prefix
def update(
    corpus: tuple[str, ...],
    store_url: str,
    kb_name: str,
    as_json: bool,
    llm: str,
    max_tokens: int | None,
    max_cost: float | None,
    fast_zh: bool,
    id_prefix: str,
) -> None:
    """Recompile the documents of CORPUS (one or more folders or files) whose content
    changed; others are skipped.

    \b
    Example:
      wikikv update notes/a.md --kb demo
      wikikv update corpus.jsonl --kb demo
    """
    _run(
        store_url,
        kb_name,
        as_json,
        llm,
        False,
        lambda c: c.update(list(corpus), id_prefix),
        max_tokens,
        max_cost,
        fast_zh,
    )


@click.command(short_help="Remove documents from a kb.")
@click.argument("doc_ids", nargs=-1, required=True)
@store_options
@json_option
def remove(doc_ids: tuple[str, ...], store_url: str, kb_name: str, as_json: bool) -> None:
    """Remove documents by id: their articles, digests, the facts citing them, pages left
    without sources, links to those pages, search entries and cached LLM answers.

    Example: wikikv remove "en/A note found in the archive" --kb demo
    """
    _run(store_url, kb_name, as_json, "offline", False, lambda c: c.remove(doc_ids))


@click.command(short_help="Show the corpus positioning descriptor.")
@store_options
@json_option
def descriptor(store_url: str, kb_name: str, as_json: bool) -> None:
    """Print the positioning descriptor the cold start wrote (what the corpus is about, for
    whom, its bias) and the dimension scaffold.

    Example: wikikv descriptor --kb demo
    """
    from wikikv.compile import state

    kb = open_kb(store_url, kb_name)
    found = state.load_descriptor(kb)
    schema = state.load_schema(kb)
    if found is None:
        fail(f"kb {kb_name!r} has no descriptor yet: run `wikikv build` first")
    emit({"descriptor": to_builtins(found), "schema": to_builtins(schema)}, as_json)


@click.command(short_help="Measure a built wiki's quality.")
@store_options
@json_option
@click.option("--report", "full", is_flag=True, help="Print every measure, not only the verdict.")
@click.option("--no-fsck", is_flag=True, help="Skip the storage consistency check.")
def check(store_url: str, kb_name: str, as_json: bool, full: bool, no_fsck: bool) -> None:
    """Check a compiled wiki: citation validity, broken and one-way links, reachability,
    fan-out and depth bounds, fact coverage, duplicate-entity and orphan rates, index coverage.
    Exits 1 when an invariant fails.

    Example: wikikv check --report --kb demo
    """
    from wikikv.compile.check import check as run_check

    kb = open_kb(store_url, kb_name)
    report = run_check(kb, run_fsck=not no_fsck)
    data = report.to_dict()
    if not full and not as_json:
        data = {
            k: data[k]
            for k in (
                "ok",
                "entity_pages",
                "facts",
                "citation_validity",
                "broken_links",
                "missing_reverse",
                "unreachable",
            )
        }
    emit(data, as_json)
    if not report.ok:
        raise SystemExit(1)
