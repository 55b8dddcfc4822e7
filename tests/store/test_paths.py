"""Path rules: one table of accepted and rejected cases, then properties over generated input."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wikikv.config import MAX_DEPTH, MAX_SEGMENT_BYTES
from wikikv.errors import InvalidPath
from wikikv.store import paths
from wikikv.store.paths import escape_segment, is_valid, normalize, unescape_segment

RULES = {
    "not-a-string",
    "empty",
    "relative",
    "empty-segment",
    "dot-segment",
    "control-character",
    "surrogate",
    "segment-too-long",
    "too-deep",
}

# (input, normalized form) — every accepted case
ACCEPTED: list[tuple[str, str]] = [
    ("/", "/"),
    ("/a", "/a"),
    ("/a/b", "/a/b"),
    ("/a b/c d", "/a b/c d"),
    ("/人物/李白", "/人物/李白"),
    ("/Ünïcödé", "/Ünïcödé"),
    ("/cafe\u0301", "/caf\u00e9"),  # NFD in, NFC out
    ("/.hidden", "/.hidden"),
    ("/...", "/..."),
    ("/a.", "/a."),
    ("/%2F", "/%2F"),
    ("/a%b", "/a%b"),
    ("/ａｂｃ", "/ａｂｃ"),  # full-width stays full-width: NFC, not NFKC
    ("/" + "x" * MAX_SEGMENT_BYTES, "/" + "x" * MAX_SEGMENT_BYTES),
    ("/" + "é" * (MAX_SEGMENT_BYTES // 2), "/" + "é" * (MAX_SEGMENT_BYTES // 2)),
    ("/" + "/".join("abcde"[:MAX_DEPTH]), "/" + "/".join("abcde"[:MAX_DEPTH])),
    ("/\u00a0", "/\u00a0"),  # no-break space is not a control character
]

# (input, rule) — every rejected case
REJECTED: list[tuple[object, str]] = [
    (None, "not-a-string"),
    (b"/a", "not-a-string"),
    (42, "not-a-string"),
    (["/a"], "not-a-string"),
    ("", "empty"),
    ("a", "relative"),
    ("a/b", "relative"),
    (" /a", "relative"),
    ("./a", "relative"),
    ("//", "empty-segment"),
    ("/a/", "empty-segment"),
    ("/a//b", "empty-segment"),
    ("//a", "empty-segment"),
    ("/.", "dot-segment"),
    ("/..", "dot-segment"),
    ("/a/../b", "dot-segment"),
    ("/a/./b", "dot-segment"),
    ("/a\x00b", "control-character"),
    ("/a\nb", "control-character"),
    ("/a\tb", "control-character"),
    ("/\x7f", "control-character"),
    ("/\x85", "control-character"),
    ("/\x9f", "control-character"),
    ("/a\ud800", "surrogate"),
    ("/\udfff/b", "surrogate"),
    ("/" + "x" * (MAX_SEGMENT_BYTES + 1), "segment-too-long"),
    ("/" + "é" * (MAX_SEGMENT_BYTES // 2 + 1), "segment-too-long"),
    ("/a/" + "中" * 86, "segment-too-long"),
    ("/" + "/".join("abcdef"[: MAX_DEPTH + 1]), "too-deep"),
    ("/a" * (MAX_DEPTH + 10), "too-deep"),
]


@pytest.mark.parametrize(("raw", "expected"), ACCEPTED, ids=[repr(c[0])[:40] for c in ACCEPTED])
def test_accepted(raw: str, expected: str) -> None:
    assert normalize(raw) == expected
    assert normalize(expected) == expected
    assert is_valid(raw)


@pytest.mark.parametrize(("raw", "rule"), REJECTED, ids=[repr(c[0])[:40] for c in REJECTED])
def test_rejected(raw: object, rule: str) -> None:
    with pytest.raises(InvalidPath) as info:
        normalize(raw)
    assert info.value.rule == rule
    assert rule in str(info.value)
    assert not is_valid(raw)


def test_table_covers_every_rule() -> None:
    assert {rule for _, rule in REJECTED} == RULES


def test_rejection_names_the_segment() -> None:
    with pytest.raises(InvalidPath) as info:
        normalize("/a/b/../c")
    assert info.value.position == 2
    assert info.value.path == "/a/b/../c"


def test_max_depth_is_configurable() -> None:
    assert normalize("/a/b", max_depth=2) == "/a/b"
    with pytest.raises(InvalidPath) as info:
        normalize("/a/b/c", max_depth=2)
    assert info.value.rule == "too-deep"


def test_helpers() -> None:
    assert paths.parent("/a/b") == "/a"
    assert paths.parent("/a") == "/"
    with pytest.raises(InvalidPath) as info:
        paths.parent("/")
    assert info.value.rule == "root-has-no-parent"
    assert paths.basename("/a/b") == "b"
    assert paths.basename("/") == ""
    assert paths.join("/", "a") == "/a"
    assert paths.join("/a", "b") == "/a/b"
    assert paths.ancestors("/a/b/c") == ["/", "/a", "/a/b"]
    assert paths.ancestors("/") == []
    assert paths.segments("/") == []
    assert paths.depth("/a/b") == 2
    # segment-wise, not textual: the a / ab sibling trap
    assert paths.is_under("/a/b", "/a")
    assert paths.is_under("/a", "/a")
    assert not paths.is_under("/ab", "/a")
    assert paths.is_under("/ab", "/")


# ------------------------------------------------------------------ properties
def _ok_segment(seg: str) -> bool:
    nfc = unicodedata.normalize("NFC", seg)
    return (
        nfc not in (".", "..")
        and "/" not in nfc
        and len(nfc.encode("utf-8")) <= MAX_SEGMENT_BYTES
        and is_valid("/" + nfc)
    )


segment_chars = st.characters(
    exclude_categories=["Cs", "Cc"], exclude_characters="/", max_codepoint=0x2FFFF
)
valid_segments = st.text(segment_chars, min_size=1, max_size=20).filter(_ok_segment)
valid_paths = st.lists(valid_segments, min_size=0, max_size=MAX_DEPTH).map(
    lambda segs: "/" + "/".join(segs)
)


@given(st.text())
def test_normalize_is_idempotent_or_rejects(raw: str) -> None:
    if not is_valid(raw):
        with pytest.raises(InvalidPath) as info:
            normalize(raw)
        assert info.value.rule in RULES
        return
    once = normalize(raw)
    assert normalize(once) == once
    assert once == unicodedata.normalize("NFC", raw)


@given(st.one_of(st.text(alphabet="/a.\x00é\ud800 ", max_size=12), st.binary(), st.integers()))
def test_any_input_is_accepted_or_names_its_rule(raw: object) -> None:
    if not is_valid(raw):
        with pytest.raises(InvalidPath) as info:
            normalize(raw)
        assert info.value.rule in RULES


@given(valid_paths)
def test_accepted_paths_round_trip(path: str) -> None:
    norm = normalize(path)
    assert norm == unicodedata.normalize("NFC", path)
    segs = paths.segments(norm)
    assert ("/" + "/".join(segs)) == norm
    assert paths.depth(norm) == len(segs)
    if norm != "/":
        assert paths.join(paths.parent(norm), paths.basename(norm)) == norm
        assert is_valid(paths.parent(norm))
        assert all(is_valid(a) for a in paths.ancestors(norm))


base_paths = st.lists(valid_segments, min_size=1, max_size=MAX_DEPTH - 1)


@st.composite
def rejected_paths(draw: st.DrawFn) -> tuple[str, str]:
    """A valid path with exactly one defect, and the rule that defect breaks."""
    segs = draw(base_paths)
    at = draw(st.integers(0, len(segs) - 1))
    kind = draw(
        st.sampled_from(
            [
                "relative",
                "empty-segment",
                "dot-segment",
                "control-character",
                "surrogate",
                "segment-too-long",
                "too-deep",
            ]
        )
    )
    if kind == "relative":
        return "/".join(segs), kind
    if kind == "empty-segment":
        if draw(st.booleans()):
            return "/" + "/".join(segs) + "/", kind
        return "/" + "/".join(segs[:at] + [""] + segs[at:]), kind
    if kind == "dot-segment":
        return "/" + "/".join(segs[:at] + [draw(st.sampled_from([".", ".."]))] + segs[at:]), kind
    if kind == "control-character":
        ctrl = draw(
            st.characters(min_codepoint=0, max_codepoint=0x1F) | st.sampled_from("\x7f\x85\x9f")
        )
        segs[at] = segs[at] + ctrl
        return "/" + "/".join(segs), kind
    if kind == "surrogate":
        segs[at] = segs[at] + draw(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
        return "/" + "/".join(segs), kind
    if kind == "segment-too-long":
        # Measured after NFC, as normalize measures it: a compatibility ideograph of four
        # bytes may normalize to one of three, and the padded segment would then fit.
        seg = unicodedata.normalize("NFC", segs[at])
        segs[at] = "-" * (MAX_SEGMENT_BYTES + 1 - len(seg.encode("utf-8"))) + seg
        return "/" + "/".join(segs), kind
    extra = draw(st.lists(valid_segments, min_size=MAX_DEPTH + 1 - len(segs), max_size=8))
    return "/" + "/".join(segs + extra), kind


@given(rejected_paths())
def test_rejected_inputs_raise_with_their_rule(case: tuple[str, str]) -> None:
    raw, rule = case
    with pytest.raises(InvalidPath) as info:
        normalize(raw)
    assert info.value.rule == rule


names = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)


@given(names)
def test_escape_segment_round_trips(name: str) -> None:
    seg = escape_segment(name)
    assert is_valid("/" + seg)
    assert "/" not in seg
    assert unescape_segment(seg) == unicodedata.normalize("NFC", name)


@given(st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=400))
def test_escape_segment_always_yields_a_valid_segment(name: str) -> None:
    seg = escape_segment(name)
    assert seg
    assert "/" not in seg
    assert len(seg.encode("utf-8")) <= MAX_SEGMENT_BYTES
    assert is_valid("/" + seg)


@pytest.mark.parametrize("name", [".", "..", "a/b", "%", "%41", "\x00", "\x85", "/", "100%"])
def test_escape_segment_examples(name: str) -> None:
    seg = escape_segment(name)
    assert is_valid("/" + seg)
    assert unescape_segment(seg) == name


def test_escape_empty_name_is_refused() -> None:
    with pytest.raises(InvalidPath) as info:
        escape_segment("")
    assert info.value.rule == "empty-segment"
