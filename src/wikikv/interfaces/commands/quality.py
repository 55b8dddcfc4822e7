"""CLI commands ``lint``, ``errorbook`` and ``review`` (issue 10): the wiki's quality gate, its
Error Book and the queue of what needs a person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from wikikv.interfaces.common import emit, fail, json_option, open_kb, store_options
from wikikv.quality import errorbook as eb
from wikikv.review import ReviewItem, ReviewQueue


def _llm(choice: str) -> Any | None:
    if choice == "offline":
        return None
    from wikikv.llm.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider.from_env()


def _lint_human(r: Any) -> None:
    lint = r.lint
    click.echo(
        f"{lint.pages} pages: {lint.passed} passed, {lint.failed} failed "
        f"({lint.changed} status changes, {lint.elapsed:.2f} s)"
    )
    codes = ", ".join(f"{c} {n}" for c, n in lint.by_code.items() if n)
    click.echo(f"lint codes: {codes or 'none'}")
    if r.rounds:
        click.echo("repair rounds:")
        for row in r.rounds:
            fixed = ", ".join(f"{k} {n}" for k, n in row["fixed"].items()) or "nothing"
            click.echo(
                f"  {row['round']}: {row['findings']} findings, {row['written']} pages written; "
                f"fixed {fixed}; removed facts {row['removed_facts']}, demoted {row['demoted']}, "
                f"queued {row['queued']}, rescheduled {len(row['rescheduled'])}"
            )
    width = max(len(t) for t in r.after)
    click.echo(f"{'error type':<{width}}  before  after")
    for t, n in r.after.items():
        click.echo(f"{t:<{width}}  {r.before.get(t, 0):>6}  {n:>5}")
    opened = [i for i, s in r.errorbook.items() if s == "open"]
    click.echo(
        f"Error Book: {len(r.errorbook)} entries, {len(opened)} open; review queue +{r.queued}"
    )


def register(main: click.Group) -> None:
    """Add ``lint``, ``errorbook`` and ``review`` to the ``wikikv`` group."""

    @main.command("lint")
    @store_options
    @json_option
    @click.option(
        "--fix", is_flag=True, help="Repair first: code fixes ↔ content fixes, ≤3 rounds."
    )
    @click.option(
        "--llm",
        default="offline",
        show_default=True,
        envvar="WIKIKV_LLM",
        type=click.Choice(["offline", "openai"]),
        help="openai: verify facts against their sources and check linked pages pairwise with "
        "an OpenAI-compatible endpoint (WIKIKV_LLM_BASE_URL / WIKIKV_LLM_MODEL).",
    )
    @click.option(
        "--pairs",
        type=int,
        default=20,
        show_default=True,
        help="Linked page pairs the LLM checks per pass (sampled).",
    )
    def lint_cmd(
        store_url: str, kb_name: str, as_json: bool, fix: bool, llm: str, pairs: int
    ) -> None:
        """Lint every page (E1 duplication, E2 missing citation, E3 in-page contradiction, E4
        cross-page conflict, E5 source deleted), set lint_status / lint_errors, update the
        Error Book and queue what needs a person. Exit code 1 when a page failed.

        Example: wikikv lint --kb demo --fix
        """
        from wikikv.quality.run import lint_kb

        kb = open_kb(store_url, kb_name)
        report = lint_kb(kb, fix=fix, llm=_llm(llm), pairs=pairs)
        emit(report.to_dict(), as_json, lambda: _lint_human(report))
        if report.lint.failed:
            raise SystemExit(1)

    @main.group("errorbook")
    def errorbook() -> None:
        """The Error Book: recurring errors, their causes and the rules injected into compile
        prompts (export / import as error_book.yaml).

        Example: wikikv errorbook list --kb demo --open
        """

    @errorbook.command("list")
    @store_options
    @json_option
    @click.option("--open", "only_open", is_flag=True, help="Only open entries.")
    def eb_list(store_url: str, kb_name: str, as_json: bool, only_open: bool) -> None:
        """List the entries: status, error type, affected pages.

        Example: wikikv errorbook list --kb demo --open
        """
        book = eb.load(open_kb(store_url, kb_name))
        rows = [e for _, e in sorted(book.entries.items()) if not only_open or e.status == "open"]

        def human() -> None:
            if not rows:
                click.echo("(the Error Book is empty)")
            for e in rows:
                click.echo(f"{e.status:<6}  {e.id:<26} {e.affected_count:>5} pages  {e.phenomenon}")

        emit(rows, as_json, human)

    @errorbook.command("show")
    @store_options
    @json_option
    @click.argument("entry_id")
    def eb_show(store_url: str, kb_name: str, as_json: bool, entry_id: str) -> None:
        """Show one entry in full.

        Example: wikikv errorbook show --kb demo dangling_link
        """
        book = eb.load(open_kb(store_url, kb_name))
        entry = book.entries.get(entry_id)
        if entry is None:
            fail(f"no Error Book entry {entry_id!r} (known: {', '.join(sorted(book.entries))})")
        emit(entry, as_json)

    @errorbook.command("export")
    @store_options
    @json_option
    @click.argument("dest", type=click.Path(dir_okay=False, writable=True), default="-")
    def eb_export(store_url: str, kb_name: str, as_json: bool, dest: str) -> None:
        """Write the Error Book as error_book.yaml (DEST; '-' for stdout).

        Example: wikikv errorbook export --kb demo error_book.yaml
        """
        book = eb.load(open_kb(store_url, kb_name))
        text = eb.to_yaml(book)
        if dest == "-" and not as_json:
            click.echo(text, nl=False)
            return
        if dest != "-":
            Path(dest).write_text(text, encoding="utf-8")
        emit({"entries": len(book.entries), "written": dest}, as_json, f"written to {dest}")

    @errorbook.command("import")
    @store_options
    @json_option
    @click.argument("src", type=click.Path(exists=True, dir_okay=False))
    def eb_import(store_url: str, kb_name: str, as_json: bool, src: str) -> None:
        """Merge the entries of an error_book.yaml (same id: replaced). Nothing changes when
        the file is invalid.

        Example: wikikv errorbook import --kb demo error_book.yaml
        """
        n = eb.import_yaml(open_kb(store_url, kb_name), Path(src).read_text(encoding="utf-8"))
        emit({"imported": n}, as_json, f"imported {n} entries")

    @errorbook.command("verify")
    @store_options
    @json_option
    def eb_verify(store_url: str, kb_name: str, as_json: bool) -> None:
        """Re-validate the open entries now; close those whose errors are gone.

        Example: wikikv errorbook verify --kb demo
        """
        kb = open_kb(store_url, kb_name)
        book = eb.load(kb)
        found = eb.verify(kb, book)
        eb.save(kb, book)
        status = {e.id: e.status for e in book.entries.values()}
        emit({"findings": len(found), "entries": status}, as_json)

    @main.group("review")
    def review() -> None:
        """The review queue: what a job could not decide alone. Decisions are remembered, so
        the same item is not raised again.

        Example: wikikv review list --kb demo
        """

    def _row(it: ReviewItem) -> str:
        return f"{it.key}  {it.status:<8} {it.kind:<34} {it.path}  — {it.reason}"

    @review.command("list")
    @store_options
    @json_option
    @click.option(
        "--status",
        type=click.Choice(["open", "accepted", "rejected", "all"]),
        default="open",
        show_default=True,
    )
    @click.option("--kind", default=None, help="Only items of this kind (e.g. quality/...).")
    def review_list(
        store_url: str, kb_name: str, as_json: bool, status: str, kind: str | None
    ) -> None:
        """List review items, oldest first.

        Example: wikikv review list --kb demo --status all
        """
        q = ReviewQueue(open_kb(store_url, kb_name))
        items = q.items(status=None if status == "all" else status, kind=kind)  # type: ignore[arg-type]

        def human() -> None:
            if not items:
                click.echo(f"(no {status if status != 'all' else ''} review items)")
            for it in items:
                click.echo(_row(it))

        emit(items, as_json, human)

    @review.command("show")
    @store_options
    @json_option
    @click.argument("key")
    def review_show(store_url: str, kb_name: str, as_json: bool, key: str) -> None:
        """Show one item with its details.

        Example: wikikv review show --kb demo q3f2a9c01b7d4e5f6a7b8
        """
        item = ReviewQueue(open_kb(store_url, kb_name)).get(key)
        if item is None:
            fail(f"no review item {key!r}")
        emit(item, as_json)

    for verb in ("accept", "reject"):
        _decide_command(review, verb)


def _decide_command(group: click.Group, verb: str) -> None:
    @group.command(verb)
    @store_options
    @json_option
    @click.option("--note", default="", help="Why (kept with the decision).")
    @click.argument("keys", nargs=-1, required=True)
    def decide(
        store_url: str, kb_name: str, as_json: bool, note: str, keys: tuple[str, ...]
    ) -> None:
        q = ReviewQueue(open_kb(store_url, kb_name))
        done = [getattr(q, verb)(k, note=note) for k in keys]
        emit(done, as_json, "\n".join(f"{verb}ed {it.key}: {it.path}" for it in done))

    decide.__doc__ = (
        f"{verb.capitalize()} review items by key; the decision is remembered and the same "
        f"item is not raised again.\n\nExample: wikikv review {verb} --kb demo KEY --note 'checked'"
    )
    decide.help = decide.__doc__
