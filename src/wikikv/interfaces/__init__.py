"""User-facing interfaces over the public API: the ``wikikv`` command line (and later HTTP, MCP)."""
