"""A flush's typo-neighbourhood ops, built inline (IndexKeys.variant_keys), are the ops one
``variant(v, w)`` per delete of each word makes: same keys, same Put, in key order but for each
word's own key, which come last (a stored own key means a whole neighbourhood)."""

from __future__ import annotations

from wikikv.search.analysis import IndexKeys
from wikikv.search.index import _variant_ops
from wikikv.search.tokenize import deletes
from wikikv.store.backends.base import ANY, Put

_WORDS = ["teutberga", "lothair", "aa", "x", "", "müller", "鲁迅", "o'brien", "lothair", "ab", "ba"]


def test_variant_ops_are_one_put_per_key_of_each_delete() -> None:
    ik = IndexKeys("kb")
    own = {ik.variant(w, w) for w in _WORDS}
    want = sorted({ik.variant(v, w) for w in _WORDS for v in deletes(w)} - own) + sorted(own)
    ops = _variant_ops(ik, _WORDS)
    assert ops == [Put(key, b"") for key in want]
    assert all(type(op) is Put and op.expect == ANY for op in ops)
    # "aa" has one delete, "a": its key is there once; "ab" and "ba" share "a" and "b" apart
    assert ik.variant("a", "aa") in ik.variant_keys(["aa"])
    assert len(ik.variant_keys(["ab", "ba"])) == 6
