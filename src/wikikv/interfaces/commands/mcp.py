"""Command ``mcp``: the MCP server over stdio (default) or streamable HTTP."""

from __future__ import annotations

import os

import click

from wikikv.interfaces.common import json_option, store_option


def register(main: click.Group) -> None:
    main.add_command(mcp)


@click.command(short_help="Serve the kbs to agents over MCP (stdio or HTTP).")
@store_option
@json_option
@click.option(
    "--kb",
    "kb_name",
    envvar="WIKIKV_KB",
    default=None,
    metavar="NAME",
    help="Default kb of the tools (a key's own kb wins). Env: WIKIKV_KB.",
)
@click.option("--http", "over_http", is_flag=True, help="Streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8766, show_default=True)
@click.option(
    "--allow-write", is_flag=True, help="Offer wiki_write to callers whose key has the write scope."
)
@click.option(
    "--llm",
    type=click.Choice(["offline", "openai"]),
    default="offline",
    show_default=True,
    envvar="WIKIKV_LLM",
    help="Provider of wiki_ask.",
)
def mcp(
    store_url: str,
    as_json: bool,
    kb_name: str | None,
    over_http: bool,
    host: str,
    port: int,
    allow_write: bool,
    llm: str,
) -> None:
    """Serve the store's kbs to MCP clients: tools wiki_search, wiki_read, wiki_ls, wiki_nav
    (budgeted) and wiki_ask (wiki_write with --allow-write and a write key), pages as
    resources wikikv://KB/PATH. Over stdio the process uses WIKIKV_API_KEY when set (else the
    local user); over --http every request shows its key, as with `wikikv serve`.

    Example: wikikv mcp --kb demo
    """
    import json

    from wikikv.interfaces.common import open_cli_store
    from wikikv.interfaces.mcp.server import MCPConfig, build_server

    config = MCPConfig(
        default_kb=kb_name,
        allow_write=allow_write,
        stdio_token=os.environ.get("WIKIKV_API_KEY") or None,
        llm=llm,
    )
    if not over_http:
        store = open_cli_store(store_url)
        build_server(store, config).run("stdio")
        return
    import uvicorn

    from wikikv.interfaces.http.server import auth_notice
    from wikikv.interfaces.mcp.http import mcp_http_app

    notice = auth_notice(store_url, host)
    url = f"http://{host}:{port}/mcp"
    info = {"url": url, "auth": notice}
    click.echo(json.dumps(info) if as_json else f"{notice}\nWikiKV MCP on {url}", err=True)
    store = open_cli_store(store_url)
    uvicorn.run(mcp_http_app(store, config, host), host=host, port=port, log_level="warning")
