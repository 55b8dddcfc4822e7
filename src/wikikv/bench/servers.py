"""Where the server backends a benchmark compares run: URLs given as options (``--redis-url``,
``--cluster-url``, ``--postgres-url``; by default ``$WIKIKV_TEST_REDIS`` and the others, as
``scripts/services.sh env`` prints them). A benchmark never starts servers itself."""

from __future__ import annotations

from dataclasses import dataclass

from wikikv.errors import ConfigError

# The environment variable that supplies each URL when its option is not given.
ENV_VARS = {
    "redis": "WIKIKV_TEST_REDIS",
    "cluster": "WIKIKV_TEST_CLUSTER",
    "postgres": "WIKIKV_TEST_POSTGRES",
}


@dataclass(frozen=True)
class ServerURLs:
    """The URL of each server a run may use; None where none was given."""

    redis: str | None = None
    cluster: str | None = None
    postgres: str | None = None

    def url(self, kind: str) -> str:
        """The URL of ``kind`` (redis, cluster or postgres); ConfigError naming the option to
        pass when it is missing."""
        found: str | None = getattr(self, kind, None) if kind in ENV_VARS else None
        if kind not in ENV_VARS:
            raise ConfigError(f"unknown server {kind!r}; choose from {', '.join(ENV_VARS)}")
        if not found:
            raise ConfigError(
                f"this benchmark needs a {kind} server: pass --{kind}-url URL or set "
                f'{ENV_VARS[kind]} (scripts/services.sh start && eval "$(scripts/services.sh env)")'
            )
        return found


def with_option(url: str, key: str, value: str) -> str:
    """``url`` with ``key=value`` appended to its query string."""
    return f"{url}{'&' if '?' in url else '?'}{key}={value}"


NO_SERVERS = ServerURLs()  # an LMDB-only run
