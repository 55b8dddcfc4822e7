"""The Markdown-with-front-matter page format."""

from __future__ import annotations

import pytest

from wikikv import pages_md
from wikikv.errors import InvalidRecord
from wikikv.store.records import DirMeta, DirRecord, FileMeta, FileRecord


def page(text: str, **meta: object) -> FileRecord:
    return FileRecord(name="p", path="/p", text=text, meta=FileMeta(**meta))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "record",
    [
        page(
            "Body with [[link]].\n",
            title="T",
            aliases=["a", "阿"],
            tags=["x"],
            summary="S",
            sources=["u"],
            kind="entity",
        ),
        page(""),
        page("no trailing newline"),
        page("---\nlooks like front matter\n---\n", title="tricky"),
        page("\n\nleading blank lines"),
        page("x", title="1984", summary="2020-01-01"),
    ],
)
def test_render_then_parse_round_trips(record: FileRecord) -> None:
    text, meta = pages_md.parse(pages_md.render(record))
    assert text == record.text
    assert pages_md.front_matter(meta) == pages_md.front_matter(record.meta)


def test_render_layout() -> None:
    out = pages_md.render(page("Hello", title="T", tags=["a", "b"]))
    assert out == "---\ntitle: T\ntags: [a, b]\n---\n\nHello"


def test_without_front_matter_everything_is_body() -> None:
    text, meta = pages_md.parse("# Title\n\nbody")
    assert text == "# Title\n\nbody"
    assert meta == FileMeta()


def test_crlf_and_yaml_scalars() -> None:
    text, meta = pages_md.parse("---\r\ntitle: 1984\r\ntags: [2020-01-01]\r\n---\r\n\r\nbody")
    assert text == "body"
    assert meta.title == "1984"
    assert meta.tags == ["2020-01-01"]


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("---\n- a\n---\n", "must be a YAML mapping"),
        ("---\njust a string\n---\n", "must be a YAML mapping"),
        ("---\na: [\n---\n", "not valid YAML"),
        ("---\ntitle: x\n", "never closed"),
        ("---\ntitle: [a, b]\n---\n", "'title' must be text"),
        ("---\ntags: solo\n---\n", "'tags' must be a list"),
        ("---\naliases: [{a: 1}]\n---\n", "'aliases' must be text"),
        ("---\ntype: novel\n---\n", "type 'novel' is not one of"),
        ("---\ntitle: true\n---\n", "'title' must be text"),
    ],
)
def test_bad_front_matter_is_refused(source: str, fragment: str) -> None:
    with pytest.raises(InvalidRecord, match=None) as info:
        pages_md.parse(source, "f.md")
    assert fragment in str(info.value)
    assert str(info.value).startswith("f.md: ")


def test_empty_front_matter() -> None:
    assert pages_md.parse("---\n---\n\nbody") == ("body", FileMeta())
    # A page without fields prints without an empty block, unless its body could be misread
    # as front matter.
    assert pages_md.render(page("body")) == "body"
    assert pages_md.render(page("---\nx\n---\n")) == "---\n---\n\n---\nx\n---\n"


def test_render_dir() -> None:
    rec = DirRecord(name="d", path="/d", text="About.", sub_dirs=["s"], files=["f"], meta=DirMeta())
    out = pages_md.render_dir(rec)
    assert out.endswith("\n---\n\nAbout.")
    assert "type: directory" in out
    assert "sub_dirs: [s]" in out


def test_wikilinks() -> None:
    text = "See [[Lu Xun]], [[鲁迅|Lu]], [[Lu Xun#Life]], [[ ]] and [[/people/Cai Yuanpei]]."
    assert pages_md.wikilinks(text) == ["Lu Xun", "鲁迅", "/people/Cai Yuanpei"]


def test_unknown_fields_are_kept_not_refused() -> None:
    text, meta = pages_md.parse("---\ntitle: T\ncreated: 2024-01-02\ncssclass: wide\n---\n\nbody")
    assert text == "body"
    assert meta.extra == {"created": "2024-01-02", "cssclass": "wide"}
    out = pages_md.render(FileRecord(name="p", path="/p", text=text, meta=meta))
    assert out == "---\ntitle: T\ncreated: '2024-01-02'\ncssclass: wide\n---\n\nbody"


COMPILED = '---\ntype: people\ncreated: 2026-01-01\naliases: ["A"]\ntags: ["t"]\n---\n# X\n'


def test_a_compiled_body_block_is_folded_into_one_block_and_put_back() -> None:
    rec = page(COMPILED, title="X", aliases=["A"], tags=["t"], kind="entity", compiled_by="c")
    out = pages_md.render(rec)
    assert out == "---\ntitle: X\naliases: [A]\ntags: [t]\ntype: entity\n---\n\n# X\n"
    text, meta = pages_md.page_for_put(out, rec, "ann")
    assert text == COMPILED  # the body block comes back byte for byte
    assert meta.edited_by == ""  # nothing changed: not a hand edit
    edited = out.replace("aliases: [A]", "aliases: [A, B]").replace("# X", "# X!")
    text, meta = pages_md.page_for_put(edited, rec, "ann", owned_sig=lambda t: "sig")
    assert text.startswith("---\ntype: people\ncreated: 2026-01-01\naliases: [A, B]\n")
    assert text.endswith("# X!\n")
    assert (meta.edited_by, meta.compiled_sig, meta.compiled_by) == ("ann", "sig", "c")
