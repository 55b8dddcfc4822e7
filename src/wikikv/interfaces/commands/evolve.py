"""CLI commands of schema evolution: ``stats replay`` / ``stats show``, ``schema cost`` and
``evolve`` (see :mod:`wikikv.evolve`)."""

from __future__ import annotations

from typing import Any

import click

from wikikv.interfaces.common import emit, json_option, open_kb, store_options

SHOWN = 20


def register(main: click.Group) -> None:
    main.add_command(stats_group)
    main.add_command(schema_group)
    main.add_command(evolve_cmd)


@click.group("stats")
def stats_group() -> None:
    """Access statistics of a kb (what the evolution operators read).

    Example: wikikv stats replay questions.jsonl --kb hotpot
    """


@stats_group.command("replay")
@store_options
@json_option
@click.option("--max-reads", type=int, default=24, show_default=True, help="nav budget per query.")
@click.argument("queries", type=click.Path(exists=True, dir_okay=False))
def replay_cmd(store_url: str, kb_name: str, as_json: bool, max_reads: int, queries: str) -> None:
    """Seed the statistics by replaying QUERIES (JSONL with a "question" field, YAML list, or
    one query a line) through nav with recording on.

    Example: wikikv stats replay ../shared/data/multihop/hotpotqa/questions.jsonl
    """
    from wikikv.evolve.replay import read_queries, replay
    from wikikv.store.access_stats import load_stats

    kb = open_kb(store_url, kb_name)
    qs = read_queries(queries)
    rec = replay(kb, qs, max_reads)
    st = load_stats(kb)
    out = {
        "replayed": len(qs),
        "flushes": rec.flushed,
        "queries": st.queries,
        "paths": len(st.access),
        "directories": len(st.visits),
        "pairs": len(st.co),
    }
    emit(
        out,
        as_json,
        f"replayed {len(qs)} queries in {rec.flushed} flush(es); the kb now has "
        f"{st.queries} queries over {len(st.access)} paths",
    )


@stats_group.command("show")
@store_options
@json_option
@click.option("--top", type=int, default=15, show_default=True)
def show_cmd(store_url: str, kb_name: str, as_json: bool, top: int) -> None:
    """The most read pages and most visited directories.

    Example: wikikv stats show --top 10
    """
    from wikikv.store.access_stats import load_stats

    st = load_stats(open_kb(store_url, kb_name))
    out = {
        "queries": st.queries,
        "top_pages": sorted(st.access.items(), key=lambda kv: -kv[1])[:top],
        "top_directories": sorted(st.visits.items(), key=lambda kv: -kv[1])[:top],
    }
    emit(out, as_json)


@click.group("schema")
def schema_group() -> None:
    """The wiki's schema (dimensions and routing levels).

    Example: wikikv schema cost
    """


@schema_group.command("cost")
@store_options
@json_option
def cost_cmd(store_url: str, kb_name: str, as_json: bool) -> None:
    """The cost J = α·storage + β·descent − γ·quality per dimension, from the stored statistics.

    Example: wikikv schema cost --json
    """
    from wikikv.evolve.cost import Weights, schema_terms, total
    from wikikv.evolve.layout import load_view
    from wikikv.store.access_stats import load_stats

    kb = open_kb(store_url, kb_name)
    w = Weights()
    terms = schema_terms(load_view(kb), load_stats(kb), w)
    out: dict[str, Any] = {
        "weights": w.__dict__,
        "dimensions": {k: t.to_dict(w) for k, t in terms.items()},
        "total": total(terms, w),
    }

    def human() -> None:
        click.echo(f"weights: α={w.alpha} β={w.beta} γ={w.gamma} λ={w.prior} F0={w.scan}")
        click.echo(
            f"{'dimension':<16}{'J':>12}{'storage':>10}{'descent':>12}{'quality':>10}"
            f"{'dirs':>6}{'max fan':>9}{'ranges':>8}"
        )
        for name, t in terms.items():
            click.echo(
                f"{name:<16}{t.j(w):>12.1f}{t.storage:>10.0f}{t.descent:>12.1f}"
                f"{t.quality:>10.1f}{t.directories:>6}{t.max_fanout:>9}{t.range_dirs:>8}"
            )
        tot = out["total"]
        click.echo(
            f"{'total':<16}{tot['J']:>12.1f}{tot['storage']:>10.0f}{tot['descent']:>12.1f}"
            f"{tot['quality']:>10.1f}"
        )

    emit(out, as_json, human)


@click.command("evolve")
@store_options
@json_option
@click.option("--dry-run", is_flag=True, help="Print the proposals with their ΔJ; write nothing.")
@click.option("--max-ops", type=int, default=8, show_default=True, help="Operators per pass.")
@click.option("--tau", type=float, default=None, help="DimensionMerge MI threshold (nats).")
@click.option(
    "--llm",
    type=click.Choice(["offline", "openai"]),
    default="offline",
    show_default=True,
    help="openai: the Architect also asks the LLM (WIKIKV_LLM_BASE_URL / _MODEL / _API_KEY).",
)
def evolve_cmd(
    store_url: str,
    kb_name: str,
    as_json: bool,
    dry_run: bool,
    max_ops: int,
    tau: float | None,
    llm: str,
) -> None:
    """One schema-evolution pass: PageSplit (Architect–Critic–Arbiter) and DimensionMerge,
    committed with redirects under the kb's lease; a killed pass resumes when run again.

    Example: wikikv evolve --dry-run
    """
    from wikikv.evolve.commit import evolve_pass
    from wikikv.evolve.operators import TAU
    from wikikv.quality.hooks import ErrorBookGate

    kb = open_kb(store_url, kb_name)
    architect = None
    if llm == "openai":
        from wikikv.evolve.llm_architect import from_env

        architect = from_env(kb)
    report = evolve_pass(
        kb,
        dry_run=dry_run,
        max_ops=max_ops,
        tau=TAU if tau is None else tau,
        llm=architect,
        quality=ErrorBookGate(),
    )
    out = report.to_dict()

    def human() -> None:
        if report.resumed:
            click.echo("resumed an interrupted pass")
        ranked = []
        if report.proposals:
            click.echo(f"{'op':<6}{'dimension':<14}{'ΔJ':>12}  {'ok':<4}detail")
            ranked = sorted(report.proposals, key=lambda p: p.delta)
            for p in ranked[:SHOWN]:
                ok = "yes" if p.delta < 0 and p.reachable else "no"
                click.echo(f"{p.op:<6}{p.dim:<14}{p.delta:>12.1f}  {ok:<4}{p.detail}")
        if len(ranked) > SHOWN:
            click.echo(f"... and {len(ranked) - SHOWN} more (--json lists them all)")
        verb = "would commit" if dry_run else "committed"
        click.echo(
            f"{verb} {len(report.committed)} operator(s); J {report.j_before:.1f}"
            + ("" if dry_run else f" → {report.j_after:.1f}; {report.moved} pages moved")
            + f" ({report.seconds:.1f} s)"
        )

    emit(out, as_json, human)
