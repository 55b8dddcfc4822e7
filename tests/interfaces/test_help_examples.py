"""Every example in a command's ``--help`` runs, as written, on the demo kb.

Each command's examples run in a fresh copy of a workspace: the default store ``./wikikv-data``
holding the ``demo`` kb, plus the small files the examples name (``notes/a.md``, ``my-notes/``,
...). Left out, with the reason: the ``bench`` group (benchmarks build their own stores and take
minutes; they are exercised by tests/bench) and commands that serve until stopped; ``edit``'s
editor is one that closes the file unsaved. An example may
set environment variables first (``NAME=... wikikv ...``; ``...`` stands for a test secret);
one without ``--kb`` runs on the demo kb (``WIKIKV_KB=demo``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wikikv.bench.compile import shared_data
from wikikv.interfaces.cli import main
from wikikv.review import ReviewQueue
from wikikv.store.store import open_store

LONG_RUNNING = {"serve", "mcp"}
# Examples whose last word is an id that only an earlier command can make: that command runs
# first and the id it prints (JSON ``id``) stands in for the one in the example.
MAKES_ID = {("keys", "revoke"): ["keys", "create", "--kb", "demo", "--name", "tmp", "--json"]}
# Examples that read what another command writes: that command's example runs first.
NEEDS = {
    ("import",): ("export",),
    ("verify",): ("export",),
    ("errorbook", "import"): ("errorbook", "export"),
}
# Examples that need something in the kb first: these commands run before them.
PREPARE: dict[tuple[str, ...], list[list[str]]] = {
    # A page with a wikilink to nothing gives lint an Error Book entry (dangling_link).
    ("errorbook", "show"): [
        ["put", "--kb", "demo", "/topics/Loose End", "loose-end.md"],
        ["lint", "--kb", "demo"],
    ],
}
# Examples whose last word is the key of a review item: one is filed first.
NEEDS_REVIEW_ITEM = {("review", "show"), ("review", "accept"), ("review", "reject")}
# What an example's ``NAME=...`` placeholder stands for here.
PLACEHOLDER_VALUE = "a-secret-for-the-help-examples"
SKIPPED_GROUPS = {"bench"}


def leaf_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            if name not in SKIPPED_GROUPS:
                yield from leaf_commands(cmd, (*prefix, name))
        elif name not in LONG_RUNNING:
            yield (*prefix, name)


def examples(command: tuple[str, ...]) -> list[str]:
    text = CliRunner().invoke(main, [*command, "--help"]).stdout
    section = text.split("Example:", 1)[1]
    out: list[str] = []
    for raw in section.splitlines():
        line = raw.strip()
        if _command_words(line):
            out.append(line)
        elif out:
            break
    return out


def _command_words(line: str) -> list[str]:
    """The words after ``wikikv`` of an example line (``NAME=value`` prefixes allowed)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return []
    while words and "=" in words[0] and words[0].split("=", 1)[0].isupper():
        words = words[1:]
    return words[1:] if words and words[0] == "wikikv" else []


def _run_example(line: str, monkeypatch: pytest.MonkeyPatch, made_id: str | None) -> None:
    for word in shlex.split(line):
        name, eq, value = word.partition("=")
        if not eq or not name.isupper():
            break
        monkeypatch.setenv(name, PLACEHOLDER_VALUE if value == "..." else value)
    words = _command_words(line)
    target = None
    if ">" in words:
        at = words.index(">")
        words, target = words[:at], words[at + 1]
    if made_id is not None:  # it stands for the word KEY, else for the last word
        words[words.index("KEY") if "KEY" in words else -1] = made_id
    result = CliRunner().invoke(main, words, input="")
    assert result.exit_code == 0, (line, result.output)
    if target is not None:
        Path(target).write_text(result.stdout, encoding="utf-8")


COMMANDS = list(leaf_commands(main))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    result = CliRunner().invoke(main, ["demo", "--store", str(root / "wikikv-data"), "--json"])
    assert result.exit_code == 0, result.output
    files = {
        "new-essays/Sendai.md": "Sendai is a city in Japan where Lu Xun studied medicine.\n",
        "notes/a.md": "Tokyo is the capital of Japan. Lu Xun lived in Tokyo.\n",
        "notes/b.md": "Shanghai is a city in China. Lu Xun died in Shanghai.\n",
        "my-notes/Sherlock.md": "Sherlock Holmes lived at Baker Street in London.\n",
        "corpus.jsonl": '{"id": "c1", "title": "Beijing", "text": "Beijing is the capital."}\n',
        "tenants/alpha/a.md": "Alpha is a small town by the sea.\n",
        "tenants/beta/b.md": "Beta is a mountain village.\n",
        "loose-end.md": "# Loose End\nSee [[/people/Nobody Here|Nobody Here]].\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_examples_are_found() -> None:
    assert examples(("get",))[:2] == [
        'wikikv get "/people/Lu Xun" --kb demo',
        "wikikv get 鲁迅 --kb demo",
    ]
    assert ("ls",) in COMMANDS
    assert not any(c[0] == "bench" for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_examples_run_on_the_demo_kb(
    command: tuple[str, ...], workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "ws"
    shutil.copytree(workspace, work)
    # Examples may name the shared corpora as seen from a checkout: ../shared/data/...
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_data())
    monkeypatch.chdir(work)
    for var in ("WIKIKV_STORE", "WIKIKV_LLM"):
        monkeypatch.delenv(var, raising=False)
    # An example without --kb runs on the demo kb too.
    monkeypatch.setenv("WIKIKV_KB", "demo")
    # `wikikv edit` opens no editor here: this one closes the file unsaved.
    monkeypatch.setenv("VISUAL", "true")
    lines = examples(command)
    assert lines, f"wikikv {' '.join(command)} --help shows no runnable example"
    made_id = None
    if command in MAKES_ID:
        made = CliRunner().invoke(main, MAKES_ID[command])
        assert made.exit_code == 0, made.output
        made_id = json.loads(made.stdout)["id"]
    for words in PREPARE.get(command, []):
        prepared = CliRunner().invoke(main, words)
        assert prepared.exit_code == 0, (words, prepared.output)
    if command in NEEDS_REVIEW_ITEM:
        store = open_store("./wikikv-data")
        try:
            item = ReviewQueue(store.kb("demo")).file(
                "hand-edit", "/people/Lu Xun", "a test item for the help examples"
            )
        finally:
            store.close()
        assert item is not None
        made_id = item.key
    if command in NEEDS:
        for line in examples(NEEDS[command]):
            _run_example(line, monkeypatch, None)
    for line in lines:
        _run_example(line, monkeypatch, made_id)
    assert os.getcwd() == str(work)
