"""The kb's package-internal API is the only way in: no module of ``wikikv`` other than the kb's
own (``store/kb.py``, ``reads.py``, ``writes.py``) touches a private member of a
:class:`KnowledgeBase` — the bulk writer, fsck, the search index and compile state go through
``commit`` / ``raw`` / ``index_ops`` / ``guard`` / ``link`` / ``held_lease``."""

from __future__ import annotations

import ast
from pathlib import Path

import wikikv
from wikikv.store.store import open_store

PACKAGE = Path(wikikv.__file__).parent
OWN = {PACKAGE / "store" / name for name in ("kb.py", "reads.py", "writes.py")}


def _private_members() -> set[str]:
    store = open_store("memory://")
    kb = store.create_kb("k")
    names = {n for n in dir(kb) if n.startswith("_") and not n.startswith("__")}
    store.close()
    return names


def _reach_ins(source: str, private: set[str]) -> list[tuple[int, str]]:
    """``x._member`` where ``x`` is not ``self``: a reach into another object's privates."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_reaches_into_a_kbs_private_members() -> None:
    private = _private_members()
    assert {"_lease", "_written", "_unlink"} <= private  # the set the check looks for
    found = [
        f"{path.relative_to(PACKAGE)} line {line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in OWN
        for line, text in _reach_ins(path.read_text(encoding="utf-8"), private)
    ]
    assert not found, "use the kb's package-internal API instead:\n" + "\n".join(found)


def test_the_check_sees_a_reach_in() -> None:
    private = _private_members()
    assert _reach_ins("kb._unlink('/a')\n", private) == [(1, "kb._unlink")]
    assert _reach_ins("self.kb._lease = None\n", private) == [(1, "self.kb._lease")]
    assert _reach_ins("self._lease = None\n", private) == []
