"""``wikikv bench serve``: the HTTP API under a bounded loopback load, beside the in-process API,
and MCP tool-call latency.

For each operation (get, search, nav) and each worker count (1, 2, 4 ``wikikv serve``
processes), a closed-loop load of ``concurrency`` connections runs for ``seconds``: throughput,
p50 and p99 of the full request (sent → last byte). Beside it, the same operations called
in-process on one thread, and one unloaded HTTP connection on the single-worker server (the
latency a lone client sees). MCP: ``wiki_search`` / ``wiki_read`` / ``wiki_nav`` over stdio
through the SDK's client.

The load generator is a small asyncio HTTP/1.1 client (keep-alive, Content-Length and chunked
bodies) rather than httpx, whose per-request overhead (~0.3 ms) would dwarf what is measured.
Client and server share the machine's cores, which the report says.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from wikikv.bench.report import summarize
from wikikv.errors import BenchProcessError
from wikikv.store.kb import KnowledgeBase
from wikikv.testing.http_server import free_port

NAV_MAX_READS = 8
NAV_BUDGET_MS = 1000.0


@dataclass
class Point:
    """One measured load point."""

    target: str  # "http" or "in-process" or "http-unloaded" or "mcp-stdio"
    op: str
    workers: int
    concurrency: int
    seconds: float
    requests: int = 0
    errors: int = 0
    latency_us: dict[str, float] = field(default_factory=dict)

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "op": self.op,
            "workers": self.workers,
            "concurrency": self.concurrency,
            "seconds": round(self.seconds, 2),
            "requests": self.requests,
            "errors": self.errors,
            "throughput_per_s": round(self.throughput, 1),
            "latency_us": self.latency_us,
        }


# ---------------------------------------------------------------------------- the HTTP client
class RawHTTP:
    """One keep-alive HTTP/1.1 connection: send a GET, read the whole response."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self.reader = reader
        self.writer = writer
        self.host = host

    @classmethod
    async def connect(cls, host: str, port: int) -> RawHTTP:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, f"{host}:{port}")

    async def get(self, target: str, headers: str = "") -> tuple[int, bytes]:
        self.writer.write(
            f"GET {target} HTTP/1.1\r\nHost: {self.host}\r\n{headers}\r\n".encode("latin-1")
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {
            k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)
        }
        if "content-length" in fields:
            return status, await self.reader.readexactly(int(fields["content-length"]))
        if fields.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    return status, b"".join(parts)
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
        raise BenchProcessError(f"response without a length from {self.host}: {lines[0]}")

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


async def _load(
    port: int,
    targets: Sequence[str],
    seconds: float,
    concurrency: int,
    check: Callable[[bytes], bool],
) -> tuple[list[int], int]:
    samples: list[int] = []
    errors = [0]
    stop = time.perf_counter() + seconds

    async def one(seed: int) -> None:
        conn = await RawHTTP.connect("127.0.0.1", port)
        rng = random.Random(seed)
        clock = time.perf_counter_ns
        try:
            while time.perf_counter() < stop:
                target = targets[rng.randrange(len(targets))]
                t0 = clock()
                status, body = await conn.get(target)
                samples.append(clock() - t0)
                if status != 200 or not check(body):
                    errors[0] += 1
        finally:
            await conn.close()

    await asyncio.gather(*(one(i) for i in range(concurrency)))
    return samples, errors[0]


def http_point(
    op: str,
    port: int,
    targets: Sequence[str],
    seconds: float,
    workers: int,
    concurrency: int,
    target: str = "http",
) -> Point:
    check = _nav_ok if op == "nav" else _json_ok
    t0 = time.perf_counter()
    samples, errors = asyncio.run(_load(port, targets, seconds, concurrency, check))
    elapsed = time.perf_counter() - t0
    return Point(
        target, op, workers, concurrency, elapsed, len(samples), errors, summarize(samples)
    )


def _json_ok(body: bytes) -> bool:
    return body.startswith(b"{")


def _nav_ok(body: bytes) -> bool:
    return body.startswith(b'{"level": "index"')


# ---------------------------------------------------------------------------- in-process
def inprocess_point(op: str, calls: Sequence[Callable[[], object]], seconds: float) -> Point:
    samples: list[int] = []
    clock = time.perf_counter_ns
    rng = random.Random(7)
    stop = time.perf_counter() + seconds
    t0 = time.perf_counter()
    while time.perf_counter() < stop:
        call = calls[rng.randrange(len(calls))]
        s = clock()
        call()
        samples.append(clock() - s)
    elapsed = time.perf_counter() - t0
    return Point("in-process", op, 1, 1, elapsed, len(samples), 0, summarize(samples))


