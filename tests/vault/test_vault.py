"""Vault / JSON-lines export and import: round-trip identity, and every refusal leaving the kb
unchanged."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wikikv.config import StoreSettings
from wikikv.errors import ImportRefused, VaultError
from wikikv.search import search
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord, RedirectRecord
from wikikv.store.store import Store, open_store
from wikikv.vault import export_kb, import_source, names
from wikikv.vault.exporter import identity_view, vault_file
from wikikv.vault.importer import vault_path
from wikikv.vault.items import Item


def snapshot(store: Store, kb: str) -> list[tuple[bytes, bytes]]:
    """Every key and value the kb holds (records, indexes, search index, audit trail)."""
    start, end = store.kb(kb).keys.all_range()
    return [(k, i.value) for k, i in store.backend.scan(start, end)]


# ------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("fmt", ["vault", "json"])
def test_export_then_import_gives_the_same_records(
    store: Store, wiki: KnowledgeBase, tmp_path: Path, fmt: str
) -> None:
    report = export_kb(wiki, tmp_path / "out", "vault" if fmt == "vault" else "json")
    assert report.redirects == 1
    assert report.pages > 30
    assert "version" in report.note
    imported = import_source(store, "copy", tmp_path / "out")
    assert imported.created_kb
    assert imported.format == fmt
    assert imported.records == report.records
    copy = store.kb("copy")
    assert identity_view(copy) == identity_view(wiki)
    # versions restart: every imported page is at version 1
    page = copy.get("/people/Sherlock Holmes")
    assert isinstance(page, FileRecord)
    assert page.meta.version == 1
    # redirects still resolve, links and search work in the copy
    red = copy.get("/notes/scratch", follow_redirects=False)
    assert isinstance(red, RedirectRecord)
    assert red.target == "/notes/kept"
    assert copy.get("/notes/scratch") == copy.get("/notes/kept")
    assert [h.path for h in search(copy, "Sherlock Holmes", limit=3)][:1] == [
        h.path for h in search(wiki, "Sherlock Holmes", limit=3)
    ][:1]


def test_vault_layout_is_obsidian_shaped(wiki: KnowledgeBase, tmp_path: Path) -> None:
    export_kb(wiki, tmp_path / "v")
    v = tmp_path / "v"
    assert (v / "index.md").read_text(encoding="utf-8").startswith("---\ntype: directory\n---\n")
    assert (v / "people" / "_index.md").is_file()
    assert (v / "sources" / "articles" / "_index.md").is_file()
    page = (v / "people" / "Sherlock Holmes.md").read_text(encoding="utf-8")
    head, body = page.split("\n---\n\n", 1)
    assert "title: Sherlock Holmes" in head
    assert "type: entity" in head
    assert "version" not in head.replace("prompt_version", "")
    assert "[[" in body
    # the escaped compiled segment keeps its %2F, readable, and maps back
    assert (v / "topics" / "McLaren MP4%2F13.md").is_file()
    redirect = (v / "notes" / "scratch.md").read_text(encoding="utf-8")
    assert "type: redirect" in redirect
    assert "[[/notes/kept]]" in redirect


def test_zipped_vault_imports_like_the_folder(
    store: Store, wiki: KnowledgeBase, tmp_path: Path
) -> None:
    export_kb(wiki, tmp_path / "v")
    archive = tmp_path / "v.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted((tmp_path / "v").rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(tmp_path / "v").as_posix())
    import_source(store, "zipped", archive)
    assert identity_view(store.kb("zipped")) == identity_view(wiki)


def test_edited_vault_imports_the_edit_and_a_new_note(
    store: Store, wiki: KnowledgeBase, tmp_path: Path
) -> None:
    v = tmp_path / "v"
    export_kb(wiki, v)
    note = v / "people" / "Sherlock Holmes.md"
    note.write_text(note.read_text(encoding="utf-8").replace("fictional", "famous"), "utf-8")
    (v / "people" / "New person.md").write_text("Written in Obsidian, no front matter.\n", "utf-8")
    (v / "people" / "photo.png").write_bytes(b"\x89PNG")
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "app.json").write_text("{}", "utf-8")
    report = import_source(store, "src", v)  # back into the same kb
    assert not report.created_kb
    assert "people/photo.png" in report.skipped
    assert ".obsidian" in report.skipped
    holmes = wiki.get("/people/Sherlock Holmes")
    assert isinstance(holmes, FileRecord)
    assert "famous" in holmes.text
    assert holmes.meta.version > 1  # an update of the existing page
    new = wiki.get("/people/New person")
    assert isinstance(new, FileRecord)
    assert new.text == "Written in Obsidian, no front matter.\n"
    assert "New person" in wiki.ls_all("/people").files


# ------------------------------------------------------------------------------- names
segments = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/"),
    min_size=1,
    max_size=20,
).filter(lambda s: s not in (".", ".."))


@given(segments, st.booleans(), st.booleans())
def test_file_names_map_back_to_their_segment(segment: str, is_dir: bool, at_root: bool) -> None:
    name = names.encode_segment(segment, is_dir=is_dir, at_root=at_root)
    for bad in '\\:*?"<>|':
        assert bad not in name
    assert not name.startswith(".")
    if is_dir:
        assert not name.endswith(".md")
        assert names.decode_name(name) == segment
    else:
        assert name.endswith(".md")
        assert name not in ("_index.md",)
        assert not (at_root and name == "index.md")
        assert names.decode_name(name[:-3]) == segment


@given(st.lists(segments, min_size=1, max_size=4), st.sampled_from(["dir", "page", "redirect"]))
def test_vault_file_and_vault_path_are_inverse(segs: list[str], kind: str) -> None:
    path = "/" + "/".join(segs)
    rel = vault_file(Item(kind, path))  # type: ignore[arg-type]
    assert vault_path(rel) == (path, kind == "dir")


# ------------------------------------------------------------------------------- refusals
def _vault(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "bad"
    for rel, text in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return root


GOOD = {"index.md": "root\n", "people/_index.md": "People\n", "people/Ann.md": "Ann.\n"}


@pytest.mark.parametrize(
    ("bad_file", "text", "reason"),
    [
        ("people/Bob.md", "---\ntitle: Bob\n", "no closing '---'"),
        ("people/Bob.md", "---\n- a\n- b\n---\nbody", "YAML mapping"),
        ("people/Bob.md", "---\ntitle: [unclosed\n---\nbody", "not valid YAML"),
        ("people/Bob.md", "---\ncolour: red\n---\nbody", "unknown front-matter field"),
        ("people/Bob.md", "---\naliases: 7\n---\nbody", "aliases"),
        ("people/Bob.md", "---\ntype: redirect\n---\nbody", "redirect"),
        ("people/_index.md", "---\ntitle: x\n---\nbody", "directory index"),
        ("people/Ann/_index.md", "People called Ann\n", "two files, one path"),
        ("people/Ann/x.md", "body", "needs '/people/Ann' to be a directory"),
        ("people/Ann%3A.md", "one", ""),  # fine alone; clashes below only with Ann:
    ],
)
def test_broken_files_are_refused_by_name_and_nothing_is_written(
    store: Store, tmp_path: Path, bad_file: str, text: str, reason: str
) -> None:
    kb = store.create_kb("target")
    kb.put("/people/Ann", "Existing Ann.\n")
    before = snapshot(store, "target")
    files = {**GOOD, bad_file: text}
    if not reason:  # two files standing for one path
        files["people/Ann%3A.md"] = "one"
        files["people/Ann:.md"] = "two"
        bad_file, reason = "people/Ann:.md", "two files, one path"
    with pytest.raises(ImportRefused) as err:
        import_source(store, "target", _vault(tmp_path, files))
    assert bad_file in str(err.value)
    assert reason in str(err.value)
    assert snapshot(store, "target") == before
    # a refused import into a kb that does not exist does not create it
    with pytest.raises(ImportRefused):
        import_source(store, "never", _vault(tmp_path / "again", files))
    assert not store.has_kb("never")


def test_a_record_whose_kind_would_change_is_refused(store: Store, tmp_path: Path) -> None:
    kb = store.create_kb("target")
    kb.mkdir("/people/Ann")  # a directory where the vault has a page
    before = snapshot(store, "target")
    with pytest.raises(ImportRefused, match="people/Ann.md.*is a dir"):
        import_source(store, "target", _vault(tmp_path, GOOD))
    assert snapshot(store, "target") == before


def test_file_over_the_record_limit_is_refused_before_reading(tmp_path: Path) -> None:
    small = open_store(f"lmdb://{tmp_path / 's'}?sync=false", StoreSettings(max_record_bytes=4096))
    try:
        small.create_kb("target")
        before = snapshot(small, "target")
        files = {**GOOD, "people/Big.md": "x" * 5000}
        with pytest.raises(ImportRefused, match=r"people/Big\.md: file is 5000 bytes, over"):
            import_source(small, "target", _vault(tmp_path, files))
        # near the limit: the file fits, the encoded record (with front matter) does not
        files = {**GOOD, "people/Big.md": "---\ntitle: " + "t" * 2000 + "\n---\n" + "x" * 2080}
        with pytest.raises(ImportRefused, match=r"people/Big\.md: record at '/people/Big'"):
            import_source(small, "target", _vault(tmp_path / "2", files))
        assert snapshot(small, "target") == before
    finally:
        small.close()


def _zip(tmp_path: Path, members: dict[str, str], link: str | None = None) -> Path:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
        if link is not None:
            info = zipfile.ZipInfo("people/link.md")
            info.external_attr = 0o120777 << 16
            zf.writestr(info, link)
    return archive


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        ("../../escape.md", "path traversal"),
        ("people/../../escape.md", "path traversal"),
        ("/etc/cron.d/evil.md", "absolute path"),
        ("C:/evil.md", "absolute path"),
        ("people\\..\\..\\evil.md", "backslash"),
    ],
)
def test_zip_slip_is_refused(store: Store, tmp_path: Path, member: str, reason: str) -> None:
    store.create_kb("target")
    before = snapshot(store, "target")
    with pytest.raises(ImportRefused) as err:
        import_source(store, "target", _zip(tmp_path, {**GOOD, member: "evil"}))
    assert member in str(err.value)
    assert reason in str(err.value)
    assert snapshot(store, "target") == before
    assert not (tmp_path.parent / "escape.md").exists()


def test_symlinks_are_refused(store: Store, tmp_path: Path) -> None:
    store.create_kb("target")
    before = snapshot(store, "target")
    with pytest.raises(ImportRefused, match="people/link.md: symlink member"):
        import_source(store, "target", _zip(tmp_path, GOOD, link="../../etc/passwd"))
    outside = tmp_path / "secret.txt"
    outside.write_text("secret", "utf-8")
    root = _vault(tmp_path, GOOD)
    os.symlink(outside, root / "people" / "leak.md")
    with pytest.raises(ImportRefused, match="people/leak.md: symlink to .*outside the source"):
        import_source(store, "target", root)
    (root / "people" / "leak.md").unlink()
    os.symlink(tmp_path, root / "people" / "up")  # a folder link climbing out
    with pytest.raises(ImportRefused, match="people/up: symlink to .*outside the source"):
        import_source(store, "target", root)
    assert snapshot(store, "target") == before


def test_json_lines_refusals_name_the_line(store: Store, tmp_path: Path) -> None:
    src = tmp_path / "dump.jsonl"
    src.write_text(
        '{"kind": "dir", "path": "/"}\n'
        '{"kind": "page", "path": "/a", "text": "A"}\n'
        '{"kind": "page", "path": "relative", "text": "B"}\n',
        encoding="utf-8",
    )
    with pytest.raises(ImportRefused, match="dump.jsonl line 3: invalid path 'relative'"):
        import_source(store, "target", src)
    src.write_text('{"kind": "page", "path": "/a", "meta": {"colour": 1}}\n', encoding="utf-8")
    with pytest.raises(ImportRefused, match="dump.jsonl line 1: unknown front-matter field"):
        import_source(store, "target", src)
    assert not store.has_kb("target")


def test_export_refuses_a_folder_that_is_not_empty(wiki: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine", "utf-8")
    with pytest.raises(VaultError, match="not an empty folder"):
        export_kb(wiki, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep.txt"]
