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
one line ``Error: ...`` on stderr and exit code 1 (see :class:`WikiKVGroup`), never a traceback.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click
import msgspec
import yaml

from wikikv.errors import WikiKVError
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import DEFAULT_STORE_DIR, Store, open_store

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_KB = "default"
EXIT_ERROR = 1


def one_line(message: str) -> str:
    """Collapse a message onto one line."""
    return " ".join(message.split())


class WikiKVGroup(click.Group):
    """A click group that turns WikiKV errors (and OS errors) into a one-line ``Error: ...``."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WikiKVError as exc:
            raise click.ClickException(one_line(str(exc)) or type(exc).__name__) from exc
        except OSError as exc:
            raise click.ClickException(one_line(str(exc))) from exc


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


def open_cli_store(store_url: str) -> Store:
    """Open the store for the running command; it is closed when the command ends."""
    store = open_store(store_url)
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
