"""CLI commands ``nav`` (streams results as it goes) and ``ask`` — thin twins of
:func:`wikikv.query.nav.nav` and :func:`wikikv.query.answer.ask`."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import click

from wikikv.interfaces.common import emit, json_option, open_kb, store_options
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, nav
from wikikv.search.tokenize import analyzers_ready

IMPORTED = time.perf_counter()

_PREVIEW = 240


def startup_ms() -> float:
    """Milliseconds since this process started (Linux: from /proc; elsewhere: since the
    package was imported) — what a cold CLI query spends before it can start working."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime, in ticks
        return max(0.0, (uptime - started) * 1000.0)
    except (OSError, ValueError, IndexError):
        return (time.perf_counter() - IMPORTED) * 1000.0


def _line(r: NavResult) -> str:
    text = " ".join(r.text.split())
    if len(text) > _PREVIEW:
        text = text[:_PREVIEW] + "…"
    return f"[{r.level:<9}] {r.path}  ({r.elapsed_ms:.2f} ms)\n    {text}"


def source_label(path: str) -> str:
    """A source text's id as its author wrote it ("彷徨/祝福 — "), before its escaped path."""
    if not path.startswith("/sources/"):
        return ""
    from wikikv.store.paths import unescape_segment

    doc = unescape_segment(path.rstrip("/").rsplit("/", 1)[-1])
    return f"{doc} — " if doc != path.rsplit("/", 1)[-1] else ""


def _print_answer(a: Any) -> None:  # an Answer (imported with ask, only by ask)
    click.echo(a.answer or "(no answer found: no sentence of the evidence answers the question)")
    quoted = [c for c in a.citations if c.quote]
    if quoted:
        click.echo("\nCited:")
        for i, c in enumerate(quoted, 1):
            click.echo(
                f"  [{i}] {source_label(c.path)}{c.path}" + (f" chars {c.chars}" if c.chars else "")
            )
    others = [c for c in a.citations if not c.quote]
    if others:
        click.echo("\nSources:")
        for c in others[:12]:
            click.echo(f"  - {c.path}")
    click.echo(
        f"\n[{a.mode}{', from the wiki' if a.from_wiki else ''}] tool calls {a.tool_calls}, "
        f"pages read {len(a.pages_read)}, LLM calls {a.llm_calls}, tokens {a.tokens}, "
        f"{a.elapsed_ms:.1f} ms — {a.stopped_because}"
    )


def register(main: click.Group) -> None:
    """Add ``nav`` and ``ask`` to the ``wikikv`` group."""

    @main.command("nav")
    @store_options
    @json_option
    @click.option(
        "--budget",
        "budget_ms",
        type=float,
        default=50.0,
        show_default=True,
        help="Wall-clock budget in milliseconds.",
    )
    @click.option(
        "--max-reads",
        type=int,
        default=None,
        help="Budget as a count of reads (machine-independent).",
    )
    @click.option(
        "--llm",
        type=click.Choice(["offline", "openai"]),
        default="offline",
        show_default=True,
        help="openai: NeedsDeeper from the model at WIKIKV_LLM_BASE_URL (each call charged to "
        "the budget); offline: lexical coverage.",
    )
    @click.option(
        "--max-llm-calls",
        type=int,
        default=None,
        help="With --llm openai: at most this many NeedsDeeper calls.",
    )
    @click.argument("query", nargs=-1, required=True)
    def nav_cmd(
        store_url: str,
        kb_name: str,
        as_json: bool,
        budget_ms: float,
        max_reads: int | None,
        llm: str,
        max_llm_calls: int | None,
        query: tuple[str, ...],
    ) -> None:
        """Navigate the wiki for QUERY within a budget, coarse results first (root overview,
        dimensions, entity pages, then digests and articles), streamed as they are found.

        Example: wikikv nav --kb demo --budget 50 "Who wrote The True Story of Ah Q?"
        """
        kb = open_kb(store_url, kb_name)
        text = " ".join(query)
        analyzers_ready(text)  # before the clock starts: the budget is for navigating
        startup = startup_ms()
        budget = Budget(ms=budget_ms, max_reads=max_reads, max_llm_calls=max_llm_calls)
        judge = http = None
        if llm == "openai":
            from wikikv.llm.openai_compat import OpenAICompatProvider
            from wikikv.query.nav import ModelNeedsDeeper

            http = OpenAICompatProvider.from_env()
            judge = ModelNeedsDeeper(http)
        try:
            for result in nav(kb, text, budget, needs_deeper=judge):
                if as_json:  # one JSON object per line, so a consumer can stream it too
                    click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
                else:
                    click.echo(_line(result))
        finally:
            if http is not None:
                http.close()
        if not as_json:
            click.echo(
                f"start-up {startup:.0f} ms (process start to kb open and analyzers ready), "
                f"then nav {budget.elapsed_ms():.1f} ms of a {budget_ms:g} ms budget"
                + (f", {budget.llm_calls} NeedsDeeper calls" if judge is not None else ""),
                err=True,
            )

    @main.command("ask")
    @store_options
    @json_option
    @click.option(
        "--llm",
        type=click.Choice(["offline", "openai"]),
        default="offline",
        show_default=True,
        envvar="WIKIKV_LLM",
        help="offline: cited evidence from nav; openai: a model at "
        "WIKIKV_LLM_BASE_URL / WIKIKV_LLM_MODEL (key in WIKIKV_LLM_API_KEY).",
    )
    @click.option(
        "--strategy",
        type=click.Choice(["answer", "agent"]),
        default="answer",
        show_default=True,
        help="With --llm openai: answer = nav with the model's NeedsDeeper, then its cited "
        "answer over the evidence (citations checked); agent = the wiki_search / wiki_read "
        "tool loop.",
    )
    @click.option("--max-llm-calls", type=int, default=8, show_default=True)
    @click.option("--max-reads", type=int, default=24, show_default=True)
    @click.option("--no-direct", is_flag=True, help="Never answer directly from one page.")
    @click.argument("question", nargs=-1, required=True)
    def ask_cmd(
        store_url: str,
        kb_name: str,
        as_json: bool,
        llm: str,
        strategy: str,
        max_llm_calls: int,
        max_reads: int,
        no_direct: bool,
        question: tuple[str, ...],
    ) -> None:
        """Answer QUESTION with citations: directly from a compiled page when safe (with a
        model, it breaks a tie between name and search), else with the model's answer over
        nav's evidence (or its agent loop, --strategy agent) or, offline, from nav's evidence.

        Example: wikikv ask --kb demo "Where was Lu Xun born?"
        """
        from wikikv.query.answer import ask

        kb = open_kb(store_url, kb_name)
        provider = None
        if llm == "openai":
            from wikikv.llm.openai_compat import OpenAICompatProvider

            provider = OpenAICompatProvider.from_env()
        try:
            answer = ask(
                kb,
                " ".join(question),
                provider,
                Budget(
                    ms=500.0 if provider is None else 60_000.0,
                    max_reads=max_reads,
                    max_llm_calls=max_llm_calls,
                ),
                allow_direct=not no_direct,
                strategy=strategy,
            )
        finally:
            if provider is not None:
                provider.close()
        emit(answer.to_dict(), as_json, human=lambda: _print_answer(answer))
