"""The three cache tiers (WikiKV paper §V-C): L1 in-process, L2 shared Redis, L3 the backend."""

from wikikv.cache.tiers import CachedBackend, CacheStats

__all__ = ["CacheStats", "CachedBackend"]
