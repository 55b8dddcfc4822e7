"""The mapped dictionary: jieba's segmentation without loading jieba, built once per dictionary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jieba
import pytest

from wikikv.search.dictcache import LazyDictionary, cache_path, ensure_cache, jieba_dict_file

TEXTS = [
    "鲁迅的故乡在哪里",
    "我冒了严寒回到相隔二千余里别了二十余年的故乡去",
    "孔乙己是站着喝酒而穿长衫的唯一的人",
    "中华人民共和国成立以后的文学史",
    "北京女子师范大学的校长杨荫榆",
    "华老栓忽然坐起身擦着火柴点上遍身油腻的灯盏",
    "㐀㐁鲁迅豈更",  # CJK extension A and compatibility ideographs: one word per character
    "的",
    "研究生命起源",
]


@pytest.fixture(scope="module")
def lazy(tmp_path_factory: pytest.TempPathFactory) -> LazyDictionary:
    path = ensure_cache(tmp_path_factory.mktemp("dict"))
    assert path is not None
    return LazyDictionary(path)


@pytest.mark.parametrize("text", TEXTS)
def test_the_mapped_dictionary_segments_exactly_like_jieba(lazy: LazyDictionary, text: str) -> None:
    assert lazy.cut_for_search(text) == list(jieba.cut_for_search(text, HMM=False))
    assert list(lazy.cut(text)) == list(jieba.cut(text, HMM=False))


def test_the_cache_is_built_once_and_named_by_its_dictionary(tmp_path: Path) -> None:
    first = ensure_cache(tmp_path)
    assert first is not None
    assert first.is_file()
    stamp = first.stat().st_mtime_ns
    assert ensure_cache(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp  # not rebuilt
    source = jieba_dict_file()
    assert source is not None
    assert cache_path(source, tmp_path) == first


def test_a_file_that_is_not_a_cache_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(ValueError, match="not a WikiKV dictionary cache"):
        LazyDictionary(bad)


def test_a_query_process_segments_chinese_without_loading_jieba(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from wikikv.search import tokenize\n"
        "from wikikv.search.tokenize import query_terms\n"
        "print(json.dumps([tokenize('鲁迅的故乡在哪里'), query_terms('孔乙己的长衫'), "
        "'jieba' in sys.modules]))\n"
    )
    env = dict(os.environ, WIKIKV_CACHE_DIR=str(tmp_path))
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    words, terms, loaded = json.loads(out.stdout)
    assert loaded is False
    from wikikv.search import tokenize
    from wikikv.search.tokenize import query_terms

    assert words == tokenize("鲁迅的故乡在哪里")  # the same terms as with jieba loaded
    assert [tuple(t) for t in terms] == query_terms("孔乙己的长衫")
