"""Prometheus metrics of one app, in its own registry (two apps in one process never clash).

Request latency histograms and counts per route template and status; at scrape time, the cache
tiers' hit rates, the store's size (LMDB: bytes in use), ACCESS records written or lost, and
running jobs. With ``--workers N`` each worker process keeps its own numbers: a scrape sees the
worker that answered it (run one worker per port, or aggregate, when that matters).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from wikikv.interfaces.http.context import AppState

BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def store_bytes(backend: object) -> int | None:
    """Bytes the store occupies, where the engine can tell cheaply (LMDB)."""
    inner = getattr(backend, "inner", backend)
    env = getattr(inner, "env", None)
    if env is None:
        return None
    try:
        info, stat = env.info(), env.stat()
        return int((info["last_pgno"] + 1) * stat["psize"])
    except Exception:  # a closed or resized environment: no reading this time
        return None


class _StateCollector(Collector):
    def __init__(self, state: AppState) -> None:
        self.state = state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        backend = self.state.store.backend
        stats = getattr(backend, "stats", None)
        if stats is not None:
            hits = GaugeMetricFamily(
                "wikikv_cache_hits", "Cache tier hits since start", labels=["tier"]
            )
            misses = GaugeMetricFamily(
                "wikikv_cache_misses", "Cache tier misses since start", labels=["tier"]
            )
            for tier in ("l1", "l2"):
                h = int(getattr(stats, f"{tier}_hits", 0))
                mi = int(getattr(stats, f"{tier}_misses", 0))
                hits.add_metric([tier], h)
                misses.add_metric([tier], mi)
            yield hits
            yield misses
            rate = GaugeMetricFamily("wikikv_cache_hit_ratio", "L1 hit ratio", labels=["tier"])
            for tier in ("l1", "l2"):
                h = int(getattr(stats, f"{tier}_hits", 0))
                mi = int(getattr(stats, f"{tier}_misses", 0))
                rate.add_metric([tier], h / (h + mi) if h + mi else 0.0)
            yield rate
        size = store_bytes(backend)
        if size is not None:
            yield GaugeMetricFamily("wikikv_store_bytes", "Bytes the store occupies", value=size)
        access = self.state.access
        yield GaugeMetricFamily(
            "wikikv_access_records_written", "ACCESS records written", value=access.written
        )
        yield GaugeMetricFamily(
            "wikikv_access_records_failed",
            "ACCESS records lost to engine errors",
            value=access.failed,
        )
        jobs = self.state.jobs
        if jobs is not None:
            yield GaugeMetricFamily("wikikv_jobs_running", "Running jobs", value=jobs.running())


class Metrics:
    def __init__(self, state: AppState) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.latency = Histogram(
            "wikikv_http_request_duration_seconds",
            "Request latency by route template",
            ["method", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.requests = Counter(
            "wikikv_http_requests",
            "Requests by route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.registry.register(_StateCollector(state))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.latency.labels(method, route).observe(seconds)
        self.requests.labels(method, route, str(status)).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
