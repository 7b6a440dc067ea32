"""The web app: routes, templates, security headers and one-line errors.

URLs are part of the interface (docs/ui.md): ``/``, ``/runs/{run_id}``,
``/runs/{run_id}/handoffs/{handoff_id}``, ``/runs/{a}/compare/{b}``,
``/blast/{run_id}/{handoff_id}`` and ``/health``. Every page is read-only (GET and HEAD only).
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any
from urllib.parse import quote, urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from handoff.errors import HandoffError, NotFound
from handoff.ui import format as fmt
from handoff.ui import pages
from handoff.ui.highlight import fold, mark_texts
from handoff.ui.views import DEFAULT_REFRESH_S, StoreViews

logger = logging.getLogger("handoff.ui")

#: No inline script or style, nothing from another origin, no framing, no plugins.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


def trace_link(template: str | None, handoff: dict[str, Any]) -> str | None:
    """The handoff's URL in the user's tracing backend, from ``HANDOFF_TRACE_URL_TEMPLATE``; ``None`` without one.

    Placeholders ``{trace_id}``, ``{span_id}``, ``{run_id}`` and ``{handoff_id}`` are filled with
    URL-quoted values; a template that is not an http(s) URL gives no link.
    """
    if not template or urlsplit(template).scheme not in ("http", "https"):
        return None
    if "{trace_id}" in template and not handoff.get("trace_id"):
        return None
    url = template
    for name in ("trace_id", "span_id", "run_id", "handoff_id"):
        url = url.replace("{" + name + "}", quote(str(handoff.get(name) or ""), safe=""))
    return url


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("handoff.ui", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(cell=fmt.cell, seg=lambda value: quote(str(value), safe=""), pretty_json=fmt.pretty_json)
    env.globals.update(mark_texts=mark_texts, fold=fold, fmt=fmt)
    return env


class Renderer:
    """Renders a page template to an HTML response; every value in it is escaped by the template engine."""

    def __init__(self, store_label: str) -> None:
        self.env = _environment()
        self.store_label = store_label

    def page(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        """The response for ``template`` with ``context``."""
        html = self.env.get_template(template).render(store=self.store_label, **context)
        return HTMLResponse(html, status_code=status_code)

    def error(self, status_code: int, message: str) -> HTMLResponse:
        """A page with one readable line, ``Error: …``, and no stack trace."""
        line = message.strip().splitlines()[0] if message.strip() else "unknown error"
        title = {404: "Not found", 400: "Bad request"}.get(status_code, "Error")
        return self.page("error.html", status_code=status_code, title=title, message=line)


def _handlers(renderer: Renderer) -> dict[Any, Any]:
    def not_found(request: Request, exc: Exception) -> Response:
        return renderer.error(404, str(exc))

    def http_error(request: Request, exc: HTTPException) -> Response:
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        return renderer.error(exc.status_code, message)

    def bad_request(request: Request, exc: Exception) -> Response:
        return renderer.error(400, str(exc))

    def store_error(request: Request, exc: Exception) -> Response:
        return renderer.error(500, str(exc))

    def unexpected(request: Request, exc: Exception) -> Response:
        logger.exception("handoff ui: %s %s failed", request.method, request.url.path)
        return renderer.error(500, f"internal error ({type(exc).__name__}); the server log has the details")

    return {
        NotFound: not_found,
        HTTPException: http_error,
        ValueError: bad_request,
        HandoffError: store_error,
        Exception: unexpected,
    }


def create_app(
    store_url: str | None = None,
    *,
    trace_url_template: str | None = None,
    allowed_hosts: list[str] | None = None,
    refresh_s: float = DEFAULT_REFRESH_S,
) -> Starlette:
    """The viewer over ``store_url`` (a directory or ``s3://…``; default ``HANDOFF_STORE`` or ``./.handoff``).

    ``trace_url_template`` defaults to ``HANDOFF_TRACE_URL_TEMPLATE``. ``allowed_hosts`` limits
    the ``Host`` header a request may carry (default: loopback names only, so a page on another
    site cannot reach the viewer by DNS rebinding); ``["*"]`` allows any.
    """
    from handoff.config import resolve_store

    views = StoreViews(store_url, refresh_s=refresh_s)
    renderer = Renderer(resolve_store(store_url))
    template = trace_url_template if trace_url_template is not None else os.environ.get("HANDOFF_TRACE_URL_TEMPLATE")
    site = pages.Site(views, renderer, lambda handoff: trace_link(template, handoff))
    routes = [
        Route("/", site.runs_page, name="runs"),
        Route("/health", site.health_page, name="health"),
        Route("/runs/{run_id}", site.run_page, name="run"),
        Route("/runs/{run_id}/handoffs/{handoff_id}", site.handoff_page, name="handoff"),
        Route("/runs/{run_id}/compare", site.compare_form, name="compare_form"),
        Route("/runs/{run_a}/compare/{run_b}", site.compare_page, name="compare"),
        Route("/blast/{run_id}/{handoff_id}", site.blast_page, name="blast"),
        Mount("/static", app=StaticFiles(packages=[("handoff.ui", "static")]), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOOPBACK_HOSTS),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        views.close()

    return Starlette(routes=routes, middleware=middleware, exception_handlers=_handlers(renderer), lifespan=lifespan)
