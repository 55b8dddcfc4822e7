"""The package's layers: every import inside ``wikikv`` points down (or within its own part).

The order, lowest first (README, "Design: layers"): each entry names top-level parts of the
package (a subpackage or a module); a part may import itself and anything in a lower layer, never
a higher one nor a different part of its own layer. Imports inside functions count: a lazy import
is still a dependency.

An allow-list holds the upward imports still waiting for their fix, each with who is on it. An
entry that no longer matches any import fails the test too, so the fix that removes an arrow
removes its entry in the same change, and the list only shrinks.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import wikikv

PACKAGE = Path(wikikv.__file__).parent

LAYERS: list[set[str]] = [
    {"errors"},
    {"config", "sample", "forked"},
    {"text"},  # text analysis: digest, entities in every language, kinds
    {"llm"},  # providers, prompts, call cache (behind a storage protocol), accounting
    {"store"},  # paths, records, keys, backends, the kb tree protocol
    {"cache"},  # wraps a backend; the store does not know it
    {"search", "review", "pages_md", "dirindex"},
    {"library"},  # the composition root: a store opened with its cache and search wiring
    {"wikikv"},  # the package's public API (``wikikv/__init__.py``)
    {"compile", "query", "vault"},
    {"quality", "evolve"},
    {"interfaces"},
    {"__main__"},
    {"testing"},
    {"bench"},
]

# Imports a part must not make even though its layer allows them: benchmarks take server URLs as
# options, they never start or discover the test servers.
FORBIDDEN: dict[tuple[str, str], str] = {
    ("wikikv.bench", "wikikv.testing.services"): "benchmarks take server URLs as options",
}

# (importer prefix, imported prefix) -> who removes it, and why it is still here.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def _layer_of(part: str) -> int:
    for i, parts in enumerate(LAYERS):
        if part in parts:
            return i
    raise AssertionError(f"wikikv.{part} is in no layer: add it to LAYERS (and the README)")


def _part(module: str) -> str:
    """``wikikv.store.kb`` -> ``store``; the package itself -> ``wikikv``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "wikikv"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every ``wikikv`` module ``path`` imports (at any depth of its code), with the line."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:  # ``from wikikv.compile import categories``: a module
                yield (sub if _is_module(sub := f"{target}.{alias.name}") else target), node.lineno


def _edges() -> list[tuple[str, str, int]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = _module_name(path)
        for target, line in _imports(path):
            if target == "wikikv" or target.startswith("wikikv."):
                out.append((importer, target, line))
    return out


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _violations() -> list[tuple[str, str, int, str]]:
    """(importer, imported, line, why) of every import that breaks the layer order."""
    found = []
    for importer, target, line in _edges():
        src, dst = _part(importer), _part(target)
        if src == dst:
            continue
        low, high = _layer_of(dst), _layer_of(src)
        if low > high:
            found.append((importer, target, line, f"{src} imports {dst}, a higher layer"))
        elif low == high:
            found.append((importer, target, line, f"{src} imports {dst}, a peer in its layer"))
    return found


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    parts.discard("__init__")
    parts.add("wikikv")
    missing = sorted(p for p in parts if not any(p in layer for layer in LAYERS))
    assert not missing, f"parts with no layer (add them to LAYERS and the README): {missing}"


def test_no_import_points_up_the_layers() -> None:
    unexpected = [
        f"{importer} line {line} imports {target}: {why}"
        for importer, target, line, why in _violations()
        if not any(_under(importer, a) and _under(target, b) for a, b in ALLOWED_UPWARD)
    ]
    assert not unexpected, "upward imports:\n" + "\n".join(unexpected)


def test_every_allowed_upward_import_still_exists() -> None:
    """A fixed arrow takes its allow-list entry with it (the list only shrinks)."""
    violations = _violations()
    stale = [
        f"{a} -> {b} ({who})"
        for (a, b), who in ALLOWED_UPWARD.items()
        if not any(_under(i, a) and _under(t, b) for i, t, _, _ in violations)
    ]
    assert not stale, "no longer needed, remove from ALLOWED_UPWARD:\n" + "\n".join(stale)


def test_forbidden_imports_are_absent() -> None:
    found = [
        f"{importer} line {line} imports {target}: {why}"
        for importer, target, line in _edges()
        for (a, b), why in FORBIDDEN.items()
        if _under(importer, a) and _under(target, b)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from wikikv.cache.tiers import CachedBackend\n", "store imports cache, a higher layer"),
        ("from wikikv.review import ReviewQueue\n", "search imports review, a peer in its layer"),
        ("def f():\n    import wikikv.interfaces.cli\n", "imports interfaces, a higher layer"),
        ("from ..compile import model\n", "imports compile, a higher layer"),
    ],
)
def test_the_check_sees_an_upward_import(
    source: str, expected: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The checker itself can fail: a planted upward import (at module level, inside a function,
    or relative) is reported."""
    fake = tmp_path / "wikikv"
    part = "store" if "cache" in source else "search"
    (fake / part).mkdir(parents=True)
    (fake / "__init__.py").write_text("", encoding="utf-8")
    (fake / part / "__init__.py").write_text("", encoding="utf-8")
    (fake / part / "planted.py").write_text(source, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    reasons = [why for _, _, _, why in _violations()]
    assert any(expected in why for why in reasons), reasons
