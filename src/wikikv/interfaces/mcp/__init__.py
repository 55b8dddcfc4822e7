"""The MCP server: :func:`wikikv.interfaces.mcp.server.build_server`."""
