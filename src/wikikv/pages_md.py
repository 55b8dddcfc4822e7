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
``summary``, ``sources``, ``type``); versions and timestamps belong to the store. Front matter
that is not a YAML mapping, an unknown field or a value of the wrong type is refused with
:class:`~wikikv.errors.InvalidRecord` — never guessed at. The front matter is optional: a file
that does not start with a ``---`` line is all body.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, get_args

import yaml

from wikikv.errors import InvalidRecord
from wikikv.store.records import DirRecord, FileKind, FileMeta, FileRecord

FIELDS = ("title", "aliases", "tags", "summary", "sources", "type")
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
    if not fields:
        return ""
    dumped: str = yaml.safe_dump(
        fields, allow_unicode=True, sort_keys=False, default_flow_style=None, width=100
    )
    return dumped


def render(record: FileRecord) -> str:
    """``---\\nYAML\\n---\\n\\ntext``: the page as a Markdown file; :func:`parse` reads it back."""
    return f"{_FENCE}\n{_dump(front_matter(record.meta))}{_FENCE}\n\n{record.text}"


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


def meta_from(fields: dict[str, Any], origin: str = "page") -> FileMeta:
    """Build a FileMeta from front matter fields, refusing unknown fields and wrong types."""
    unknown = sorted(str(k) for k in fields if k not in FIELDS)
    if unknown:
        raise InvalidRecord(
            f"{origin}: unknown front matter field(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(FIELDS)}"
        )
    meta = FileMeta()
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


def wikilinks(text: str) -> list[str]:
    """The targets of ``[[target]]``, ``[[target|label]]`` and ``[[target#section]]`` links, in
    order of first appearance."""
    seen: dict[str, None] = {}
    for match in _WIKILINK.finditer(text):
        target = match.group(1).strip()
        if target:
            seen.setdefault(target, None)
    return list(seen)
