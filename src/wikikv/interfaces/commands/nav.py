"""CLI commands ``nav`` (streams results as it goes) and ``ask`` — thin twins of
:func:`wikikv.query.nav.nav` and :func:`wikikv.query.answer.ask`."""

from __future__ import annotations

import json

import click

from wikikv.interfaces.common import emit, json_option, open_kb, store_options
from wikikv.query.answer import Answer, ask
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, nav

_PREVIEW = 240


def _line(r: NavResult) -> str:
    text = " ".join(r.text.split())
    if len(text) > _PREVIEW:
        text = text[:_PREVIEW] + "…"
    return f"[{r.level:<9}] {r.path}  ({r.elapsed_ms:.2f} ms)\n    {text}"


def _print_answer(a: Answer) -> None:
    click.echo(a.answer or "(no answer found)")
    if a.citations:
        click.echo("\nSources:")
        for c in a.citations[:12]:
            click.echo(f"  - {c.path}" + (f': "{c.quote}"' if c.quote else ""))
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
    @click.argument("query", nargs=-1, required=True)
    def nav_cmd(
        store_url: str,
        kb_name: str,
        as_json: bool,
        budget_ms: float,
        max_reads: int | None,
        query: tuple[str, ...],
    ) -> None:
        """Navigate the wiki for QUERY within a budget, coarse results first (root overview,
        dimensions, entity pages, then digests and articles), streamed as they are found.

        Example: wikikv nav --kb demo --budget 50 "Who wrote The True Story of Ah Q?"
        """
        kb = open_kb(store_url, kb_name)
        budget = Budget(ms=budget_ms, max_reads=max_reads)
        for result in nav(kb, " ".join(query), budget):
            if as_json:  # one JSON object per line, so a consumer can stream it too
                click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
            else:
                click.echo(_line(result))

    @main.command("ask")
    @store_options
    @json_option
    @click.option(
        "--llm",
        type=click.Choice(["offline", "openai"]),
        default="offline",
        show_default=True,
        envvar="WIKIKV_LLM",
        help="offline: cited evidence from nav; openai: the agent loop against "
        "WIKIKV_LLM_BASE_URL / WIKIKV_LLM_MODEL (key in WIKIKV_LLM_API_KEY).",
    )
    @click.option("--max-reads", type=int, default=24, show_default=True)
    @click.option("--no-direct", is_flag=True, help="Never answer directly from one page.")
    @click.argument("question", nargs=-1, required=True)
    def ask_cmd(
        store_url: str,
        kb_name: str,
        as_json: bool,
        llm: str,
        max_reads: int,
        no_direct: bool,
        question: tuple[str, ...],
    ) -> None:
        """Answer QUESTION with citations: directly from a compiled page when safe, else with
        the LLM agent (wiki_search / wiki_read tools) or, offline, from nav's evidence.

        Example: wikikv ask --kb demo "Where was Lu Xun born?"
        """
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
                Budget(ms=500.0, max_reads=max_reads),
                allow_direct=not no_direct,
            )
        finally:
            if provider is not None:
                provider.close()
        emit(answer.to_dict(), as_json, human=lambda: _print_answer(answer))
