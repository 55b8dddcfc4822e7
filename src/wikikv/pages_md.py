"""Pages as Markdown with YAML front matter — the format ``wikikv get`` prints and ``wikikv put``
reads, and the format of the bundled sample wiki.

A page file looks like::

    ---
    title: Lu Xun
    aliases: [Zhou Shuren]
    tags: [writer]
    summary: Chinese writer.
    sources: [https://example.org]
    type: entity
    ---

    Body text with [[wikilinks]].

Only the fields people edit appear in the front matter (``title``, ``aliases``, ``tags``,
``summary``, ``sources``, ``type``); versions and timestamps belong to the store. Any other field
(Obsidian's ``created``, ``cssclass``, ...) is kept as given in the record's ``meta.extra`` and
printed back unchanged. Front matter that is not a YAML mapping, or a known field with a value of
the wrong type, is refused with :class:`~wikikv.errors.InvalidRecord` — never guessed at. The front
matter is optional: a file that does not start with a ``---`` line is all body, and a page with no
fields prints without an empty ``---`` block.

**One block.** A compiled page's stored body opens with its own LLM-Wiki block (``type``,
``created``, ``updated``, ``aliases``, ``tags``). :func:`render` prints a single block: the
record's fields, then the body block's other fields; the body block's copies of ``aliases`` and
``tags`` and its housekeeping (``type`` = dimension, ``created``, ``updated``) are not repeated.
:func:`page_for_put` turns what a person wrote back into a record: the body block is put back
(byte for byte when its values did not change), compiler metadata (links, confidence,
compiled_by, ...) is carried over from the current record, and the page is marked as edited by
hand (``meta.edited_by``) when its text or fields changed — so ``put`` of what ``get`` printed
changes nothing but the version.

**Where and when it was read.** ``wikikv get`` ends the block with one line of housekeeping,
``wikikv: {path: /people/Lu Xun, version: 3}`` (:func:`render` with ``stamp``), so that ``put``
of the edited file can tell the page changed since it was printed (someone else's edit, a
build) or that it is being written to another path than the one it came from (a page found by
its name lives elsewhere) — instead of overwriting the other change, or making a second page,
without a word. :func:`edit_stamp` reads the line back; it is never stored (``wikikv`` is a
reserved field name).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

import yaml

from wikikv.errors import InvalidRecord
from wikikv.store.records import DirRecord, FileKind, FileMeta, FileRecord

FIELDS = ("title", "aliases", "tags", "summary", "sources", "type")
STAMP = "wikikv"  # the housekeeping line `get` prints and `put` checks: never a stored field
# Keys of a compiled body's own block that the printed block never repeats: housekeeping the
# compiler owns (``type`` there is the dimension, not the record kind) and the record's copies.
_BODY_HOUSEKEEPING = ("type", "created", "updated")
_BODY_COPIES = ("aliases", "tags", "title", "summary", "sources")
KINDS: tuple[str, ...] = get_args(FileKind)
_LIST_FIELDS = ("aliases", "tags", "sources")
_FENCE = "---"
_WIKILINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")


def front_matter(meta: FileMeta) -> dict[str, Any]:
    """The editable fields of ``meta`` that are set, in a stable order."""
    out: dict[str, Any] = {}
    if meta.title:
        out["title"] = meta.title
    for name in ("aliases", "tags"):
        values = getattr(meta, name)
        if values:
            out[name] = list(values)
    if meta.summary:
        out["summary"] = meta.summary
    if meta.sources:
        out["sources"] = list(meta.sources)
    if meta.kind and meta.kind != "page":
        out["type"] = meta.kind
    return out


def _dump(fields: dict[str, Any]) -> str:
    """One ``key: value`` line per field (lists inline: ``tags: [a, b]``). Dumped field by
    field: a mapping of scalars alone would otherwise come out as one ``{...}`` line."""
    out = []
    for key, value in fields.items():
        nested = isinstance(value, (list, dict))
        dumped: str = yaml.safe_dump(
            {key: value},
            allow_unicode=True,
            sort_keys=False,
            default_flow_style=None if nested else False,
            width=100,
        )
        out.append(dumped)
    return "".join(out)


def body_block(text: str) -> tuple[dict[str, Any], str, str]:
    """A stored body's own leading front-matter block: (fields, rest of the body, the block's
    exact text). A body without one — or whose ``---`` lines do not hold a YAML mapping — gives
    ``({}, text, "")``."""
    if not text.startswith(_FENCE + "\n"):
        return {}, text, ""
    try:
        fields, rest = split(text)
    except InvalidRecord:
        return {}, text, ""
    if not fields:
        return {}, text, ""
    raw = text[: len(text) - len(rest)]
    return fields, rest, raw


def printed_fields(record: FileRecord) -> tuple[dict[str, Any], str]:
    """The one front-matter mapping :func:`render` prints for ``record``, and the body after
    it (the stored body without its own block)."""
    fields = front_matter(record.meta)
    for key, value in record.meta.extra.items():
        fields.setdefault(key, value)
    own, rest, _ = body_block(record.text)
    for key, value in own.items():
        key = str(key)
        if key in _BODY_HOUSEKEEPING or key in fields:
            continue
        if key in _BODY_COPIES:
            continue  # a copy that disagrees with the record: the record's value is the truth
        fields[key] = _plain(value)
    return fields, rest


def render(record: FileRecord, stamp: bool = False) -> str:
    """The page as a Markdown file with one front-matter block (none when the page has no
    fields and no ``stamp``); :func:`parse` / :func:`page_for_put` read it back. ``stamp``: end
    the block with the page's path and version (see the module docstring)."""
    fields, rest = printed_fields(record)
    fields.pop(STAMP, None)
    if stamp:
        fields[STAMP] = {"path": record.path, "version": record.version}
    if not fields and not rest.startswith(_FENCE):
        return rest
    return f"{_FENCE}\n{_dump(fields)}{_FENCE}\n\n{rest}"


