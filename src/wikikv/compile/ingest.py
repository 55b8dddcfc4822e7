"""Ingest: a folder, a JSONL file or a JSON array → cleaned :class:`Document` objects.

Every offset the wiki stores refers to the *stored* article text, which is the cleaned text made
here (fences, full-width indentation, hard line wraps and inline footnote markers removed). The
raw input's fingerprint is kept beside it so an unchanged document is skipped on the next run.

A file that cannot be ingested (binary, undecodable, empty, huge) becomes an :class:`IngestIssue`
and the rest of the corpus goes on.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from wikikv.compile.encoding import decode_text
from wikikv.compile.markdown_text import plain_text
from wikikv.compile.note_titles import read_note, written_title
from wikikv.errors import CorpusError

MAX_DOC_BYTES = 8 * 1024 * 1024
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm")
MARKDOWN_SUFFIXES = (".md", ".markdown")
# A title written with HTML character references, as HotpotQA's are ("Mitchells &amp; Butlers",
# "The &quot;Human&quot; Factor"): the page is named by the characters they stand for.
_CHAR_REF = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|amp|quot|lt|gt|apos);")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NOT_ASCII_LETTER = re.compile(r"[^A-Za-z]+")
_FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")
# Inline footnote markers: 〔１〕 〔12〕 [3] after text, and the parenthesized digits ⑴..⒇.
_INLINE_NOTE = re.compile(r"〔[0-9０-９]{1,3}〕|⑴|⑵|⑶|⑷|⑸|⑹|⑺|⑻|⑼|⑽|⑾|⑿|⒀|⒁|⒂|⒃|⒄|⒅|⒆|⒇")
_LINE_NOTE = re.compile(r"^(〔[0-9０-９]{1,3}〕|[⑴-⒇])")
_CJK_END = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef\u2018-\u201f\u2026\u2014]")
_TERMINAL = '。！？!?；;」』”"’…：:）)'


@dataclass
class Document:
    """One cleaned document. ``id`` is stable (the corpus's own id, else the path relative to
    the corpus root without extension — see :func:`read_corpus`); ``group`` is the folder for
    folder corpora ('' otherwise)."""

    id: str
    title: str
    text: str
    fingerprint: str
    lang: str = "en"
    group: str = ""
    origin: str = ""
    encoding: str = ""  # how a non-UTF-8 input was decoded ("decoded as cp1252 (...)")


@dataclass
class IngestIssue:
    """A document that was reported and skipped."""

    source: str
    reason: str


@dataclass
class IngestResult:
    documents: list[Document] = field(default_factory=list)
    issues: list[IngestIssue] = field(default_factory=list)
    read: int = 0
    # Inputs that were not UTF-8: the detector's guess, reported (``reason`` says what was used).
    encodings: list[IngestIssue] = field(default_factory=list)


def fingerprint(*parts: str | bytes) -> str:
    h = hashlib.blake2b(digest_size=12)
    for p in parts:
        h.update(p.encode("utf-8") if isinstance(p, str) else p)
        h.update(b"\x00")
    return h.hexdigest()


def detect_lang(text: str) -> str:
    """'zh' when Han characters make up a large share of the letters, else 'en'."""
    sample = text[:4000]
    han = len(_HAN.findall(sample))
    if han == 0:
        return "en"
    # counted in C: a loop over the characters in Python was ~2 % of an English build
    latin = len(_NOT_ASCII_LETTER.sub("", sample))
    return "zh" if han * 2 >= latin else "en"


def decode_bytes(data: bytes, source: str) -> str:
    """UTF-8 (with or without BOM), else the detected encoding (:mod:`.encoding`); CorpusError
    for binary bytes or an encoding that cannot be told."""
    return decode_text(data, source).text


# An article page is the document's cleaned text plus a small meta (title, a 200-character
# summary, fingerprint, folder tag): this much of a record is kept for the meta.
RECORD_HEADROOM = 64 * 1024


def drop_oversized(
    docs: list[Document], max_record_bytes: int
) -> tuple[list[Document], list[IngestIssue]]:
    """Split off the documents whose text cannot fit one page record (``max_record_bytes``, the
    store's cap) and report each: a build skips them instead of failing on them."""
    limit = max_record_bytes - RECORD_HEADROOM
    kept: list[Document] = []
    issues: list[IngestIssue] = []
    for doc in docs:
        size = len(doc.text) if doc.text.isascii() else len(doc.text.encode("utf-8"))
        if size > limit:
            reason = (
                f"oversized: {size:,} bytes of text after cleaning, a page holds at most "
                f"{limit:,} (store record cap {max_record_bytes:,}); skipped"
            )
            issues.append(IngestIssue(doc.origin or doc.id, reason))
        else:
            kept.append(doc)
    return kept, issues


def _is_cjk_boundary(left: str, right: str) -> bool:
    return bool(left and right and (_CJK_END.match(left[-1]) or _CJK_END.match(right[0])))


def clean_text(raw: str) -> str:
    """Offset-safe cleaning: the result *is* the stored article text.

    Removes a code fence wrapping the whole document, leading indentation (full-width or ASCII),
    inline footnote markers (〔２〕, ⑴ — the notes themselves are kept), and joins hard-wrapped
    lines of a paragraph (without a space between CJK characters)."""
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _FENCE.match(lines[0]):
        lines.pop(0)
        if lines and _FENCE.match(lines[-1]):
            lines.pop()
    paragraphs: list[str] = []
    cur = ""
    for raw_line in lines:
        if _FENCE.match(raw_line):
            continue
        line = raw_line.strip(" \t\u3000\u00a0")
        if not line:
            if cur:
                paragraphs.append(cur)
                cur = ""
            continue
        indent = len(raw_line) - len(raw_line.lstrip(" \t\u3000"))
        starts_new = not cur or bool(_LINE_NOTE.match(line))
        if not starts_new:
            if _is_cjk_boundary(cur, line):
                # Hard-wrapped CJK text: a line continues the paragraph unless the previous one
                # closed a sentence or is short (a heading), even when the wrap re-indented it.
                starts_new = cur[-1] in _TERMINAL or len(cur) < 16
            else:
                starts_new = indent >= 2
        if starts_new:
            if cur:
                paragraphs.append(cur)
            cur = line
        else:
            cur = cur + ("" if _is_cjk_boundary(cur, line) else " ") + line
    if cur:
        paragraphs.append(cur)
    paragraphs = [_strip_markers(p) for p in paragraphs]
    paragraphs = [p for p in paragraphs if p]
    return "\n\n".join(paragraphs)


def _strip_markers(paragraph: str) -> str:
    """Drop inline footnote markers, keeping the marker that opens a note line."""
    lead = _LINE_NOTE.match(paragraph)
    head = paragraph[: lead.end()] if lead else ""
    return (head + _INLINE_NOTE.sub("", paragraph[len(head) :])).strip(" \t\u3000")


# Tags whose start or end breaks a paragraph, and tags whose content is never text.
_BLOCK_TAGS = frozenset(
    "p div br h1 h2 h3 h4 h5 h6 li tr section article blockquote pre ul ol table hr".split()
)
_HIDDEN_TAGS = frozenset(("script", "style", "template", "noscript", "head"))


class _HTMLText(HTMLParser):
    """The standard library's HTML parser (tolerant of broken markup, entities decoded),
    collecting the title and the visible text, with paragraph breaks at block elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self._hidden = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._hidden:
            self.parts.append(data)


def html_to_text(raw: str) -> tuple[str, str]:
    """(title, text) of an HTML page, read by an HTML parser: scripts, styles and the head
    dropped, entities decoded, block elements become paragraph breaks. The text is then cleaned
    like any other document, and every stored offset refers to that cleaned text."""
    parser = _HTMLText()
    parser.feed(raw)
    parser.close()
    return " ".join("".join(parser.title).split()), "".join(parser.parts)


def make_document(
    doc_id: str, title: str, raw_text: str, raw_fp: str, group: str = "", origin: str = ""
) -> Document:
    text = clean_text(raw_text)
    title = " ".join(title.split()) or doc_id.rsplit("/", 1)[-1]
    return Document(
        id=doc_id,
        title=title,
        text=text,
        fingerprint=raw_fp,
        lang=detect_lang(title + "\n" + text),
        group=group,
        origin=origin,
    )


def file_id(path: Path, root: Path | None, id_prefix: str = "") -> str:
    """The document id of a file: its path relative to ``root`` without extension (a single
    file given alone: relative to the current directory, or its absolute path when outside
    it), under ``id_prefix`` when one is given (then a single file is ``prefix/stem``)."""
    if root is None:
        if id_prefix:
            rel = Path(path.stem)
        else:
            full = path.resolve()
            try:
                rel = full.relative_to(Path.cwd().resolve())
            except ValueError:
                rel = full.relative_to(full.anchor)
            rel = rel.with_suffix("")
    else:
        rel = path.relative_to(root).with_suffix("")
    doc_id = rel.as_posix()
    prefix = id_prefix.strip("/")
    return f"{prefix}/{doc_id}" if prefix else doc_id


def _from_file(path: Path, root: Path | None, id_prefix: str = "") -> Document:
    source = str(path)
    size = path.stat().st_size
    if size > MAX_DOC_BYTES:
        raise CorpusError(f"{source}: {size} bytes, over the {MAX_DOC_BYTES}-byte limit")
    data = path.read_bytes()
    decoded = decode_text(data, source)
    text = decoded.text
    doc_id = file_id(path, root, id_prefix)
    rel = path.relative_to(root).with_suffix("") if root is not None else Path(path.stem)
    group = rel.parent.as_posix() if rel.parent.as_posix() != "." else ""
    title = path.stem
    fp = fingerprint(data)
    if path.suffix.lower() in (".html", ".htm"):
        html_title, text = html_to_text(text)
        title = html_title or title
    else:
        markdown = path.suffix.lower() in MARKDOWN_SUFFIXES
        note = read_note(text, markdown)
        text = plain_text(note.text) if markdown else note.text
        title = note.title or written_title(path.stem, text)
        if title != path.stem or text != decoded.text:
            # read otherwise than as plain text named by its file: a kb built before these
            # rules compiles the file again (its title or text changed); the others stay as
            # they were
            fp = fingerprint(data, title, "markdown" if markdown else "")
    doc = make_document(doc_id, title, text, fp, group, source)
    if not doc.text.strip():
        raise CorpusError(f"{source}: empty after cleaning")
    if decoded.guessed:
        doc.encoding = decoded.describe()
    return doc


def _records(path: Path, out: IngestResult) -> Iterator[tuple[str, dict[str, object]]]:
    decoded = decode_text(path.read_bytes(), str(path))
    if decoded.guessed:
        out.encodings.append(IngestIssue(str(path), decoded.describe()))
    text = decoded.text
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(stripped)
        except ValueError as exc:
            raise CorpusError(f"{path}: not a JSON array: {exc}") from exc
        if not isinstance(rows, list):
            raise CorpusError(f"{path}: expected a JSON array of objects")
        for i, row in enumerate(rows):
            yield f"{path}[{i}]", row if isinstance(row, dict) else {"__bad__": True}
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            yield f"{path}:{n}", {"__bad__": True}
            continue
        yield f"{path}:{n}", row if isinstance(row, dict) else {"__bad__": True}


def _from_records(path: Path, out: IngestResult, id_prefix: str = "") -> None:
    try:
        rows = list(_records(path, out))
    except CorpusError as exc:  # a whole file the detector refuses: reported, the rest goes on
        out.read += 1
        out.issues.append(IngestIssue(str(path), str(exc).split(": ", 1)[-1]))
        return
    if rows and not any("text" in row or row.get("__bad__") for _, row in rows):
        # a file of another shape beside the corpus (the questions of a QA set): one issue
        # naming what it holds, not one per record
        out.read += len(rows)
        fields = ", ".join(sorted({str(k) for _, row in rows[:50] for k in row})[:8])
        out.issues.append(
            IngestIssue(
                str(path), f"no record has a 'text' field ({len(rows)} records of {fields})"
            )
        )
        return
    for i, (where, row) in enumerate(rows):
        out.read += 1
        if row.get("__bad__"):
            out.issues.append(IngestIssue(where, "malformed JSON record"))
            continue
        text = row.get("text")
        if not isinstance(text, str) or not text.strip():
            out.issues.append(IngestIssue(where, "empty or missing text"))
            continue
        title = row.get("title")
        raw_id = row.get("id")
        doc_id = str(raw_id) if raw_id not in (None, "") else f"{path.stem}-{i:06d}"
        if id_prefix.strip("/"):
            doc_id = f"{id_prefix.strip('/')}/{doc_id}"
        title_s = title if isinstance(title, str) else ""
        if _CHAR_REF.search(title_s):
            title_s = html.unescape(title_s)
        doc = make_document(doc_id, title_s, text, fingerprint(title_s, text), "", where)
        if not doc.text.strip():
            out.issues.append(IngestIssue(where, "empty after cleaning"))
            continue
        out.documents.append(doc)


def read_corpus(source: str | Path, id_prefix: str = "") -> IngestResult:
    """Read a folder (recursive), a JSONL file or a JSON array file.

    Document ids: a folder's files get their path relative to the folder, without extension
    (``呐喊/狂人日记``); a single file its path relative to the current directory; JSONL rows
    their own ``id``. ``id_prefix`` puts them under a prefix (a single file: ``prefix/stem``).
    The same file gets the same id on every run; two files that would get one id are refused
    (:class:`~wikikv.errors.CorpusError` naming both)."""
    path = Path(source)
    out = IngestResult()
    if not path.exists():
        raise CorpusError(f"corpus {source} does not exist")
    if path.is_file():
        if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
            _from_records(path, out, id_prefix)
        else:
            out.read += 1
            try:
                out.documents.append(_from_file(path, None, id_prefix))
            except (CorpusError, OSError) as exc:
                out.issues.append(IngestIssue(str(path), str(exc)))
        return _with_encodings(out)
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        suffix = file.suffix.lower()
        if suffix in (".jsonl", ".ndjson"):
            _from_records(file, out, id_prefix)
            continue
        if suffix not in TEXT_SUFFIXES or file.name.upper() in ("SOURCE.MD", "README.MD"):
            continue
        out.read += 1
        try:
            out.documents.append(_from_file(file, path, id_prefix))
        except (CorpusError, OSError) as exc:
            out.issues.append(IngestIssue(str(file), str(exc).split(": ", 1)[-1]))
    check_unique(out)
    return _with_encodings(out)


def _with_encodings(out: IngestResult) -> IngestResult:
    out.encodings += [IngestIssue(d.origin, d.encoding) for d in out.documents if d.encoding]
    return out


def read_corpora(sources: list[str | Path], id_prefix: str = "") -> IngestResult:
    """Several corpora (files and folders) read as one, ids checked unique across them."""
    out = IngestResult()
    for source in sources:
        part = read_corpus(source, id_prefix)
        out.documents += part.documents
        out.issues += part.issues
        out.encodings += part.encodings
        out.read += part.read
    check_unique(out)
    return out


def _is_file_origin(origin: str) -> bool:
    return bool(origin) and not origin.endswith("]") and ":" not in Path(origin).name


def check_unique(out: IngestResult) -> None:
    """Refuse two files that map to one document id (naming both); a repeated id inside a
    JSONL corpus is reported and the later record skipped."""
    seen: dict[str, Document] = {}
    kept: list[Document] = []
    for doc in out.documents:
        first = seen.get(doc.id)
        if first is not None:
            if _is_file_origin(first.origin) and _is_file_origin(doc.origin):
                raise CorpusError(
                    f"{first.origin} and {doc.origin} would both be document {doc.id!r}; "
                    "rename one, or add them separately with --id-prefix"
                )
            out.issues.append(IngestIssue(doc.origin, f"duplicate document id {doc.id!r}"))
            continue
        seen[doc.id] = doc
        kept.append(doc)
    out.documents = kept
