"""Helpers every CLI command shares: the store options, opening a kb, output, error mapping.

Contract for command modules (``wikikv.interfaces.commands.<area>``)::

    @main.command()
    @store_options              # adds --store (WIKIKV_STORE) and --kb (WIKIKV_KB)
    @json_option                # adds --json
    def thing(store_url: str, kb_name: str, as_json: bool) -> None:
        \"\"\"Do the thing.

        Example: wikikv thing --kb demo
        \"\"\"
        kb = open_kb(store_url, kb_name)
        emit(result, as_json, human=lambda: ...)

Every :class:`~wikikv.errors.WikiKVError` raised inside a command of the ``wikikv`` group becomes
one line ``Error: ...`` on stderr and exit code 1 (see :class:`WikiKVGroup`), never a traceback;
with ``--json`` it is one JSON object ``{"error": {"type": ..., "message": ...}}`` on stdout.
``--store``, ``--kb`` and ``--json`` may also come before the command (``wikikv --kb demo ls /``).
A closed output pipe (``wikikv ls / | head -1``) ends the command quietly (exit code 141, as for
any tool killed by SIGPIPE).

Commands open stores with :func:`open_cli_store`, which refuses a URL where no store exists
(only ``init``, ``build`` and ``demo`` pass ``create=True``).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any, NoReturn, TypeVar

import click
import msgspec
import yaml

from wikikv.errors import AmbiguousName, WikiKVError
from wikikv.library import open_store
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import DEFAULT_STORE_DIR, Store

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_KB = "default"
EXIT_ERROR = 1
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool cut off by `| head`
# Options every command shares, accepted before the command name too (value-taking first).
GLOBAL_VALUE_OPTIONS = ("--store", "--kb")
GLOBAL_FLAGS = ("--json",)


def one_line(message: str) -> str:
    """Collapse a message onto one line."""
    return " ".join(message.split())


class JSONError(click.ClickException):
    """A ClickException shown as one JSON object on stdout (``--json`` mode)."""

    def __init__(self, message: str, kind: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.kind = kind
        setattr(self, "exit_code", exit_code)  # noqa: B010 - a ClassVar in click's stubs

    def show(self, file: IO[Any] | None = None) -> None:
        payload = {"error": {"type": self.kind, "message": self.message}}
        click.echo(json.dumps(payload, ensure_ascii=False), file=file or sys.stdout)


def hoist_global_options(args: list[str]) -> list[str]:
    """Move ``--store V``, ``--kb V`` and ``--json`` written before the command name to after
    it, where every command reads them: ``--kb demo ls /`` becomes ``ls / --kb demo``."""
    moved: list[str] = []
    rest = list(args)
    while rest:
        head = rest[0]
        name = head.split("=", 1)[0]
        if name in GLOBAL_VALUE_OPTIONS:
            if "=" in head:
                moved.append(head)
                rest = rest[1:]
            elif len(rest) >= 2:
                moved += rest[:2]
                rest = rest[2:]
            else:
                break
        elif head in GLOBAL_FLAGS:
            moved.append(head)
            rest = rest[1:]
        else:
            break
    if not moved or not rest:
        return args
    cut = rest.index("--") if "--" in rest else len(rest)
    return rest[:cut] + moved + rest[cut:]


def _quiet_broken_pipe() -> NoReturn:
    # Point stdout at devnull so the interpreter's final flush does not raise again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass
    raise SystemExit(EXIT_BROKEN_PIPE)


class WikiKVGroup(click.Group):
    """A click group that turns WikiKV errors (and OS errors) into a one-line ``Error: ...``
    (JSON with ``--json``), accepts the shared options before the command, and ends quietly on a
    closed output pipe."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.parent is None:
            args = hoist_global_options(args)
            ctx.meta["wikikv.json"] = "--json" in args
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        as_json = bool(ctx.meta.get("wikikv.json"))
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _quiet_broken_pipe()
        except WikiKVError as exc:
            message = one_line(str(exc)) or type(exc).__name__
            if as_json:
                raise JSONError(message, type(exc).__name__) from exc
            raise click.ClickException(message) from exc
        except OSError as exc:
            if as_json:
                raise JSONError(one_line(str(exc)), type(exc).__name__) from exc
            raise click.ClickException(one_line(str(exc))) from exc
        except click.ClickException as exc:
            if as_json and not isinstance(exc, JSONError):
                raise JSONError(exc.format_message(), type(exc).__name__, exc.exit_code) from exc
            raise
        except click.exceptions.Abort:
            if as_json:
                raise JSONError("aborted: nothing was changed", "Aborted") from None
            raise click.ClickException("aborted: nothing was changed") from None


def handle_errors(fn: F) -> F:
    """Decorator for a command used outside the ``wikikv`` group: same one-line error mapping."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except WikiKVError as exc:
            raise click.ClickException(one_line(str(exc)) or type(exc).__name__) from exc

    return wrapper  # type: ignore[return-value]


def store_option(fn: F) -> F:
    """Add ``--store URL`` (env WIKIKV_STORE, default ./wikikv-data) as ``store_url``."""
    return click.option(
        "--store",
        "store_url",
        envvar="WIKIKV_STORE",
        default=DEFAULT_STORE_DIR,
        show_default=True,
        metavar="URL",
        help="Store URL: a directory (LMDB), lmdb:///dir[?sync=false], memory://, redis://, "
        "postgresql://. Env: WIKIKV_STORE.",
    )(fn)


def kb_option(fn: F) -> F:
    """Add ``--kb NAME`` (env WIKIKV_KB, default ``default``) as ``kb_name``."""
    return click.option(
        "--kb",
        "kb_name",
        envvar="WIKIKV_KB",
        default=DEFAULT_KB,
        show_default=True,
        metavar="NAME",
        help="Knowledge base name. Env: WIKIKV_KB.",
    )(fn)


def store_options(fn: F) -> F:
    """Add ``--store`` and ``--kb``; the command receives ``store_url`` and ``kb_name``."""
    return store_option(kb_option(fn))


def json_option(fn: F) -> F:
    """Add ``--json``; the command receives ``as_json``."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print machine-readable JSON instead of text."
    )(fn)