# ---------------------------------------------------------------------------- server processes
@contextmanager
def served(store_url: str, workers: int) -> Iterator[int]:
    """``wikikv serve --workers N`` on a free loopback port, until the block ends."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "wikikv",
        "serve",
        "--store",
        store_url,
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        try:
            _wait_ready(port, proc, log)
            yield port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(port: int, proc: subprocess.Popen[bytes], log: Any) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise BenchProcessError(f"wikikv serve exited: {log.read().decode(errors='replace')}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise BenchProcessError("wikikv serve did not become ready within 60 s")


# ---------------------------------------------------------------------------- workload
@dataclass
class Workload:
    kb: str
    paths: list[str]
    queries: list[str]
    questions: list[str]

    def targets(self, op: str) -> list[str]:
        base = f"/v1/kbs/{self.kb}"
        if op == "get":
            return [f"{base}/get?path={quote(p)}" for p in self.paths]
        if op == "search":
            return [f"{base}/search?q={quote(q)}&limit=10" for q in self.queries]
        return [
            f"{base}/nav?q={quote(q)}&max_reads={NAV_MAX_READS}&budget_ms={NAV_BUDGET_MS}"
            for q in self.questions
        ]

    def calls(self, kb: KnowledgeBase, op: str) -> list[Callable[[], object]]:
        from wikikv.query.ops import wiki_search

        if op == "get":
            return [functools.partial(kb.get, p) for p in self.paths]
        if op == "search":
            return [functools.partial(wiki_search, kb, q, 10) for q in self.queries]
        return [functools.partial(_nav_all, kb, q) for q in self.questions]


def _nav_all(kb: KnowledgeBase, query: str) -> list[Any]:
    from wikikv.query.budget import Budget
    from wikikv.query.nav import nav

    return list(nav(kb, query, Budget(ms=NAV_BUDGET_MS, max_reads=NAV_MAX_READS)))


def make_workload(kb: KnowledgeBase, questions_file: Path | None, n: int = 500) -> Workload:
    from wikikv.store.records import FileRecord

    rng = random.Random(11)
    pages = [p for p in kb.prefix("/") if not p.startswith("/sources")]
    rng.shuffle(pages)
    paths = pages[:n]
    titles = []
    for rec in kb.get_many(paths[:200]):
        if isinstance(rec, FileRecord):
            titles.append(rec.meta.title or rec.name)
    questions: list[str] = []
    if questions_file is not None and questions_file.exists():
        with questions_file.open(encoding="utf-8") as fh:
            for line in fh:
                questions.append(json.loads(line)["question"])
                if len(questions) >= 200:
                    break
    return Workload(
        kb.name, paths, titles or ["index"], questions or [f"Who is {t}?" for t in titles]
    )


# ---------------------------------------------------------------------------- MCP
def mcp_points(store_url: str, kb: str, work: Workload, calls: int) -> list[Point]:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wikikv", "mcp", "--store", store_url, "--kb", kb],
        env=env,
    )
    plans: dict[str, list[dict[str, Any]]] = {
        "wiki_search": [{"query": q, "limit": 10} for q in work.queries],
        "wiki_read": [{"paths": [p]} for p in work.paths],
        "wiki_nav": [
            {"query": q, "max_reads": NAV_MAX_READS, "budget_ms": NAV_BUDGET_MS}
            for q in work.questions
        ],
    }
    out: list[Point] = []

    async def main() -> None:
        # The server's stderr to a real file: under a test runner sys.stderr has no descriptor.
        with tempfile.TemporaryFile("w+") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await timed(client)

    async def timed(client: Any) -> None:
        for tool, args in plans.items():
            for a in args[:10]:  # warm up
                await client.call_tool(tool, a)
            samples: list[int] = []
            errors = 0
            t0 = time.perf_counter()
            for i in range(calls):
                s = time.perf_counter_ns()
                result = await client.call_tool(tool, args[i % len(args)])
                samples.append(time.perf_counter_ns() - s)
                errors += int(bool(result.is_error))
            elapsed = time.perf_counter() - t0
            out.append(Point("mcp-stdio", tool, 1, 1, elapsed, calls, errors, summarize(samples)))

    anyio.run(main)
    return out


__all__ = [
    "Point",
    "RawHTTP",
    "Workload",
    "http_point",
    "inprocess_point",
    "make_workload",
    "mcp_points",
    "served",
]
