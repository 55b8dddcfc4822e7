"""``wikikv edit``: the page in an editor (a script here), written back with the stamp's check;
an edit the store refuses is kept in a file the error names."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from wikikv.interfaces.cli import main
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

# The "editor": replaces OLD by NEW in the file it is given; with a third argument, first writes
# that text as the page through the library (someone else's edit while the file is open).
EDITOR = """
import sys
from pathlib import Path

old, new, path = sys.argv[1], sys.argv[2], Path(sys.argv[-1])
if len(sys.argv) == 6:
    from wikikv.store.store import open_store

    store, page = sys.argv[3].split("::")
    with open_store(store) as s:
        kb = s.kb("demo")
        kb.put(page, "Their edit.\\n")
path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    ok(CliRunner().invoke(main, ["demo", "--store", str(root / "store"), "--json"]))
    return root / "store"


@pytest.fixture
def store(demo: Path, tmp_path: Path) -> str:
    import shutil

    shutil.copytree(demo, tmp_path / "store")
    return str(tmp_path / "store")


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def edit(store: str, target: str, editor: list[str], *extra: str) -> Result:
    script = Path(store).parent / "editor.py"
    script.write_text(EDITOR, encoding="utf-8")
    command = " ".join([sys.executable, str(script), *(f"'{w}'" for w in editor)])
    args = ["edit", target, "--store", store, "--kb", "demo", *extra]
    return CliRunner(env={"VISUAL": command}).invoke(main, args)


def page(store: str, path: str) -> FileRecord:
    with open_store(store) as s:
        rec = s.kb("demo").get(path)
    assert isinstance(rec, FileRecord)
    return rec


def test_an_edit_is_written_back_as_a_hand_edit(store: str) -> None:
    before = page(store, "/people/Lu Xun")
    out = ok(edit(store, "鲁迅", ["# Lu Xun", "# Lu Xun (edited)"], "--json"))
    assert json.loads(out.stdout) == {
        "path": "/people/Lu Xun",
        "version": before.version + 1,
        "written": True,
    }
    after = page(store, "/people/Lu Xun")
    assert "# Lu Xun (edited)" in after.text
    assert after.meta.edited_by  # builds merge into it from now on
    assert "wikikv" not in after.meta.extra


def test_an_editor_closed_unsaved_writes_nothing(store: str) -> None:
    before = page(store, "/people/Lu Xun")
    result = CliRunner(env={"VISUAL": "true"}).invoke(
        main, ["edit", "/people/Lu Xun", "--store", store, "--kb", "demo"]
    )
    assert "No change" in ok(result).stdout
    assert page(store, "/people/Lu Xun").version == before.version


def test_a_page_changed_while_open_is_not_overwritten_and_the_edit_is_kept(store: str) -> None:
    theirs = f"{store}::/people/Lu Xun"
    result = edit(store, "/people/Lu Xun", ["# Lu Xun", "# Lu Xun (mine)", theirs, "x"])
    assert result.exit_code == 1
    assert "version conflict on /people/Lu Xun" in result.stderr
    assert "`wikikv edit` it again" in result.stderr
    assert page(store, "/people/Lu Xun").text == "Their edit.\n"
    kept = Path(result.stderr.rsplit("your edit is kept in ", 1)[1].strip())
    assert "# Lu Xun (mine)" in kept.read_text(encoding="utf-8")
    kept.unlink()


def test_an_edit_that_breaks_the_front_matter_is_refused_and_kept(store: str) -> None:
    before = page(store, "/people/Lu Xun")
    result = edit(store, "/people/Lu Xun", ["title: Lu Xun", "title: [unclosed"])
    assert result.exit_code == 1
    assert "front matter is not valid YAML" in result.stderr
    assert page(store, "/people/Lu Xun").version == before.version
    kept = Path(result.stderr.rsplit("your edit is kept in ", 1)[1].strip())
    assert "title: [unclosed" in kept.read_text(encoding="utf-8")
    kept.unlink()


def test_a_directory_is_not_edited(store: str) -> None:
    result = CliRunner(env={"VISUAL": "true"}).invoke(
        main, ["edit", "/people", "--store", store, "--kb", "demo"]
    )
    assert result.exit_code == 1
    assert "is a directory" in result.stderr
