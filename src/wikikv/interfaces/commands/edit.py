"""Command ``edit``: a page in the person's editor, written back as ``put`` writes it.

The page opens as ``get`` prints it, stamped with its path and version; saved and closed, it is
written with the stamp's check (:mod:`wikikv.interfaces.page_write`). When the write is refused
— the page changed while it was open, or the text does not parse — nothing is written and the
edited text is kept in a file whose name the error gives: an edit is never lost.
"""

from __future__ import annotations

import tempfile

import click

from wikikv import pages_md
from wikikv.errors import InvalidRecord, NotFound, WikiKVError
from wikikv.interfaces.common import emit, json_option, open_kb, resolve_page, store_options
from wikikv.store.records import FileRecord


def register(main: click.Group) -> None:
    main.add_command(edit)


@click.command(short_help="Edit a page in $EDITOR and write it back.")
@store_options
@json_option
@click.argument("path")
@click.option("--force", is_flag=True, help="Write even if the page changed while it was open.")
def edit(store_url: str, kb_name: str, as_json: bool, path: str, force: bool) -> None:
    """Open the page at PATH (or the page a name or alias finds) in your editor ($VISUAL, else
    $EDITOR) as `get` prints it; save and quit to write it back as `put` does (marked as edited
    by hand). If the page changed while it was open, nothing is written and your text is kept
    in a file the error names. Quitting without saving writes nothing.

    \b
    Example:
      wikikv edit "/people/Lu Xun" --kb demo
      wikikv edit 鲁迅 --kb demo
    """
    from wikikv.interfaces.page_write import write_page

    kb = open_kb(store_url, kb_name)
    p = resolve_page(kb, path)
    rec = kb.get(p)
    if rec is None:
        raise NotFound(f"no page at {kb.norm(p)!r} in kb {kb_name!r}")
    if not isinstance(rec, FileRecord):
        raise InvalidRecord(f"{rec.path!r} is a directory: `wikikv edit` edits a page")
    printed = pages_md.render(rec, stamp=True)
    edited = click.edit(printed, extension=".md", require_save=True)
    if edited is None or edited == printed:
        emit({"path": rec.path, "written": False}, as_json, "No change: nothing written")
        return
    try:
        new = write_page(
            kb, rec.path, edited, "your edit", force=force, redo="`wikikv edit` it again"
        )
    except WikiKVError as exc:
        kept = _keep(edited)
        exc.args = (f"{exc}; your edit is kept in {kept}",)
        raise
    emit(
        {"path": new.path, "version": new.version, "written": True},
        as_json,
        f"Wrote {new.path} (version {new.version})",
    )


def _keep(text: str) -> str:
    """Save an edit that could not be written; its file's name."""
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", prefix="wikikv-edit-", suffix=".md", delete=False
    ) as f:
        f.write(text)
    return f.name
