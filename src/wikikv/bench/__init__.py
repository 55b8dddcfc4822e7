"""Benchmarks: the storage operator comparison (the WikiKV paper's Table II) and shared reporting."""
