"""A real uvicorn server on a free loopback port, in a thread of this process — for tests and
benchmarks that talk HTTP to an app (``with LoopbackServer(app) as url: ...``)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LoopbackServer:
    """Start ``app`` on 127.0.0.1 (a free port), wait until it answers, stop it on exit."""

    def __init__(self, app: Any, port: int | None = None, startup_timeout: float = 15.0) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.startup_timeout = startup_timeout
        self._thread: threading.Thread | None = None

    def __enter__(self) -> str:
        self._thread = threading.Thread(target=self.server.run, name="uvicorn-test", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the test server on port {self.port} did not start")
            time.sleep(0.01)
        return self.url

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)


__all__ = ["LoopbackServer", "free_port"]
