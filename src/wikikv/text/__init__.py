"""Text analysis: sentences and digests, entity mentions in every language (English names and
Chinese names read from the corpus), entity kinds, and the jieba tagging they use.

Pure functions over text: this package imports nothing of WikiKV above :mod:`wikikv.errors`, so
the providers (``llm``), the compiler and the benchmarks can all share it."""
