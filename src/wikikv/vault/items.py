"""What an export carries per record, and its two spellings: a Markdown file with YAML front
matter (vault) and one JSON object (JSON lines).

Everything in a page's :class:`~wikikv.store.records.FileMeta` travels except ``version`` — an
import writes fresh records, so versions restart at 1 and update times are the import's. A
directory carries its description; its listing is rebuilt from the files beside it. A redirect
carries its target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import yaml

from wikikv.store.records import DirRecord, FileMeta, FileRecord, RedirectRecord, decode

ItemKind = Literal["dir", "page", "redirect"]
FENCE = "---"
DIRECTORY_TYPE = "directory"
REDIRECT_TYPE = "redirect"
# Obsidian shows these first; the rest of FileMeta follows in declaration order.
_FIRST = ("title", "aliases", "tags", "summary", "sources", "kind")
_SKIPPED = ("version",)
_BLANK = FileMeta()
_META_FIELDS: tuple[str, ...] = tuple(
    f for f in _FIRST + FileMeta.__struct_fields__ if f not in _SKIPPED
)
META_FIELDS: tuple[str, ...] = tuple(dict.fromkeys(_META_FIELDS))
_FRONT_NAME = {"kind": "type"}  # Obsidian's and LLM-Wiki's word for the page kind
_FIELD_OF = {_FRONT_NAME.get(f, f): f for f in META_FIELDS}
# libyaml's C parser and emitter when PyYAML was built with it (ten times faster: YAML is most of
# an import's time), the pure-Python ones otherwise; both are the safe variants.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass
class Item:
    """One exported record."""

    kind: ItemKind
    path: str
    text: str = ""
    meta: FileMeta | None = None  # pages only
    target: str = ""  # redirects only


def item_of(record: DirRecord | FileRecord | RedirectRecord) -> Item:
    if isinstance(record, DirRecord):
        return Item("dir", record.path, record.text)
    if isinstance(record, FileRecord):
        return Item("page", record.path, record.text, record.meta)
    return Item("redirect", record.path, target=record.target)


def meta_fields(meta: FileMeta) -> dict[str, Any]:
    """The set (non-default) fields of ``meta`` as front-matter keys, without the version."""
    out: dict[str, Any] = {}
    for name in META_FIELDS:
        value = getattr(meta, name)
        if value != getattr(_BLANK, name):
            out[_FRONT_NAME.get(name, name)] = msgspec.to_builtins(value)
    return out


def meta_from_fields(fields: dict[str, Any]) -> FileMeta:
    """Front-matter keys back into a FileMeta; an unknown key or a wrong type raises ValueError."""
    unknown = [k for k in fields if k not in _FIELD_OF]
    if unknown:
        raise ValueError(
            f"unknown front-matter field(s) {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(_FIELD_OF)})"
        )
    try:
        return msgspec.convert({_FIELD_OF[k]: v for k, v in fields.items()}, FileMeta)
    except msgspec.ValidationError as exc:
        raise ValueError(f"front matter: {exc}") from exc


# ---------------------------------------------------------------------- Markdown spelling
def _dump(fields: dict[str, Any]) -> str:
    if not fields:
        return ""
    text: str = yaml.dump(
        fields,
        Dumper=_DUMPER,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1000,
    )
    return text


def to_markdown(item: Item) -> str:
    """The file text of ``item``: ``---`` YAML ``---``, a blank line, then the body verbatim."""
    if item.kind == "page":
        assert item.meta is not None
        fields = meta_fields(item.meta)
        body = item.text
    elif item.kind == "dir":
        fields = {"type": DIRECTORY_TYPE}
        body = item.text
    else:
        fields = {"type": REDIRECT_TYPE, "target": item.target}
        body = f"Moved to [[{item.target}]].\n"
    return f"{FENCE}\n{_dump(fields)}{FENCE}\n\n{body}"


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front-matter mapping, body) of a Markdown file; ValueError names what is broken.

    A file that does not open with a ``---`` line is all body. The blank line after the closing
    fence is layout, not body."""
    opening = FENCE + "\n"
    if not text.startswith(opening):
        return {}, text
    rest = text[len(opening) :]
    if rest.startswith(opening) or rest == FENCE:
        raw, body = "", rest[len(opening) :]
    else:
        close = rest.find("\n" + opening)
        if close != -1:
            raw, body = rest[: close + 1], rest[close + 1 + len(opening) :]
        elif rest.endswith("\n" + FENCE):
            raw, body = rest[: -len(FENCE)], ""
        else:
            raise ValueError("front matter opens with '---' but has no closing '---' line")
    try:
        loaded = yaml.load(raw, Loader=_LOADER) if raw.strip() else {}
    except yaml.YAMLError as exc:
        raise ValueError(f"front matter is not valid YAML: {' '.join(str(exc).split())}") from exc
    if not isinstance(loaded, dict):
        raise ValueError(f"front matter must be a YAML mapping, got {type(loaded).__name__}")
    if body.startswith("\n"):
        body = body[1:]
    return {str(k): v for k, v in loaded.items()}, body


def from_markdown(path: str, text: str, *, is_dir: bool) -> Item:
    """Parse one vault file standing for ``path``; ValueError names what is broken."""
    fields, body = split_front_matter(text)
    declared = fields.get("type")
    if is_dir:
        if declared not in (None, DIRECTORY_TYPE) or set(fields) - {"type"}:
            raise ValueError(
                f"a directory index takes only 'type: {DIRECTORY_TYPE}' as front matter"
            )
        return Item("dir", path, body)
    if declared == DIRECTORY_TYPE:
        raise ValueError("'type: directory' belongs in a folder's _index.md, not in a page")
    if declared == REDIRECT_TYPE:
        target = fields.get("target")
        if set(fields) - {"type", "target"} or not isinstance(target, str) or not target:
            raise ValueError("a redirect takes exactly 'type: redirect' and 'target: /path'")
        return Item("redirect", path, target=target)
    return Item("page", path, body, meta_from_fields(fields))


# ---------------------------------------------------------------------- JSON-lines spelling
class JsonItem(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    kind: ItemKind
    path: str
    text: str = ""
    meta: dict[str, Any] = msgspec.field(default_factory=dict)
    target: str = ""


_json_enc = msgspec.json.Encoder()
_json_dec = msgspec.json.Decoder(JsonItem)


def to_json_line(item: Item) -> bytes:
    meta = meta_fields(item.meta) if item.meta is not None else {}
    return _json_enc.encode(JsonItem(item.kind, item.path, item.text, meta, item.target)) + b"\n"


def from_json_line(line: bytes) -> Item:
    try:
        raw = _json_dec.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"not a record line: {exc}") from exc
    if raw.kind == "page":
        return Item("page", raw.path, raw.text, meta_from_fields(raw.meta))
    if raw.meta:
        raise ValueError(f"a {raw.kind} record carries no meta")
    if raw.kind == "redirect":
        if not raw.target:
            raise ValueError("a redirect record needs a target")
        return Item("redirect", raw.path, target=raw.target)
    return Item("dir", raw.path, raw.text)


def record_item(data: bytes) -> Item | None:
    """The item of a stored node record's bytes (None for listing continuation pages)."""
    rec = decode(data)
    if isinstance(rec, (DirRecord, FileRecord, RedirectRecord)):
        return item_of(rec)
    return None