def _close_with_command(store: Store) -> None:
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(store.close)


def open_cli_store(store_url: str, *, create: bool = False) -> Store:
    """Open the store for the running command; it is closed when the command ends. Only the
    commands that create stores (``init``, ``build``, ``demo``) pass ``create=True``; for every
    other a URL without a store is StoreNotFound ("create it with `wikikv init`")."""
    store = open_store(store_url, create=create)
    _close_with_command(store)
    return store


def open_kb(store_url: str, kb_name: str) -> KnowledgeBase:
    """Open an existing kb (UnknownKB, with a hint to run ``wikikv init``, when it is missing)."""
    store = open_cli_store(store_url)
    try:
        return store.kb(kb_name)
    except BaseException:
        store.close()
        raise


def trailing_slash(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """Click callback: a directory typed with a trailing slash, as shells complete it
    (``/people/``), names the directory ``/people``. Only one slash goes; ``//`` stays invalid."""
    if len(value) > 1 and value.endswith("/") and not value.endswith("//"):
        return value[:-1]
    return value


def resolve_page(kb: KnowledgeBase, target: str) -> str:
    """The path a user means by ``target``: a path as is (a source path may spell the document
    id with ``/`` unescaped: ``/sources/articles/en/Lu Xun``); otherwise a wiki page's name or
    alias (``鲁迅``), else a document id (``en/Lu Xun``). Several pages with that name: asks
    which on a terminal, else fails listing them."""
    from wikikv.errors import NotFound
    from wikikv.store.paths import escape_segment

    if target.startswith("/"):
        for root in ("/sources/articles/", "/sources/digests/"):
            rest = target[len(root) :]
            if target.startswith(root) and "/" in rest and not kb.exists(target):
                candidate = root + escape_segment(rest)
                if kb.exists(candidate):
                    return candidate
        return target
    hits = list(dict.fromkeys(h.path for h in kb.find_names(target, limit=50, exact=True)))
    pages = [p for p in hits if not p.startswith("/sources/")]
    if not pages:
        # No wiki page by that name: a document id, else a source named so.
        article = "/sources/articles/" + escape_segment(target)
        if kb.exists(article):
            return article
        pages = sorted(hits, key=lambda p: not p.startswith("/sources/articles/"))[:1]
    if not pages:
        raise NotFound(
            f"no page named {target!r} in kb {kb.name!r} (a path starts with '/'; "
            f"try `wikikv search {target}`)"
        )
    if len(pages) == 1:
        return pages[0]
    if sys.stdin.isatty() and sys.stdout.isatty():
        for n, p in enumerate(pages, 1):
            click.echo(f"{n}. {p}", err=True)
        choice = click.prompt(
            f"{len(pages)} pages are named {target!r}; which one",
            type=click.IntRange(1, len(pages)),
            err=True,
        )
        return pages[choice - 1]
    raise AmbiguousName(
        f"{len(pages)} pages are named {target!r}: {', '.join(pages[:10])}; give the path"
    )


def dangling_links(kb: KnowledgeBase, going: set[str]) -> list[tuple[str, str]]:
    """(source page, target) of every link from a page that stays to a path in ``going``: the
    links a delete would leave dangling (compiled links and ``[[/path]]`` wikilinks)."""
    from wikikv.pages_md import wikilinks
    from wikikv.store.records import FileRecord

    if not going:
        return []
    out: list[tuple[str, str]] = []
    paths = [p for p in kb.prefix("/") if p not in going]
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        for path, rec in zip(chunk, kb.get_many(chunk), strict=True):
            if not isinstance(rec, FileRecord):
                continue
            targets = dict.fromkeys(rec.meta.links)
            targets.update(dict.fromkeys(t for t in wikilinks(rec.text) if t.startswith("/")))
            out += [(path, t) for t in targets if t in going]
    return out


def confirm_or_abort(question: str, yes: bool) -> None:
    """Ask ``question`` (default no) unless ``yes``; a refusal or no answer (closed stdin)
    aborts with nothing changed."""
    if yes:
        return
    if not click.confirm(question, default=False, err=True):
        raise click.exceptions.Abort()


def to_builtins(obj: Any) -> Any:
    """Records, dataclasses and plain values as JSON-ready builtins."""
    return msgspec.to_builtins(obj, str_keys=True)


def emit(obj: Any, as_json: bool, human: Callable[[], None] | str | None = None) -> None:
    """Print ``obj``: as JSON for scripts; for people, ``human`` (a string or a callable that
    prints), else a string as is, else the value as readable YAML."""
    if as_json:
        click.echo(json.dumps(to_builtins(obj), ensure_ascii=False, indent=2))
        return
    if callable(human):
        human()
        return
    if isinstance(human, str):
        if human:
            click.echo(human)
        return
    if isinstance(obj, str):
        click.echo(obj)
        return
    click.echo(
        yaml.safe_dump(
            to_builtins(obj), allow_unicode=True, sort_keys=False, default_flow_style=False
        ).rstrip("\n")
    )


def fail(message: str) -> NoReturn:
    """Stop the command with a one-line ``Error: message`` and exit code 1."""
    raise click.ClickException(one_line(message))
