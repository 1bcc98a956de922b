"""A dashboard view (its URL and query as they are) rendered as the named user sees it and
written as one self-contained HTML file (formats_app.report_html): plotly.js, the site's
style and scripts inside, the charts' figures already in the page, its tables and method
notes with it. The page is rendered through the site's own middleware and views (Django's
test client, signed in as the user), with the figures computed in this process rather than
by the worker, so the file holds them rather than a 'computing' notice."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.test import Client, override_settings

from . import report_html


class ReportError(ValueError):
    pass


def _read_static(url: str) -> str | None:
    path = urlsplit(url).path
    if not path.startswith(settings.STATIC_URL):
        return None
    name = path[len(settings.STATIC_URL):]
    found = finders.find(name)
    if found:
        return Path(found).read_text(encoding="utf-8")
    try:
        with staticfiles_storage.open(name) as handle:
            return handle.read().decode("utf-8")
    except (OSError, ValueError):
        return None


def _map_assets(page: str) -> str:
    """Maps draw on the site's country shapes (static/topojson), which plotly.js fetches
    when it draws: given to it beforehand in `window.PlotlyGeoAssets`, where plotly.js looks
    first, so that a map draws from the file alone."""
    if "data-topojson" not in page:
        return ""
    folder = finders.find("topojson")
    shapes = {path.stem: json.loads(path.read_text(encoding="utf-8"))
              for path in sorted(Path(folder).glob("*.json"))} if folder else {}
    text = json.dumps({"topojson": shapes}, separators=(",", ":")).replace("</", "<\\/")
    return f"<script>window.PlotlyGeoAssets = {text};</script>"


def render_report(url: str, username: str) -> str:
    """The page at `url` (path and query) as `username` sees it, self-contained."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise ReportError(f"no active user {username!r}")
    host = next((h for h in settings.ALLOWED_HOSTS if h and not h.startswith((".", "*"))), "localhost")
    with override_settings(CFPD_DASHBOARD_IN_WORKER=False):
        client = Client(HTTP_HOST=host)
        client.force_login(user)
        response = client.get(url, secure=bool(getattr(settings, "SECURE_SSL_REDIRECT", False)))
    if response.status_code != 200:
        raise ReportError(f"{url} answered {response.status_code} for {username}"
                          + (" (not allowed to read it)" if response.status_code in (302, 403) else ""))
    if "text/html" not in response.get("Content-Type", ""):
        raise ReportError(f"{url} is not a page ({response.get('Content-Type')})")
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    banner = (f'<p class="report-origin" style="margin:0;padding:.4rem 1rem;background:#f3f4f6;font-size:.85rem">'
              f"Exported from CFPD Workbench: {escape(url)}, as {escape(username)} saw it on {stamp}. "
              "Links lead to the site and need an account.</p>")
    try:
        page = response.content.decode(response.charset or "utf-8")
        return report_html.inline(page, _read_static, banner + _map_assets(page))
    except report_html.MissingAsset as exc:
        raise ReportError(f"the page uses {exc} which is not one of the site's static files") from None


def write_report(url: str, username: str, out: str | Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(url, username), encoding="utf-8")
    return out