@dataclass(frozen=True)
class EditStamp:
    """Where a printed page was read from, and at which version."""

    path: str
    version: int


def edit_stamp(source: str, origin: str = "page") -> EditStamp | None:
    """The ``wikikv: {path, version}`` line of a page ``get`` printed, or None when the file
    has none (a page written by hand); a malformed one is refused."""
    fields, _ = split(source, origin)
    if STAMP not in fields:
        return None
    value = fields[STAMP]
    path = value.get("path") if isinstance(value, dict) else None
    version = value.get("version") if isinstance(value, dict) else None
    if (
        not isinstance(path, str)
        or not isinstance(version, int)
        or isinstance(version, bool)
        or version < 0
        or set(value) != {"path", "version"}
    ):
        raise InvalidRecord(
            f"{origin}: front matter field {STAMP!r} is housekeeping `wikikv get` prints, "
            f"{{path: /a/page, version: N}}, not {value!r}; delete the line to write the file "
            "as a new page"
        )
    return EditStamp(path, version)


def render_dir(record: DirRecord) -> str:
    """A directory as Markdown: its description, with its first listing page as front matter."""
    fields: dict[str, Any] = {"type": "directory"}
    if record.sub_dirs:
        fields["sub_dirs"] = list(record.sub_dirs)
    if record.files:
        fields["files"] = list(record.files)
    if record.meta.pages:
        fields["continuation_pages"] = record.meta.pages
    return f"{_FENCE}\n{_dump(fields)}{_FENCE}\n\n{record.text}"


def split(source: str, origin: str = "page") -> tuple[dict[str, Any], str]:
    """Split a Markdown file into its front matter mapping and its body."""
    lines = source.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != _FENCE:
        return {}, source
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == _FENCE:
            head = "".join(lines[1:i])
            body = "".join(lines[i + 1 :])
            break
    else:
        raise InvalidRecord(f"{origin}: front matter opened with '---' is never closed")
    if body.startswith("\r\n"):
        body = body[2:]
    elif body.startswith("\n"):
        body = body[1:]
    try:
        data = yaml.safe_load(head) if head.strip() else {}
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise InvalidRecord(f"{origin}: front matter is not valid YAML: {detail}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidRecord(
            f"{origin}: front matter must be a YAML mapping (key: value lines), "
            f"not a {type(data).__name__}"
        )
    return data, body


def _as_str(value: object, field: str, origin: str) -> str:
    if isinstance(value, str):
        return value
    # YAML reads `title: 1984` as an int and `2020-01-01` as a date; keep what was written.
    if isinstance(value, (int, float, dt.date)) and not isinstance(value, bool):
        return str(value)
    raise InvalidRecord(f"{origin}: front matter field {field!r} must be text, not {value!r}")


