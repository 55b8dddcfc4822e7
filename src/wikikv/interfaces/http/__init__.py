"""The HTTP API (FastAPI on uvicorn): :func:`wikikv.interfaces.http.app.create_app`."""
