"""Commands ``serve`` (the HTTP API) and ``keys create|list|revoke`` (its API keys)."""

from __future__ import annotations

import json

import click

from wikikv.interfaces.common import emit, json_option, open_kb, store_option, store_options


def register(main: click.Group) -> None:
    main.add_command(serve)
    main.add_command(keys)


@click.command(short_help="Serve the HTTP API (OpenAPI at /openapi.json).")
@store_option
@json_option
@click.option(
    "--kb",
    "kbs",
    multiple=True,
    metavar="NAME",
    help="Serve only this kb (repeatable; default: every kb of the store).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", type=int, default=8765, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes (each opens the store).",
)
@click.option(
    "--llm",
    type=click.Choice(["offline", "openai"]),
    default="offline",
    show_default=True,
    envvar="WIKIKV_LLM",
    help="Provider of ask and compile jobs (openai: WIKIKV_LLM_BASE_URL / _MODEL).",
)
@click.option("--read-only", is_flag=True, help="Refuse every write and compile job.")
@click.option(
    "--max-body",
    type=int,
    default=8 << 20,
    show_default=True,
    help="Largest request body in bytes (413 above).",
)
@click.option(
    "--cache",
    is_flag=True,
    help="Serve through the cache tiers: L1 in each worker (root and dimensions pinned).",
)
@click.option(
    "--l2",
    "l2_url",
    default=None,
    metavar="REDIS-URL",
    help="With --cache: a shared L2 cache in Redis.",
)
@click.option("--log-level", default="warning", show_default=True)
def serve(
    store_url: str,
    as_json: bool,
    kbs: tuple[str, ...],
    host: str,
    port: int,
    workers: int,
    llm: str,
    read_only: bool,
    max_body: int,
    cache: bool,
    l2_url: str | None,
    log_level: str,
) -> None:
    """Serve every kb of the store over HTTP: reads, search, streamed nav, ask, writes and
    compile jobs, with API keys, path allow-lists and ACCESS records. Without any key
    configured, the server binds loopback only and needs no key.

    Example: wikikv serve --port 8765 --workers 2
    """
    from wikikv.interfaces.http.context import ServerConfig
    from wikikv.interfaces.http.server import auth_notice, run

    notice = auth_notice(store_url, host)
    url = f"http://{host}:{port}"
    if as_json:
        info = {"url": url, "auth": notice, "kbs": list(kbs), "workers": workers}
        click.echo(json.dumps(info), err=True)
    else:
        click.echo(notice, err=True)
        click.echo(f"WikiKV API on {url} (docs: /docs, OpenAPI: /openapi.json)", err=True)
    config = ServerConfig(
        max_body_bytes=max_body,
        llm=llm,
        allow_write=not read_only,
        kbs=list(kbs),
        cache=cache or bool(l2_url),
        l2_url=l2_url,
    )
    run(store_url, host, port, workers, config, log_level)


@click.group(short_help="Create, list and revoke API keys.")
def keys() -> None:
    """API keys of the HTTP API and the MCP server: per kb, stored hashed, with scopes
    (read < write < admin) and an optional allow-list of path prefixes.

    Example: wikikv keys create --kb demo --name agent --scope read --prefix /people
    """


@keys.command("create", short_help="Create a key (its token is shown once).")
@store_options
@json_option
@click.option("--name", required=True, help="Who or what uses the key.")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    default=("read",),
    show_default=True,
    type=click.Choice(["read", "write", "admin"]),
    help="Repeatable.",
)
@click.option(
    "--prefix",
    "prefixes",
    multiple=True,
    help="Allow only paths under this prefix (repeatable; default: the whole kb).",
)
def keys_create(
    store_url: str,
    kb_name: str,
    as_json: bool,
    name: str,
    scopes: tuple[str, ...],
    prefixes: tuple[str, ...],
) -> None:
    """Create an API key for the kb and print its token — the only time it is shown.

    Example: wikikv keys create --kb demo --name reader --scope read
    """
    from wikikv.store.apikeys import create_key

    kb = open_kb(store_url, kb_name)
    made = create_key(kb, name, list(scopes), list(prefixes))
    emit(
        {**made.key.public(), "token": made.token},
        as_json,
        f"Created key {made.key.id} ({made.key.name}) for kb {kb.name!r}, scopes "
        f"{', '.join(made.key.scopes)}"
        + (f", paths {', '.join(made.key.prefixes)}" if made.key.prefixes else "")
        + f"\nToken (shown once, keep it secret):\n{made.token}",
    )


@keys.command("list", short_help="List a kb's keys (never their secrets).")
@store_options
@json_option
def keys_list(store_url: str, kb_name: str, as_json: bool) -> None:
    """List the kb's API keys: id, name, scopes, path allow-list, creation.

    Example: wikikv keys list --kb demo
    """
    from wikikv.store.apikeys import list_keys

    found = [k.public() for k in list_keys(open_kb(store_url, kb_name))]
    lines = [
        f"{k['id']}  {k['name']}  [{', '.join(k['scopes'])}]"  # type: ignore[arg-type]
        + (f"  paths {', '.join(k['prefixes'])}" if k["prefixes"] else "")  # type: ignore[arg-type]
        for k in found
    ]
    emit(found, as_json, "\n".join(lines) or "(no keys)")


@keys.command("revoke", short_help="Revoke a key at once.")
@store_options
@json_option
@click.argument("key_id")
def keys_revoke(store_url: str, kb_name: str, as_json: bool, key_id: str) -> None:
    """Revoke the key KEY_ID: the next request that shows it is refused (401).

    Example: wikikv keys revoke --kb demo 3f2a9c1d07be
    """
    from wikikv.store.apikeys import revoke_key

    key = revoke_key(open_kb(store_url, kb_name), key_id)
    emit(key.public(), as_json, f"Revoked key {key.id} ({key.name})")