def _as_list(value: object, field: str, origin: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidRecord(
            f"{origin}: front matter field {field!r} must be a list (e.g. [a, b]), not {value!r}"
        )
    return [_as_str(v, field, origin) for v in value]


def _plain(value: Any) -> Any:
    """A YAML value as plain data the record codec stores (dates as ISO text)."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def meta_from(fields: dict[str, Any], origin: str = "page") -> FileMeta:
    """Build a FileMeta from front matter fields, refusing wrong types of known fields and
    keeping unknown ones in ``meta.extra``."""
    meta = FileMeta()
    meta.extra = {str(k): _plain(v) for k, v in fields.items() if k not in FIELDS and k != STAMP}
    if fields.get("title") is not None:
        meta.title = _as_str(fields["title"], "title", origin)
    if fields.get("summary") is not None:
        meta.summary = _as_str(fields["summary"], "summary", origin)
    for name in _LIST_FIELDS:
        setattr(meta, name, _as_list(fields.get(name), name, origin))
    if fields.get("type") is not None:
        kind = _as_str(fields["type"], "type", origin)
        if kind not in KINDS:
            raise InvalidRecord(
                f"{origin}: front matter type {kind!r} is not one of {', '.join(KINDS)}"
            )
        meta.kind = kind
    return meta


def parse(source: str, origin: str = "page") -> tuple[str, FileMeta]:
    """Read a Markdown page: its body text and the FileMeta its front matter describes."""
    fields, body = split(source, origin)
    return body, meta_from(fields, origin)


# Compiler-written fields a person's put carries over from the current record.
_CARRIED = (
    "confidence",
    "last_verified",
    "lint_status",
    "compiled_by",
    "prompt_version",
    "fingerprint",
    "created_at",
    "compiled_sig",
)


def page_for_put(
    source: str,
    current: FileRecord | None,
    editor: str,
    origin: str = "page",
    owned_sig: Callable[[str], str] | None = None,
) -> tuple[str, FileMeta]:
    """The text and meta to store when a person writes ``source`` (what :func:`render` prints,
    edited) over ``current``: see the module docstring. ``owned_sig`` hashes the
    compiler-owned part of a page; it is recorded the first time a compiled page is edited."""
    body, meta = parse(source, origin)
    if current is None:
        meta.edited_by, meta.edited_at = editor, time.time()
        meta.links = [t for t in wikilinks(body) if t.startswith("/")]
        return body, meta
    own, _, raw = body_block(current.text)
    if own and not body_block(body)[0]:
        block: dict[str, Any] = {}
        for key, value in own.items():
            key = str(key)
            if key in ("aliases", "tags"):
                block[key] = list(getattr(meta, key))
            elif key in _BODY_HOUSEKEEPING or key in _BODY_COPIES:
                block[key] = value
            elif key in meta.extra:
                block[key] = meta.extra.pop(key)
        if block == {str(k): v for k, v in own.items()}:
            body = raw + body
        else:
            body = f"{_FENCE}\n{_dump(_flow(block))}{_FENCE}\n{body}"
    old = current.meta
    for name in _CARRIED:
        setattr(meta, name, getattr(old, name))
    meta.links = list(old.links)
    for target in wikilinks(body):
        if (
            target.startswith("/")
            and not target.startswith("/sources/")
            and target not in meta.links
        ):
            meta.links.append(target)
    changed = (
        body != current.text or front_matter(meta) != front_matter(old) or (meta.extra != old.extra)
    )
    meta.edited_by, meta.edited_at = old.edited_by, old.edited_at
    if changed:
        if not old.edited_by and old.compiled_by and owned_sig is not None:
            meta.compiled_sig = owned_sig(current.text)
        meta.edited_by, meta.edited_at = editor, time.time()
    return body, meta


def _flow(block: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in block.items()}


def wikilinks(text: str) -> list[str]:
    """The targets of ``[[target]]``, ``[[target|label]]`` and ``[[target#section]]`` links, in
    order of first appearance."""
    seen: dict[str, None] = {}
    for match in _WIKILINK.finditer(text):
        target = match.group(1).strip()
        if target:
            seen.setdefault(target, None)
    return list(seen)
