"""The bundled sample corpus: short original English and Chinese articles (file name = title)
whose entities link across documents and across the two languages. ``wikikv demo`` compiles it
into a fresh kb with the offline provider."""

from __future__ import annotations

from pathlib import Path

CORPUS_DIR = Path(__file__).parent / "corpus"
