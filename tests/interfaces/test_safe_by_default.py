"""Issue 13, driven through the CLI as a user would: no silent deletion, unique document ids, hand
edits kept, one front-matter block, opening not creating, and a CLI that behaves.

Every refused command is checked to leave the store byte for byte as it was (a snapshot of all
keys, versions and values of the backend before and after).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from wikikv.interfaces.cli import main
from wikikv.review import ReviewQueue
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

Snapshot = dict[bytes, tuple[int, bytes]]


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("demo") / "store"
    result = CliRunner().invoke(main, ["demo", "--store", str(store), "--json"])
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def store(demo_template: Path, tmp_path: Path) -> str:
    """A fresh copy of the demo store (kb ``demo``) for one test."""
    target = tmp_path / "store"
    shutil.copytree(demo_template, target)
    return str(target)


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    """Run the test from a scratch directory (single files get ids relative to it)."""
    old = Path.cwd()
    work = tmp_path / "work"
    work.mkdir()
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(old)


def run(store: str, *args: str, stdin: str | None = None, kb: str = "demo") -> Result:
    return CliRunner().invoke(main, [*args, "--store", store, "--kb", kb], input=stdin)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def snapshot(url: str) -> Snapshot:
    with open_store(url, create=False) as s:
        return {k: (it.version, it.value) for k, it in s.backend.scan(b"", b"\xff" * 16)}


def refused(store: str, *args: str, stdin: str | None = None, says: str = "") -> Result:
    """Run a command that must be refused: non-zero exit, a message, the store unchanged."""
    before = snapshot(store)
    result = run(store, *args, stdin=stdin)
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    assert says in result.output, result.output
    assert snapshot(store) == before
    return result


def doc_ids(store: str) -> list[str]:
    return [d["id"] for d in json.loads(ok(run(store, "docs", "--json")).stdout)]


def page(store: str, path: str) -> FileRecord:
    with open_store(store) as s:
        rec = s.kb("demo").get(path)
    assert isinstance(rec, FileRecord)
    return rec


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- 1. no silent deletion
def test_build_of_another_folder_adds_and_keeps_the_rest(store: str, workdir: Path) -> None:
    before = doc_ids(store)
    write(workdir / "more" / "Sendai.md", "Sendai is a city in Japan. Lu Xun studied there.\n")
    out = ok(run(store, "build", "more")).output
    after = doc_ids(store)
    assert set(before) <= set(after)
    assert "Sendai" in after
    assert len(after) == len(before) + 1
    # and it says what it kept: the kb's documents this corpus does not have
    assert f"kept {len(before)} document(s) of the kb not in this corpus (" in out
    assert "`--sync` would remove them" in out
    report = json.loads(ok(run(store, "build", "more", "--json")).stdout)
    assert report["kept_absent"] == len(before)
    assert report["kept_absent_ids"] == sorted(before)[:5]


def test_sync_prints_the_plan_and_a_refusal_changes_nothing(store: str, workdir: Path) -> None:
    write(workdir / "more" / "Sendai.md", "Sendai is a city in Japan.\n")
    out = refused(store, "build", "more", "--sync", stdin="n\n", says="to remove")
    assert "1 to add" in out.output
    assert "remove 13 document(s)" in out.output
    # No answer at all (closed stdin, a script) is a refusal too.
    refused(store, "build", "more", "--sync", says="aborted: nothing was changed")


def test_dry_run_prints_the_same_plan_and_writes_nothing(store: str, workdir: Path) -> None:
    write(workdir / "more" / "Sendai.md", "Sendai is a city in Japan.\n")
    before = snapshot(store)
    result = ok(run(store, "build", "more", "--sync", "--dry-run", "--json"))
    plan = json.loads(result.stdout)["plan"]
    assert plan["add"] == ["Sendai"]
    assert len(plan["remove"]) == 13
    assert plan["nodes"] >= 26  # articles and digests at least
    assert snapshot(store) == before


def test_sync_with_yes_removes(store: str, workdir: Path) -> None:
    write(workdir / "more" / "Sendai.md", "Sendai is a city in Japan.\n")
    ok(run(store, "build", "more", "--sync", "--yes"))
    assert doc_ids(store) == ["Sendai"]


def test_rm_r_says_how_many_links_dangle_and_asks(store: str) -> None:
    out = refused(store, "rm", "-r", "/places", stdin="n\n", says="will dangle")
    assert "link(s) from" in out.output
    ok(run(store, "rm", "-r", "/places", "--yes"))
    assert run(store, "get", "/places").exit_code != 0


def test_rm_without_r_speaks_cli(store: str) -> None:
    out = refused(store, "rm", "/places", says="wikikv rm -r /places")
    assert "recursive=True" not in out.output


# ----------------------------------------------------------------------------- 2. unique ids
def test_same_name_in_two_folders_is_two_documents(store: str, workdir: Path) -> None:
    write(workdir / "more" / "Sendai.md", "Sendai is a city in Japan.\n")
    write(workdir / "other" / "Sendai.md", "Sendai has a university where Lu Xun studied.\n")
    ok(run(store, "add", "more/Sendai.md"))
    ok(run(store, "add", "other/Sendai.md"))
    assert {"more/Sendai", "other/Sendai"} <= set(doc_ids(store))
    # The same file gets the same id on every run: a second add changes nothing.
    again = json.loads(ok(run(store, "add", "other/Sendai.md", "--json")).stdout)
    assert again["skipped"] == 1
    assert again["analyzed"] == 0


def test_id_prefix(store: str, workdir: Path) -> None:
    write(workdir / "x" / "Sendai.md", "Sendai is a city in Japan.\n")
    ok(run(store, "add", "x/Sendai.md", "--id-prefix", "japan"))
    assert "japan/Sendai" in doc_ids(store)


def test_two_files_with_one_id_are_refused_naming_both(store: str, workdir: Path) -> None:
    write(workdir / "clash" / "Sendai.md", "Sendai is a city in Japan.\n")
    write(workdir / "clash" / "Sendai.txt", "Sendai, again.\n")
    out = refused(store, "add", "clash", says="would both be document 'Sendai'")
    assert "Sendai.md" in out.output
    assert "Sendai.txt" in out.output


# ----------------------------------------------------------------------------- 3. hand edits
def _edit(store: str, workdir: Path, path: str, old: str, new: str) -> None:
    text = ok(run(store, "get", path)).stdout
    assert old in text
    ok(run(store, "put", path, str(write(workdir / "page.md", text.replace(old, new, 1)))))


def test_a_hand_edit_is_merged_into_not_overwritten(store: str, workdir: Path) -> None:
    _edit(
        store,
        workdir,
        "/people/Lu Xun",
        "## Key Facts",
        "## My notes\nVisited 2019.\n\n## Key Facts",
    )
    assert page(store, "/people/Lu Xun").meta.edited_by
    write(workdir / "new" / "Sendai.md", "Lu Xun studied medicine in Sendai.\n")
    report = json.loads(ok(run(store, "add", "new", "--json")).stdout)
    assert report["hand_edits"] == {"merged": 1}
    merged = page(store, "/people/Lu Xun")
    assert "## My notes\nVisited 2019." in merged.text  # the person's text
    assert "Lu Xun studied medicine in Sendai." in merged.text  # the compiler's new fact
    assert "/sources/articles/Sendai" in merged.meta.sources
    assert merged.text.count("## Key Facts") == 1


def test_an_unmergeable_edit_is_left_and_a_review_item_filed(store: str, workdir: Path) -> None:
    _edit(store, workdir, "/people/Lu Xun", "died in Shanghai in 1936", "died in Shanghai, 1936")
    mine = page(store, "/people/Lu Xun")
    write(workdir / "new" / "Sendai.md", "Lu Xun studied medicine in Sendai.\n")
    report = json.loads(ok(run(store, "add", "new", "--json")).stdout)
    assert report["hand_edits"] == {"kept": 1}
    assert page(store, "/people/Lu Xun").text == mine.text
    with open_store(store) as s:
        items = ReviewQueue(s.kb("demo")).items()
    assert [(i.kind, i.path) for i in items] == [("hand-edit", "/people/Lu Xun")]


# ----------------------------------------------------------------------------- 4. round trip
def test_get_prints_one_block_and_put_of_it_changes_only_the_version(
    store: str, workdir: Path
) -> None:
    printed = ok(run(store, "get", "/people/Lu Xun")).stdout
    assert printed.count("\n---\n") == 1  # one closing fence: one block
    assert printed.startswith("---\n")
    assert printed.count("aliases:") == 1
    before = page(store, "/people/Lu Xun")
    ok(run(store, "put", "/people/Lu Xun", str(write(workdir / "p.md", printed))))
    after = page(store, "/people/Lu Xun")
    assert after.text == before.text
    same = ("version", "updated_at")
    for name in before.meta.__struct_fields__:
        if name not in same:
            assert getattr(after.meta, name) == getattr(before.meta, name), name
    assert after.version == before.version + 1
    stamp = f"wikikv: {{path: /people/Lu Xun, version: {before.version}}}\n"
    assert stamp in printed
    again = ok(run(store, "get", "/people/Lu Xun")).stdout
    assert again == printed.replace(
        stamp, stamp.replace(f" {before.version}}}", f" {after.version}}}")
    )


def test_unknown_fields_kept_and_links_survive_a_body_edit(store: str, workdir: Path) -> None:
    links = page(store, "/people/Lu Xun").meta.links
    _edit(store, workdir, "/people/Lu Xun", "title: Lu Xun", "title: Lu Xun\ncreated: 2019-05-01")
    _edit(store, workdir, "/people/Lu Xun", "# Lu Xun", "# Lu Xun (edited)")
    rec = page(store, "/people/Lu Xun")
    assert rec.meta.extra == {"created": "2019-05-01"}
    assert rec.meta.links == links
    assert rec.meta.compiled_by == "extractive"
    printed = ok(run(store, "get", "/people/Lu Xun")).stdout
    assert "created: '2019-05-01'" in printed
    assert printed.count("created:") == 1


def test_a_page_without_front_matter_comes_back_without_one(store: str, workdir: Path) -> None:
    ok(run(store, "put", "/notes/plain", str(write(workdir / "plain.md", "Just text.\n"))))
    printed = ok(run(store, "get", "/notes/plain")).stdout
    # the block holds the stamp alone, and is not stored: the page stays without front matter
    assert printed == "---\nwikikv: {path: /notes/plain, version: 1}\n---\n\nJust text.\n"
    ok(run(store, "put", "/notes/plain", str(write(workdir / "plain.md", printed))))
    rec = page(store, "/notes/plain")
    assert (rec.text, rec.meta.extra, rec.version) == ("Just text.\n", {}, 2)


# ----------------------------------------------------------------------------- the stamp
def test_a_put_of_a_page_changed_since_it_was_printed_is_refused(store: str, workdir: Path) -> None:
    mine = ok(run(store, "get", "/people/Lu Xun")).stdout
    _edit(store, workdir, "/people/Lu Xun", "# Lu Xun", "# Lu Xun (their edit)")
    theirs = page(store, "/people/Lu Xun")
    edited = write(workdir / "mine.md", mine.replace("# Lu Xun", "# Lu Xun (my edit)", 1))
    out = refused(store, "put", "/people/Lu Xun", str(edited), says="version conflict")
    assert f"printed at version {theirs.version - 1}" in out.output
    assert "wikikv audit --path '/people/Lu Xun'" in out.output
    assert "--force" in out.output
    # their edit stands; --force overwrites it, as asked
    ok(run(store, "put", "/people/Lu Xun", str(edited), "--force"))
    assert "(my edit)" in page(store, "/people/Lu Xun").text
    # an explicit --expect still decides
    refused(store, "put", "/people/Lu Xun", str(edited), "--expect", "1", says="conflict")


def test_a_page_printed_from_one_path_is_not_put_at_another(store: str, workdir: Path) -> None:
    printed = ok(run(store, "get", "Lu Xun")).stdout  # found by its name
    assert "wikikv: {path: /people/Lu Xun, version:" in printed
    f = write(workdir / "lu.md", printed.replace("# Lu Xun", "# Lu Xun (edited)", 1))
    out = refused(store, "put", "/people/Lu Xun (2)", str(f), says="would make a second page")
    assert "printed from /people/Lu Xun" in out.output
    ok(run(store, "put", "/people/Lu Xun", str(f)))
    # without the stamp the file is a page like any other, written where asked
    stamp = next(line for line in printed.splitlines() if line.startswith("wikikv:"))
    ok(
        run(
            store,
            "put",
            "/notes/copy",
            str(write(workdir / "c.md", printed.replace(stamp + "\n", ""))),
        )
    )
    assert page(store, "/notes/copy").meta.title == "Lu Xun"


def test_a_page_moved_since_it_was_printed_is_not_written_over_its_redirect(
    store: str, workdir: Path
) -> None:
    printed = ok(run(store, "get", "/people/Lu Xun")).stdout
    ok(run(store, "mv", "/people/Lu Xun", "/writers/Lu Xun"))
    f = write(workdir / "lu.md", printed.replace("# Lu Xun", "# Lu Xun (edited)", 1))
    out = refused(store, "put", "/people/Lu Xun", str(f), says="moved to /writers/Lu Xun")
    assert "lu.md was printed before the move: put it at /writers/Lu Xun" in out.output
    assert "--force" in out.output


def test_a_source_is_not_edited_by_hand_without_force(store: str, workdir: Path) -> None:
    printed = ok(run(store, "get", "en/Lu Xun")).stdout
    path = "/sources/articles/en%2FLu Xun"
    f = write(workdir / "a.md", printed.replace("Chinese writer", "Chinese novelist"))
    out = refused(store, "put", path, str(f), says=f"{path} is a source")
    assert "would break their citations" in out.output
    assert "Edit the document's file and `wikikv update` it, or use --force" in out.output
    ok(run(store, "put", path, str(f), "--force"))
    assert "Chinese novelist" in page(store, path).text


@pytest.mark.parametrize(
    "line",
    [
        "wikikv: 3",
        "wikikv: {path: /people/Lu Xun}",
        "wikikv: {path: /people/Lu Xun, version: x}",
        "wikikv: {path: /people/Lu Xun, version: 1, extra: 2}",
    ],
)
def test_a_malformed_stamp_is_refused(store: str, workdir: Path, line: str) -> None:
    f = write(workdir / "bad.md", f"---\ntitle: X\n{line}\n---\n\nText.\n")
    refused(store, "put", "/people/Lu Xun", str(f), says="housekeeping `wikikv get` prints")


# ----------------------------------------------------------------------------- 5. opening
@pytest.mark.parametrize(
    "args",
    [
        ("ls", "/"),
        ("get", "/people"),
        ("put", "/x", "-"),
        ("rm", "/x"),
        ("search", "Lu Xun"),
        ("ask", "Who?"),
        ("docs",),
        ("kbs",),
        ("fsck",),
        ("add", "."),
    ],
)
def test_a_missing_store_is_refused_not_created(
    tmp_path: Path, workdir: Path, args: tuple[str, ...]
) -> None:
    missing = tmp_path / "typo-store"
    result = run(str(missing), *args, stdin="x")
    assert result.exit_code != 0
    assert f"no store at {missing}; create it with `wikikv init" in result.output
    assert not missing.exists()


def test_init_build_and_demo_create(tmp_path: Path, workdir: Path) -> None:
    ok(run(str(tmp_path / "a"), "init"))
    write(workdir / "c" / "x.md", "Sendai is a city in Japan.\n")
    ok(run(str(tmp_path / "b"), "build", "c"))
    assert (tmp_path / "a" / "data.mdb").exists()
    assert (tmp_path / "b" / "data.mdb").exists()


def test_unreachable_llm_is_an_error_not_an_answer(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIKV_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WIKIKV_LLM_MODEL", "m")
    monkeypatch.setenv("WIKIKV_LLM_MAX_RETRIES", "0")
    result = run(store, "ask", "--llm", "openai", "--no-direct", "Where was Lu Xun born?")
    assert result.exit_code == 1
    assert "Connection refused" in result.output or "ConnectError" in result.output
    assert "answer" not in result.stdout.lower()


# ----------------------------------------------------------------------------- 6. the CLI
def test_shared_options_before_the_command(store: str) -> None:
    result = CliRunner().invoke(main, ["--store", store, "--kb", "demo", "--json", "ls", "/"])
    assert result.exit_code == 0, result.output
    assert "people" in json.loads(result.stdout)["sub_dirs"]


def test_get_and_read_by_name_alias_and_document_id(store: str) -> None:
    lu_xun = ok(run(store, "get", "Lu Xun")).stdout
    assert ok(run(store, "get", "鲁迅")).stdout == lu_xun  # one person, declared in both languages
    assert ok(run(store, "get", "Zhou Shuren")).stdout == lu_xun
    assert "鲁迅，原名周树人" in ok(run(store, "get", "zh/鲁迅")).stdout
    article = ok(run(store, "get", "en/Lu Xun")).stdout
    assert "was the pen name of Zhou Shuren" in article
    assert ok(run(store, "get", "/sources/articles/en/Lu Xun")).stdout == article
    read = json.loads(ok(run(store, "read", "鲁迅", "--json")).stdout)
    assert read[0]["path"] == "/people/Lu Xun"


def test_an_ambiguous_name_lists_the_pages(store: str, workdir: Path) -> None:
    ok(run(store, "put", "/places/Lu Xun", str(write(workdir / "p.md", "A place.\n"))))
    out = refused(store, "get", "Lu Xun", says="2 pages are named 'Lu Xun'")
    assert "/people/Lu Xun" in out.output
    assert "/places/Lu Xun" in out.output


def test_add_takes_several_files(store: str, workdir: Path) -> None:
    a = write(workdir / "notes" / "a.md", "Sendai is a city in Japan.\n")
    b = write(workdir / "notes" / "b.md", "Tokyo is a city in Japan.\n")
    ok(run(store, "add", str(a.relative_to(workdir)), str(b.relative_to(workdir))))
    assert {"notes/a", "notes/b"} <= set(doc_ids(store))


def test_kbs_lists_and_drops(store: str) -> None:
    ok(run(store, "init", kb="scratch"))
    listed = json.loads(ok(run(store, "kbs", "--json")).stdout)
    assert [r["kb"] for r in listed] == ["demo", "scratch"]
    assert listed[0]["documents"] == 13
    refused(store, "kbs", "--drop", stdin="n\n", says="drop kb 'demo'")
    ok(run(store, "kbs", "--drop", "--yes", kb="scratch"))
    assert [r["kb"] for r in json.loads(ok(run(store, "kbs", "--json")).stdout)] == ["demo"]


def test_errors_in_json_mode_are_json(store: str) -> None:
    result = run(store, "get", "/nowhere", "--json")
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "NotFound"
    assert "/nowhere" in error["message"]
    usage = run(store, "ls", "--page", "1", "--all", "--json")
    assert json.loads(usage.stdout)["error"]["type"] == "UsageError"


def test_a_closed_pipe_ends_quietly(store: str) -> None:
    # `true` exits without reading, long before the interpreter has started: the write hits a
    # closed pipe every time.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    shell = f"{sys.executable} -m wikikv get '/people/Lu Xun' --store '{store}' --kb demo | true"
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {shell}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.stderr == ""
    assert done.returncode == 141  # what a shell reports for a tool ended by SIGPIPE


def test_rm_of_a_source_is_refused_and_names_remove(store: str) -> None:
    """A source is cited by character offset: `rm` refuses it (as HTTP and MCP do) and names
    `wikikv remove`; so does `rm -r` of a directory that holds the sources; --force deletes."""
    out = refused(store, "rm", "/sources/articles/en%2FLu Xun", "--yes", says="wikikv remove")
    assert "--force" in out.output
    refused(store, "rm", "-r", "/", "--yes", says="wikikv remove")
    refused(store, "rm", "-r", "/sources/digests", "--yes", says="wikikv remove")
    ok(run(store, "rm", "/sources/articles/en%2FLu Xun", "--yes", "--force"))
    assert run(store, "get", "/sources/articles/en%2FLu Xun").exit_code != 0
