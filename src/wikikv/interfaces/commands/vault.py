"""CLI commands ``export``, ``import`` and ``verify`` — thin twins of :mod:`wikikv.vault`."""

from __future__ import annotations

from pathlib import Path

import click

from wikikv.interfaces.common import emit, fail, json_option, open_cli_store, open_kb, store_options
from wikikv.vault import export_kb, import_source, load_key, verify_export
from wikikv.vault.signing import KEY_ENV

_KEY_FILE = click.option(
    "--key-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"File holding the HMAC key (default: the ${KEY_ENV} environment variable).",
)


def register(main: click.Group) -> None:
    """Add ``export``, ``import`` and ``verify`` to the ``wikikv`` group."""

    @main.command("export")
    @store_options
    @json_option
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(["vault", "json"]),
        default="vault",
        show_default=True,
        help="vault: Obsidian-compatible Markdown folder; json: records.jsonl, one record a line.",
    )
    @click.option("--sign", is_flag=True, help="Add a HMAC-signed manifest of content hashes.")
    @_KEY_FILE
    @click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
    def export_cmd(
        store_url: str,
        kb_name: str,
        as_json: bool,
        fmt: str,
        sign: bool,
        key_file: Path | None,
        dest: Path,
    ) -> None:
        """Write the kb to the new or empty folder DEST (pages with YAML front matter and
        [[wikilinks]], one _index.md per directory, index.md at the root, sources/).

        Example: WIKIKV_EXPORT_KEY=... wikikv export --kb demo --sign ./demo-vault
        """
        key = load_key(key_file) if sign else None
        kb = open_kb(store_url, kb_name)
        report = export_kb(kb, dest, "json" if fmt == "json" else "vault", key=key)
        human = (
            f"exported kb {kb_name!r} to {dest} ({fmt}): {report.pages} pages, {report.dirs} "
            f"directories, {report.redirects} redirects, {report.bytes / 1e6:.1f} MB in "
            f"{report.seconds:.2f} s"
            + (
                f"\nsigned ({report.signature[:16]}…); check with `wikikv verify {dest}`"
                if sign
                else ""
            )
            + f"\nnote: {report.note}"
        )
        emit(report.to_dict(), as_json, human)

    @main.command("import")
    @store_options
    @json_option
    @click.argument("src", type=click.Path(exists=True, path_type=Path))
    def import_cmd(store_url: str, kb_name: str, as_json: bool, src: Path) -> None:
        """Read a vault folder, a .zip of one, or a JSON-lines export into the kb (created when
        missing). Everything is checked first: a refused import writes nothing.

        Example: wikikv import --kb copy ./demo-vault
        """
        store = open_cli_store(store_url)
        report = import_source(store, kb_name, src)
        human = (
            f"imported {src} ({report.format}) into kb {kb_name!r}"
            + (" (new)" if report.created_kb else "")
            + f": {report.pages} pages, {report.dirs} directories, {report.redirects} "
            f"redirects in {report.seconds:.2f} s"
            + (f"\nskipped {len(report.skipped)} non-page files" if report.skipped else "")
            + f"\nnote: {report.note}"
        )
        emit(report.to_dict(), as_json, human)

    @main.command("verify")
    @store_options
    @json_option
    @_KEY_FILE
    @click.argument("dest", type=click.Path(exists=True, file_okay=False, path_type=Path))
    @click.pass_context
    def verify_cmd(
        ctx: click.Context,
        store_url: str,
        kb_name: str,
        as_json: bool,
        key_file: Path | None,
        dest: Path,
    ) -> None:
        """Check a signed export against its manifest; names every changed, added or missing
        file and exits 1 when anything differs. The store is not opened; --kb, when given,
        must be the kb the manifest was signed for.

        Example: WIKIKV_EXPORT_KEY=... wikikv verify --kb demo ./demo-vault
        """
        verified = verify_export(dest, load_key(key_file))
        source = ctx.get_parameter_source("kb_name")
        if source is not click.core.ParameterSource.DEFAULT and verified.kb != kb_name:
            fail(f"{dest} is a signed export of kb {verified.kb!r}, not {kb_name!r}")
        human = (
            f"OK: {verified.files} files match the manifest signed by {verified.signer!r} "
            f"({verified.meaning}) for kb {verified.kb!r}"
        )
        emit(verified, as_json, human)
