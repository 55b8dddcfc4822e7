"""The web wiki browser (server-rendered HTML at ``/``), a router for the HTTP API app."""

from wikikv.interfaces.web.routes import router

__all__ = ["router"]
