"""A deterministic generator of the WikiKV paper's medium wiki, and of larger ones for scale runs.

The tree has the paper's five levels: the root index, dimensions, entity pages, and the sources
(``/sources/digests/<id>``, ``/sources/articles/<id>``). Names mix Chinese and English; pages hold
1-3 KB of text. Every directory stays within the fan-out bound: the medium wiki (about 2,000 nodes)
has eight dimensions of about 185 entity pages each; larger wikis add a routing level
(``/<dimension>/<part>/<entity>``) with about 180 entities per part, and bucket the sources
(``/sources/digests/<bucket>/<id>``).

Entity names are a stem and a suffix (``鲁迅日记``, ``Lu Xun Letters``); each stem appears with
twelve suffixes in a directory, so the prefix ``<dir>/<stem>`` selects exactly twelve pages — the
"about a dozen results" of the Q4 workload.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from wikikv.config import FANOUT_BOUND
from wikikv.errors import ConfigError
from wikikv.store.order import ordered
from wikikv.store.paths import ROOT, join
from wikikv.store.records import FileMeta

MEDIUM_NODES = 2000
SCALE_THRESHOLD = 10_000  # above this many nodes the routing level and source buckets appear
PER_LEAF = 180
SOURCE_BUCKET = 200
CREATED_AT = 1_700_000_000.0

CN_STEMS = (
    "鲁迅", "周作人", "许广平", "胡适", "郭沫若", "茅盾", "巴金", "老舍", "曹禺", "沈从文",
    "郁达夫", "朱自清", "冰心", "丁玲", "萧红", "林语堂", "徐志摩", "闻一多", "瞿秋白", "钱玄同",
)  # fmt: skip
EN_STEMS = (
    "Lu Xun", "Zhou Zuoren", "Xu Guangping", "Hu Shi", "Guo Moruo", "Mao Dun", "Ba Jin",
    "Lao She", "Cao Yu", "Shen Congwen", "Yu Dafu", "Zhu Ziqing", "Bing Xin", "Ding Ling",
    "Xiao Hong", "Lin Yutang", "Xu Zhimo", "Wen Yiduo", "Qu Qiubai", "Qian Xuantong",
)  # fmt: skip
CN_SUFFIXES = (
    "日记",
    "书信",
    "小说",
    "杂文",
    "译著",
    "年谱",
    "研究",
    "评论",
    "手稿",
    "诗歌",
    "演讲",
    "序跋",
)
EN_SUFFIXES = (
    "Diaries", "Letters", "Fiction", "Essays", "Translations", "Chronology", "Studies",
    "Criticism", "Manuscripts", "Poems", "Speeches", "Prefaces",
)  # fmt: skip
DIMENSIONS = ("人物", "works", "events", "地点", "organizations", "概念", "periods", "themes")
_CN_WORDS = "新文化运动 白话文 杂文集 北京 上海 绍兴 日本留学 翻译 小说史 木刻 青年 出版社 期刊 批评 传统 启蒙".split()
_EN_WORDS = (
    "the essay collection was first published in Shanghai and later revised by the author "
    "who corresponded with young writers about translation woodcut prints and periodicals "
    "in the years of the new culture movement while teaching literature in Beijing"
).split()


@dataclass(frozen=True)
class Node:
    """One node to write: a directory (``meta`` None) or a page."""

    path: str
    is_dir: bool
    text: str
    meta: FileMeta | None = None


@dataclass
class Leaf:
    """A directory of entity pages (a dimension, or a part of one in larger wikis)."""

    path: str
    count: int
    stems: list[tuple[str, bool]] = field(default_factory=list)  # (stem, is_chinese)


def _corpus(seed: int) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    for i in range(1200):
        if i % 2:
            parts.append("".join(rng.choice(_CN_WORDS) for _ in range(rng.randint(4, 9))) + "。")
        else:
            words = [rng.choice(_EN_WORDS) for _ in range(rng.randint(8, 16))]
            parts.append(" ".join(words).capitalize() + ". ")
    return "".join(parts)


class WikiPlan:
    """The shape of a generated wiki; :meth:`nodes` yields its records parents first."""

    def __init__(self, n_nodes: int = MEDIUM_NODES, seed: int = 7) -> None:
        if n_nodes < 200:
            raise ConfigError(f"a generated wiki needs at least 200 nodes, not {n_nodes}")
        self.target = n_nodes
        self.seed = seed
        self.routed = n_nodes > SCALE_THRESHOLD
        src = round(n_nodes * (0.10 if self.routed else 0.25))
        self.n_digests = src // 2
        self.n_articles = src - self.n_digests
        self._text = _corpus(seed)
        self._bytes_per_char = len(self._text.encode("utf-8")) / len(self._text)
        self.dims: list[str] = []
        self.parts: dict[str, list[str]] = {}  # dimension -> its parts (routed wikis)
        self.leaves: list[Leaf] = []
        self._layout()
        self.n_nodes = sum(1 for _ in self.paths())

    # ------------------------------------------------------------------ layout
    def _bucketed(self, count: int) -> bool:
        return count > FANOUT_BOUND

    def _layout(self) -> None:
        dirs_src = (
            3
            + (math.ceil(self.n_digests / SOURCE_BUCKET) if self._bucketed(self.n_digests) else 0)
            + (math.ceil(self.n_articles / SOURCE_BUCKET) if self._bucketed(self.n_articles) else 0)
        )
        n_src = self.n_digests + self.n_articles
        if not self.routed:
            n_dims = len(DIMENSIONS)
            entities = self.target - 1 - n_dims - dirs_src - n_src
            self.dims = ["/" + d for d in DIMENSIONS]
            per = [entities // n_dims + (1 if i < entities % n_dims else 0) for i in range(n_dims)]
            self.leaves = [Leaf(d, c) for d, c in zip(self.dims, per, strict=True)]
        else:
            approx = self.target - 1 - dirs_src - n_src
            n_leaves = math.ceil(approx / (PER_LEAF + 1))
            n_dims = max(len(DIMENSIONS), math.ceil(n_leaves / 200))
            entities = approx - n_dims - n_leaves
            base = [DIMENSIONS[i % len(DIMENSIONS)] for i in range(n_dims)]
            self.dims = [
                "/" + (b if i < len(DIMENSIONS) else f"{b}-{i // len(DIMENSIONS)}")
                for i, b in enumerate(base)
            ]
            for i in range(n_leaves):
                dim = self.dims[i % n_dims]
                parts = self.parts.setdefault(dim, [])
                label = (
                    f"卷{len(parts):03d}" if not dim[1:2].isascii() else f"part-{len(parts):03d}"
                )
                parts.append(join(dim, label))
            leaf_paths = [p for d in self.dims for p in self.parts.get(d, [])]
            per = [
                entities // n_leaves + (1 if i < entities % n_leaves else 0)
                for i in range(n_leaves)
            ]
            self.leaves = [Leaf(p, c) for p, c in zip(leaf_paths, per, strict=True)]
        pool = [(s, True) for s in CN_STEMS] + [(s, False) for s in EN_STEMS]
        for j, leaf in enumerate(self.leaves):
            if leaf.count > FANOUT_BOUND or leaf.count > len(pool) * len(CN_SUFFIXES):
                raise ConfigError(f"{leaf.path} would hold {leaf.count} entities")
            need = math.ceil(leaf.count / len(CN_SUFFIXES))
            rng = random.Random(self.seed * 1_000_003 + j)
            leaf.stems = rng.sample(pool, need)

    def leaf_names(self, j: int) -> list[str]:
        """The entity names of leaf ``j`` in entity-number order (shuffled: a page's number,
        which picks its text, says nothing of its name)."""
        leaf = self.leaves[j]
        names: list[str] = []
        for stem, cn in leaf.stems:
            if cn:
                names.extend(stem + suf for suf in CN_SUFFIXES)
            else:
                names.extend(f"{stem} {suf}" for suf in EN_SUFFIXES)
        names = names[: leaf.count]
        random.Random(self.seed + j).shuffle(names)
        return names

    def _source_dirs(self, kind: str, count: int) -> list[str]:
        base = f"/sources/{kind}"
        if not self._bucketed(count):
            return [base]
        return [join(base, f"b{i:04d}") for i in range(math.ceil(count / SOURCE_BUCKET))]

    def source_path(self, kind: str, i: int) -> str:
        count = self.n_digests if kind == "digests" else self.n_articles
        ident = f"{kind[0]}{i:07d}"
        if not self._bucketed(count):
            return f"/sources/{kind}/{ident}"
        return f"/sources/{kind}/b{i // SOURCE_BUCKET:04d}/{ident}"

    # ------------------------------------------------------------------ nodes
    def paths(self) -> Iterator[str]:
        for node in self.nodes(with_text=False):
            yield node.path

    def nodes(self, with_text: bool = True) -> Iterator[Node]:
        """Every node, parents before children, siblings in listing order (directories of a
        parent before its pages, as listings keep sub-directories and files apart, each in the
        order of :mod:`wikikv.store.order`), so an engine that lists children in the order
        they were written lists them as WikiKV does."""
        yield Node(ROOT, True, self._dir_text(ROOT, 0) if with_text else "")
        for d in [join(ROOT, n) for n in ordered(ROOT, [d[1:] for d in self.dims], True)]:
            yield Node(d, True, self._dir_text(d, 1) if with_text else "")
            for part in self.parts.get(d, []):  # numbered: already in order
                yield Node(part, True, self._dir_text(part, 2) if with_text else "")
        yield Node("/sources", True, self._dir_text("/sources", 1) if with_text else "")
        k = 0
        for j, leaf in enumerate(self.leaves):
            names = self.leaf_names(j)
            number = {name: k + i for i, name in enumerate(names)}
            for name in ordered(leaf.path, names, False):
                path = join(leaf.path, name)
                yield self._entity(path, name, number[name]) if with_text else Node(path, False, "")
            k += len(names)
        for kind, count in (("articles", self.n_articles), ("digests", self.n_digests)):
            yield Node(f"/sources/{kind}", True, self._dir_text(kind, 2) if with_text else "")
            if self._bucketed(count):
                for d in self._source_dirs(kind, count):
                    yield Node(d, True, self._dir_text(d, 3) if with_text else "")
            for i in range(count):
                path = self.source_path(kind, i)
                yield self._source(path, kind, i) if with_text else Node(path, False, "")

    def _slice(self, key: int, lo: int = 1100, hi: int = 2900) -> str:
        rng = random.Random(key)
        size = rng.randint(lo, hi)
        chars = int(size / self._bytes_per_char)
        start = rng.randrange(0, len(self._text) - chars)
        return self._text[start : start + chars]

    def _dir_text(self, path: str, level: int) -> str:
        body = self._slice(hash_key(path), 200, 600)
        return f"# {path}\n\nLevel {level} overview.\n\n{body}"

    def _entity(self, path: str, name: str, k: int) -> Node:
        text = f"# {name}\n\n{self._slice(self.seed * 7_919 + k)}"
        meta = FileMeta(
            kind="entity",
            created_at=CREATED_AT,
            confidence=0.9,
            sources=[self.source_path("digests", k % max(1, self.n_digests))],
            tags=[path.split("/")[1]],
            summary=text[2 : 2 + 60],
            title=name,
        )
        return Node(path, False, text, meta)

    def _source(self, path: str, kind: str, i: int) -> Node:
        text = f"# {kind[:-1]} {i}\n\n{self._slice(self.seed * 104_729 + i * 2 + (kind == 'articles'))}"
        meta = FileMeta(
            kind=kind[:-1],
            created_at=CREATED_AT,
            sources=[self.source_path("articles", i % max(1, self.n_articles))]
            if kind == "digests"
            else [],
            title=f"{kind[:-1]} {i}",
        )
        return Node(path, False, text, meta)

    # ------------------------------------------------------------- workloads
    def page_paths(self, count: int, seed: int = 1) -> list[str]:
        """``count`` distinct page paths chosen at random (entities and sources alike)."""
        rng = random.Random(seed)
        n_ent = sum(leaf.count for leaf in self.leaves)
        total = n_ent + self.n_digests + self.n_articles
        out: list[str] = []
        for k in rng.sample(range(total), min(count, total)):
            if k < n_ent:
                out.append(self.entity_path(k))
            elif k < n_ent + self.n_digests:
                out.append(self.source_path("digests", k - n_ent))
            else:
                out.append(self.source_path("articles", k - n_ent - self.n_digests))
        return out

    def entity_path(self, k: int) -> str:
        for j, leaf in enumerate(self.leaves):
            if k < leaf.count:
                return join(leaf.path, self.leaf_names(j)[k])
            k -= leaf.count
        raise IndexError(k)

    def listing_dirs(self, count: int, seed: int = 2) -> list[str]:
        """Directories of about 180 children (the Q2 workload)."""
        rng = random.Random(seed)
        leaves = [leaf.path for leaf in self.leaves]
        return [rng.choice(leaves) for _ in range(count)]

    def descents(self, count: int, seed: int = 3) -> list[tuple[list[str], str]]:
        """Known paths from the root down to an entity: (directories to list, page to read)."""
        rng = random.Random(seed)
        out: list[tuple[list[str], str]] = []
        for _ in range(count):
            j = rng.randrange(len(self.leaves))
            leaf = self.leaves[j]
            chain = [ROOT, "/" + leaf.path.split("/")[1]]
            if leaf.path not in chain:
                chain.append(leaf.path)
            out.append((chain, join(leaf.path, rng.choice(self.leaf_names(j)))))
        return out

    def prefixes(self, count: int, seed: int = 4) -> list[str]:
        """Path prefixes selecting exactly twelve pages each (the Q4 workload)."""
        rng = random.Random(seed)
        full = len(CN_SUFFIXES)
        out: list[str] = []
        while len(out) < count:
            j = rng.randrange(len(self.leaves))
            leaf = self.leaves[j]
            complete = leaf.stems[: leaf.count // full]
            if complete:
                out.append(join(leaf.path, rng.choice(complete)[0]))
        return out


def hash_key(text: str) -> int:
    """A stable (not per-process salted) integer for ``text``."""
    h = 0
    for b in text.encode("utf-8"):
        h = (h * 131 + b) & 0xFFFFFFFF
    return h
