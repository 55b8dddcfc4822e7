"""Records and their codec: round-trip properties, the size limit, corrupt input."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wikikv.config import MAX_RECORD_BYTES
from wikikv.errors import CorruptRecord, InvalidRecord, RecordTooLarge
from wikikv.store.records import (
    AnyRecord,
    DirMeta,
    DirPage,
    DirRecord,
    FileMeta,
    FileRecord,
    RedirectMeta,
    RedirectRecord,
    decode,
    encode,
    text_from_bytes,
)

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)
names = st.lists(texts, max_size=5)
versions = st.integers(min_value=0, max_value=2**63 - 1)
stamps = st.floats(allow_nan=False)

dir_meta = st.builds(
    DirMeta,
    version=versions,
    updated_at=stamps,
    entry_count=st.integers(0, 2**31),
    pages=st.integers(0, 2**31),
)
file_meta = st.builds(
    FileMeta,
    version=versions,
    kind=st.sampled_from(["page", "entity", "digest", "article", "overview"]),
    created_at=stamps,
    updated_at=stamps,
    confidence=stamps,
    sources=names,
    last_verified=stamps,
    aliases=names,
    tags=names,
    summary=texts,
    title=texts,
    lint_status=st.sampled_from(["unchecked", "passed", "failed"]),
    compiled_by=texts,
    prompt_version=texts,
    fingerprint=texts,
    links=names,
)
records: st.SearchStrategy[AnyRecord] = st.one_of(
    st.builds(
        DirRecord,
        name=texts,
        path=texts,
        text=texts,
        sub_dirs=names,
        files=names,
        meta=dir_meta,
    ),
    st.builds(FileRecord, name=texts, path=texts, text=texts, meta=file_meta),
    st.builds(
        RedirectRecord,
        name=texts,
        path=texts,
        target=texts,
        meta=st.builds(RedirectMeta, version=versions, updated_at=stamps),
    ),
    st.builds(DirPage, path=texts, page=st.integers(1, 2**31), sub_dirs=names, files=names),
)


@given(records)
def test_round_trip(record: AnyRecord) -> None:
    data = encode(record)
    back = decode(data)
    assert type(back) is type(record)
    assert back == record
    assert encode(back) == data


def test_defaults_are_omitted_and_restored() -> None:
    rec = FileRecord(name="x", path="/x")
    back = decode(encode(rec))
    assert isinstance(back, FileRecord)
    assert back.meta == FileMeta()
    assert back.version == 0
    assert len(encode(rec)) < 40


def test_version_property_mirrors_meta() -> None:
    assert DirRecord("d", "/d", meta=DirMeta(version=3)).version == 3
    assert FileRecord("f", "/f", meta=FileMeta(version=4)).version == 4
    assert RedirectRecord("r", "/r", "/t", meta=RedirectMeta(version=5)).version == 5


def test_size_limit_is_enforced_and_configurable() -> None:
    rec = FileRecord(name="big", path="/big", text="x" * 5000)
    size = len(encode(rec))
    assert encode(rec, limit=size) is not None  # exactly at the limit is allowed
    with pytest.raises(RecordTooLarge) as info:
        encode(rec, limit=size - 1)
    assert (info.value.size, info.value.limit, info.value.path) == (size, size - 1, "/big")
    assert isinstance(info.value, InvalidRecord)


def test_default_limit_is_4_mib() -> None:
    assert MAX_RECORD_BYTES == 4 * 1024 * 1024
    encode(FileRecord(name="ok", path="/ok", text="x" * (MAX_RECORD_BYTES - 1000)))
    with pytest.raises(RecordTooLarge):
        encode(FileRecord(name="big", path="/big", text="x" * MAX_RECORD_BYTES))


def test_text_that_is_not_unicode_is_refused() -> None:
    with pytest.raises(InvalidRecord):
        encode(FileRecord(name="s", path="/s", text="bad \ud800 surrogate"))


def test_non_utf8_payload_is_refused() -> None:
    assert text_from_bytes("中文".encode(), "page") == "中文"
    with pytest.raises(InvalidRecord) as info:
        text_from_bytes(b"ok \xff\xfe bad", "upload.md")
    assert "upload.md" in str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xc1",
        b"\x92\x01\x02",  # a msgpack array, not a record
        msgspec.msgpack.encode({"type": "nope", "name": "x", "path": "/x"}),
        msgspec.msgpack.encode({"type": "file", "path": "/x"}),  # missing name
        msgspec.msgpack.encode({"type": "file", "name": 3, "path": "/x"}),  # wrong type
    ],
)
def test_corrupt_bytes_raise_corrupt_record(data: bytes) -> None:
    with pytest.raises(CorruptRecord):
        decode(data)


def test_truncated_record_is_corrupt() -> None:
    data = encode(FileRecord(name="x", path="/x", text="some text", meta=FileMeta(title="T")))
    for cut in range(len(data)):
        with pytest.raises(CorruptRecord):
            decode(data[:cut])


@given(st.binary(max_size=64))
def test_arbitrary_bytes_decode_or_raise_corrupt_record(data: bytes) -> None:
    try:
        rec = decode(data)
    except CorruptRecord:
        return
    assert isinstance(rec, (DirRecord, FileRecord, RedirectRecord, DirPage))
