"""Concurrent writers through the API keep every write the API acknowledged."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx

import wikikv
from wikikv.interfaces.http.app import create_app
from wikikv.testing.http_server import LoopbackServer

WRITERS = 6
PAGES_EACH = 15
INCREMENTS_EACH = 10


def test_concurrent_writers_keep_every_acknowledged_write(tmp_path: Path) -> None:
    with wikikv.open_store(str(tmp_path)) as store:
        store.create_kb("demo").put("/shared/counter", "0")
        with LoopbackServer(create_app(store)) as url:
            acked_pages: list[str] = []
            acked_increments = [0]
            conflicts = [0]
            lock = threading.Lock()

            def writer(n: int) -> None:
                with httpx.Client(base_url=f"{url}/v1/kbs/demo", timeout=30) as c:
                    for i in range(PAGES_EACH):
                        path = f"/w{n}/page {i}"
                        r = c.put("/page", json={"path": path, "text": f"writer {n} page {i}"})
                        if r.status_code == 200:
                            with lock:
                                acked_pages.append(path)
                    done = 0
                    while done < INCREMENTS_EACH:  # read-modify-write with expect_version
                        page = c.get("/get", params={"path": "/shared/counter"}).json()
                        body = {
                            "path": "/shared/counter",
                            "text": str(int(page["text"]) + 1),
                            "expect_version": page["meta"]["version"],
                        }
                        r = c.put("/page", json=body)
                        if r.status_code == 200:
                            done += 1
                            with lock:
                                acked_increments[0] += 1
                        else:
                            assert r.status_code == 409, r.text
                            with lock:
                                conflicts[0] += 1

            threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        kb = store.kb("demo")
        assert len(acked_pages) == WRITERS * PAGES_EACH
        for path in acked_pages:
            rec = kb.get(path)
            assert rec is not None, path
            n, i = path[2:].split("/page ")
            assert rec.text == f"writer {n} page {i}"
        for n in range(WRITERS):
            assert set(kb.ls(f"/w{n}").files) == {f"page {i}" for i in range(PAGES_EACH)}
        counter = kb.get("/shared/counter")
        assert counter is not None
        # Every acknowledged increment is in the final value: none was lost to a race.
        assert int(counter.text) == acked_increments[0] == WRITERS * INCREMENTS_EACH
