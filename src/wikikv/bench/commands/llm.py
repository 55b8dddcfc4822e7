"""``wikikv bench llm``: an LLM-mode build against the scripted loopback model — calls, tokens
and cost per role and per document, dry run against real run, facts kept after grounding."""

from __future__ import annotations

import json

import click

DEFAULT_OUT = "bench-results/llm.json"


@click.command("llm")
@click.option(
    "--corpus",
    default="2wiki-corpus-6k",
    show_default=True,
    help="A shared corpus (see `wikikv bench compile`).",
)
@click.option("--limit", type=int, default=None, help="Only the first N documents.")
@click.option("--concurrency", type=int, default=8, show_default=True)
@click.option("--out", default=DEFAULT_OUT, show_default=True, help="Where to write JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
def llm_cmd(corpus: str, limit: int | None, concurrency: int, out: str, as_json: bool) -> None:
    """Build CORPUS in LLM mode against the scripted model served on loopback HTTP, after a
    dry run; report calls, tokens and cost per role and per document, the dry run's error,
    and the share of the model's key facts kept after grounding. Answer accuracy needs a
    reachable endpoint and is not measured.

    Example: wikikv bench llm --limit 500
    """
    from wikikv.bench import llm
    from wikikv.bench.compile import CORPORA
    from wikikv.bench.report import print_table, write_json

    if corpus not in CORPORA:
        raise click.BadParameter(
            f"unknown corpus (known: {', '.join(CORPORA)})", param_hint="--corpus"
        )
    if limit is not None and limit < 1:
        raise click.BadParameter("must be at least 1", param_hint="--limit")

    def log(msg: str) -> None:
        if not as_json:
            click.echo(msg, err=True)

    result = llm.run(corpus, limit, concurrency, log)
    path = write_json(result, out)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    rows = []
    for name, r in result["by_role"].items():
        real, dry = r["real"], r["dry_run"] or {}
        rows.append(
            (
                name,
                real["calls"],
                dry.get("calls"),
                real["total_tokens"],
                dry.get("total_tokens"),
                f"{100 * r['tokens_diff']:+.1f}%" if r["tokens_diff"] is not None else "-",
                f"{real['cost']:.4f}",
            )
        )
    real, dry, agree = result["real"], result["dry_run"], result["agreement"]
    rows.append(
        (
            "total",
            real["calls"],
            dry["calls"],
            real["total_tokens"],
            dry["total_tokens"],
            f"{100 * agree['total_tokens']:+.1f}%" if agree["total_tokens"] is not None else "-",
            f"{real['cost']:.4f}",
        )
    )
    print_table(
        f"LLM build of {result['documents']} documents ({result['corpus']}, scripted model)",
        ["role", "calls", "dry-run calls", "tokens", "dry-run tokens", "dry-run error", "cost"],
        rows,
    )
    g, per = result["grounding"], result["per_document"]
    facts, links = g.get("facts", {}), g.get("links", {})
    click.echo(
        f"per document: {per['calls']} calls, {per['tokens']} tokens, cost {per['cost']:.6f}; "
        f"page call tokens p50 {per['page_calls']['tokens_p50']}, "
        f"p95 {per['page_calls']['tokens_p95']}"
    )
    click.echo(
        f"grounding: {facts.get('kept')} of {facts.get('proposed')} model facts kept "
        f"({g.get('facts_kept_share')}), dropped {facts.get('dropped')}; "
        f"links {links.get('kept')} of {links.get('proposed')}"
    )
    s = result["summaries"]
    click.echo(
        f"summaries: {s.get('sections')} sections, max synthesized share "
        f"{s.get('max_synthesized_share')} (bound {s.get('synthesis_bound')}), "
        f"{s.get('over_bound_replaced')} replaced"
    )
    c = result["check"]
    click.echo(
        f"check: ok={c['ok']}, {c['facts']} fact lines, {c['invalid_citations']} invalid "
        f"citations, {c['broken_links']} broken links"
    )
    click.echo(f"answer accuracy: {result['answer_accuracy']}")
    click.echo(f"dry run within {100 * result['tolerance']:.0f} %: {result['within_tolerance']}")
    click.echo(f"wrote {path}")
