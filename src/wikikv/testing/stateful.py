"""A Hypothesis state machine that drives a kb against a dict model, and the tree invariants.

:func:`tree_problems` is a model-free structural check (one scan of the node, page, path-index
and name-index keyspaces): every listed child exists, every live node is listed once by its
parent, the indexes hold exactly the live paths and names, pages stay within their bound.

:class:`KBStateMachine` puts, mkdirs, deletes and moves over a small alphabet of segments chosen
to collide (``a`` / ``ab`` share a text prefix, ``é`` / ``É`` fold alike, titles and aliases that
fold onto a page's own name), predicts each outcome — including which typed error — from a dict
model, and after every step checks :func:`tree_problems`, every record against the model,
``prefix`` against the model's sorted paths and ``find_names`` against its names and aliases.
Subclass it and override :meth:`KBStateMachine.open_store` to pick the backend.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import msgspec
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from wikikv.config import StoreSettings
from wikikv.errors import (
    AlreadyExists,
    DirectoryNotEmpty,
    InvalidPath,
    IsADirectory,
    NotADirectory,
    NotFound,
    WikiKVError,
)
from wikikv.store.kb import KnowledgeBase, names_of
from wikikv.store.keys import fold_name
from wikikv.store.paths import (
    ROOT,
    ancestors,
    basename,
    depth,
    is_under,
    join,
    parent,
    unescape_segment,
)
from wikikv.store.records import (
    DirPage,
    DirRecord,
    FileMeta,
    FileRecord,
    RedirectRecord,
    decode,
)
from wikikv.store.store import Store, open_store

_name_dec = msgspec.msgpack.Decoder(tuple[str, str])


# ====================================================================== invariants
def tree_problems(kb: KnowledgeBase) -> list[str]:
    """Structural problems of ``kb`` (an empty list when it is consistent). Run on a quiet kb."""
    problems: list[str] = []
    keys, backend = kb.keys, kb.backend
    cap = kb.settings.dir_page_entries
    live: dict[str, DirRecord | FileRecord] = {}
    for key, item in backend.scan(*keys.space_range("N")):
        rec = decode(item.value)
        if isinstance(rec, DirPage) or keys.node(rec.path) != key:
            problems.append(f"record under the wrong key: {rec!r:.80}")
            continue
        if rec.version != item.version:
            problems.append(f"{rec.path}: meta.version {rec.version} != stored {item.version}")
        if not isinstance(rec, RedirectRecord):
            live[rec.path] = rec
    if ROOT not in live:
        problems.append("no root directory")
    listed: Counter[str] = Counter()
    pages_seen: set[bytes] = set()
    for path, rec in live.items():
        if not isinstance(rec, DirRecord):
            continue
        if len(rec.sub_dirs) + len(rec.files) > cap:
            problems.append(f"{path}: record lists more than {cap} children")
        subs, files = list(rec.sub_dirs), list(rec.files)
        for page in range(1, rec.meta.pages + 1):
            pkey = keys.dir_page(path, page)
            pages_seen.add(pkey)
            pitem = backend.get(pkey)
            cont = decode(pitem.value) if pitem is not None else None
            if not isinstance(cont, DirPage):
                problems.append(f"{path}: continuation page {page} missing")
                continue
            if len(cont.sub_dirs) + len(cont.files) > cap:
                problems.append(f"{path}: page {page} lists more than {cap} children")
            subs += cont.sub_dirs
            files += cont.files
        if rec.meta.entry_count != len(subs) + len(files):
            problems.append(
                f"{path}: entry_count {rec.meta.entry_count} != {len(subs) + len(files)} listed"
            )
        for names, want in ((subs, DirRecord), (files, FileRecord)):
            for name in names:
                child = join(path, name)
                listed[child] += 1
                found = live.get(child)
                if found is None:
                    problems.append(f"{path}: lists {name!r}, which has no live record")
                elif not isinstance(found, want):
                    problems.append(f"{path}: lists {name!r} as the wrong kind")
    for key, _ in backend.scan(*keys.space_range("D")):
        if key not in pages_seen:
            problems.append(f"stray continuation page {key!r}")
    for path in live:
        if path != ROOT and listed[path] != 1:
            problems.append(f"{path} is listed {listed[path]} times by its parent")
    indexed = {item.value.decode("utf-8") for _, item in backend.scan(*keys.space_range("P"))}
    if indexed != set(live):
        problems.append(
            f"path index drift: extra {sorted(indexed - set(live))}, "
            f"missing {sorted(set(live) - indexed)}"
        )
    want_names = {keys.name_index(n, p) for p, r in live.items() for n in names_of(r)}
    have_names: set[bytes] = set()
    for key, item in backend.scan(*keys.space_range("A")):
        have_names.add(key)
        name, path = _name_dec.decode(item.value)
        if keys.name_index(name, path) != key:
            problems.append(f"name index entry {key!r} holds {(name, path)!r}")
    if have_names != want_names:
        problems.append(
            f"name index drift: {len(have_names - want_names)} extra, "
            f"{len(want_names - have_names)} missing"
        )
    return problems


# ======================================================================= the model
@dataclass
class ModelNode:
    kind: str  # "dir" | "file"
    text: str = ""
    title: str = ""
    aliases: list[str] = field(default_factory=list)

    def names(self, path: str) -> list[str]:
        out = [unescape_segment(basename(path))] if path != ROOT else []
        if self.kind == "file":
            out += [self.title, *self.aliases]
        return [n for n in out if n]


SEGMENTS = ["a", "ab", "b", "é", "É"]
PREFIXES = ["/", "/a", "/a/", "/ab", "/a/a", "/é", "/b/"]
paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3).map(lambda s: "/" + "/".join(s))
titles = st.sampled_from(["", "A", "a", "Ａ", "Title", "é"])
aliases = st.lists(st.sampled_from(["a", "A", "x", "ＡＢ", "ab"]), max_size=3, unique=True)
texts = st.sampled_from(["", "one", "two", "中文 text"])


class KBStateMachine(RuleBasedStateMachine):
    """Drives a kb and a dict model side by side (see the module docstring)."""

    #: Small pages so continuation pages take part (five segment choices per directory).
    settings = StoreSettings(dir_page_entries=3)

    def __init__(self) -> None:
        super().__init__()
        self.store = self.open_store()
        self.kb = self.store.create_kb("sm")
        self.nodes: dict[str, ModelNode] = {ROOT: ModelNode("dir")}
        self.redirects: dict[str, str] = {}

    def open_store(self) -> Store:
        """A fresh, empty store for one run (override to choose the backend)."""
        return open_store("memory://", self.settings)

    def teardown(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ model
    def _children(self, path: str) -> list[str]:
        return [p for p in self.nodes if p != ROOT and parent(p) == path]

    def _file_ancestor(self, path: str) -> bool:
        return any(a in self.nodes and self.nodes[a].kind == "file" for a in ancestors(path))

    def _make_live(self, path: str, node: ModelNode) -> None:
        for a in ancestors(path):
            if a not in self.nodes:
                self.nodes[a] = ModelNode("dir")
                self.redirects.pop(a, None)
        self.nodes[path] = node
        self.redirects.pop(path, None)

    def _expect_error(self, error: type[WikiKVError], call: object) -> None:
        assert callable(call)
        try:
            call()
        except error:
            return
        raise AssertionError(f"expected {error.__name__}")

    # ------------------------------------------------------------ rules
    @rule(path=paths, text=texts, title=titles, names=aliases)
    def put(self, path: str, text: str, title: str, names: list[str]) -> None:
        meta = FileMeta(title=title, aliases=names)
        cur = self.nodes.get(path)
        if cur is not None and cur.kind == "dir":
            self._expect_error(IsADirectory, lambda: self.kb.put(path, text, meta))
        elif self._file_ancestor(path):
            self._expect_error(NotADirectory, lambda: self.kb.put(path, text, meta))
        else:
            self.kb.put(path, text, meta)
            self._make_live(path, ModelNode("file", text, title, list(names)))

    @rule(path=paths, text=texts)
    def mkdir(self, path: str, text: str) -> None:
        cur = self.nodes.get(path)
        if (cur is not None and cur.kind == "file") or self._file_ancestor(path):
            self._expect_error(NotADirectory, lambda: self.kb.mkdir(path, text))
            return
        self.kb.mkdir(path, text)
        if cur is None:
            self._make_live(path, ModelNode("dir", text))
        elif text:
            cur.text = text

    @rule(path=paths, recursive=st.booleans())
    def delete(self, path: str, recursive: bool) -> None:
        cur = self.nodes.get(path)
        if cur is None and path not in self.redirects:
            self._expect_error(NotFound, lambda: self.kb.delete(path, recursive=recursive))
        elif cur is None:
            self.kb.delete(path)
            del self.redirects[path]
        elif cur.kind == "dir" and self._children(path) and not recursive:
            self._expect_error(DirectoryNotEmpty, lambda: self.kb.delete(path))
        else:
            self.kb.delete(path, recursive=recursive)
            for p in [p for p in self.nodes if is_under(p, path)]:
                del self.nodes[p]

    @rule(src=paths, dst=paths, redirect=st.booleans())
    def move(self, src: str, dst: str, redirect: bool) -> None:
        def call() -> None:
            self.kb.move(src, dst, redirect=redirect)

        if is_under(dst, src):
            self._expect_error(InvalidPath, call)
        elif src not in self.nodes:
            self._expect_error(NotFound, call)
        elif dst in self.nodes:
            self._expect_error(AlreadyExists, call)
        elif self._file_ancestor(dst):
            self._expect_error(NotADirectory, call)
        elif any(
            depth(dst + p[len(src) :]) > self.settings.max_depth
            for p in self.nodes
            if is_under(p, src)
        ):
            self._expect_error(InvalidPath, call)
        elif any(
            len(self._children(p)) > self.settings.dir_page_entries
            for p in self.nodes
            if is_under(p, src)
        ):
            # Moving a directory that has continuation pages is refused (a documented limit).
            event("move refused: paged directory")
            self._expect_error(DirectoryNotEmpty, call)
        else:
            call()
            moved = sorted((p for p in self.nodes if is_under(p, src)), key=len)
            taken = {p: self.nodes.pop(p) for p in moved}
            for old in moved:
                new = dst + old[len(src) :]
                self._make_live(new, taken[old])
                if redirect:
                    self.redirects[old] = new
                else:
                    self.redirects.pop(old, None)

    # ------------------------------------------------------------ checks
    @invariant()
    def tree_is_consistent(self) -> None:
        if any(len(self._children(p)) > self.settings.dir_page_entries for p in self.nodes):
            event("a directory has continuation pages")
        assert tree_problems(self.kb) == []

    @invariant()
    def records_match_the_model(self) -> None:
        for path, node in self.nodes.items():
            rec = self.kb.get(path, follow_redirects=False)
            assert rec is not None, path
            if node.kind == "dir":
                assert isinstance(rec, DirRecord), path
                listing = self.kb.ls_all(path)
                assert sorted(listing.child_paths()) == sorted(self._children(path))
                assert set(listing.sub_dirs) == {
                    basename(c) for c in self._children(path) if self.nodes[c].kind == "dir"
                }
            else:
                assert isinstance(rec, FileRecord), path
                assert (rec.meta.title, rec.meta.aliases) == (node.title, node.aliases)
            assert rec.text == node.text, path
        for old, target in self.redirects.items():
            rec = self.kb.get(old, follow_redirects=False)
            assert isinstance(rec, RedirectRecord), old
            assert rec.target == target
            resolved = self.kb.get(old)
            want = self._resolve(old)
            assert (resolved.path if resolved is not None else None) == want, old
        stored = sum(1 for _ in self.kb.backend.scan(*self.kb.keys.space_range("N")))
        assert stored == len(self.nodes) + len(self.redirects)

    def _resolve(self, path: str) -> str | None:
        for _ in range(8):
            if path in self.nodes:
                return path
            if path not in self.redirects:
                return None
            path = self.redirects[path]
        return None

    @invariant()
    def prefix_matches_the_model(self) -> None:
        for text in PREFIXES:
            want = sorted(p for p in self.nodes if p.startswith(text))
            assert self.kb.prefix(text) == want, text
            assert self.kb.prefix(text, limit=2) == want[:2], text

    @invariant()
    def names_match_the_model(self) -> None:
        want = {(fold_name(n), p) for p, node in self.nodes.items() for n in node.names(p)}
        hits = self.kb.find_names("")
        assert {(fold_name(h.name), h.path) for h in hits} == want
        assert len(hits) == len(want)
        for folded in {f for f, _ in want}:
            exact = {h.path for h in self.kb.find_names(folded.upper(), exact=True)}
            assert exact == {p for f, p in want if f == folded}, folded
            starting = {h.path for h in self.kb.find_names(folded[:1])}
            assert starting >= exact
