"""A page made self-contained (pure: no Django): its scripts and style sheets read from
the site's static files and written into the page, so that one HTML file opened from disk,
with no network and no account, draws its charts (plotly.js rides inside) and shows its
tables and notes. What the page links to (other pages, the API) is not followed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

_SCRIPT = re.compile(r'<script\b([^>]*)\bsrc="([^"]+)"([^>]*)>\s*</script>', re.IGNORECASE)
_STYLESHEET = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*>', re.IGNORECASE)
_ICON = re.compile(r'<link\b[^>]*\brel="(?:icon|shortcut icon|preload|modulepreload)"[^>]*>\s*', re.IGNORECASE)
_HREF = re.compile(r'\bhref="([^"]+)"', re.IGNORECASE)
_END_SCRIPT = re.compile(r"</(script)", re.IGNORECASE)
_END_STYLE = re.compile(r"</(style)", re.IGNORECASE)


class MissingAsset(LookupError):
    pass


# A file read away from the site: its filters cannot be applied again (the form would only
# reload the same file, figures unchanged, as if the filter made no difference) and the
# site's own links (other pages, CSV downloads, sign out) lead nowhere from disk. So the
# form's fields show the filters as exported and cannot be changed, its buttons are hidden,
# the site's links look as on the site but are inert; in-page links (#contents…) still jump.
READER_ONLY = (
    "<style>form :is(button, input[type=submit]), form a[href] {display: none}"
    ' a[href]:not([href^="#"]) {pointer-events: none; cursor: default}</style>'
    '<script>document.addEventListener("DOMContentLoaded", () => {'
    ' document.querySelectorAll("form :is(input, select, textarea)").forEach(field => { field.disabled = true; });'
    "});</script>")


def inline(page: str, read_asset: Callable[[str], str | None], banner: str = "") -> str:
    """The page with every `<script src>` and stylesheet `<link>` replaced by its text
    (`read_asset(url)`: the file's text, None when it is not the site's own: then the
    page cannot travel and MissingAsset says which), icons dropped, `banner` (HTML) put
    first in the body."""

    def script(match: re.Match) -> str:
        url = html.unescape(match.group(2))
        text = read_asset(url)
        if text is None:
            raise MissingAsset(url)
        attributes = re.sub(r"\b(defer|async)\b", "", match.group(1) + match.group(3)).strip()
        body = _END_SCRIPT.sub(r"<\\/\1", text)  # "</script" inside the code would end the element
        return f"<script{' ' + attributes if attributes else ''}>{body}</script>"

    def stylesheet(match: re.Match) -> str:
        href = _HREF.search(match.group(0))
        url = html.unescape(href.group(1)) if href else ""
        text = read_asset(url) if url else None
        if text is None:
            raise MissingAsset(url or match.group(0))
        body = _END_STYLE.sub(r"<\\/\1", text)
        return f"<style>{body}</style>"

    page = _ICON.sub("", page)
    page = _SCRIPT.sub(script, page)
    page = _STYLESHEET.sub(stylesheet, page)
    if banner:
        page = re.sub(r"(<body\b[^>]*>)", lambda m: m.group(1) + banner, page, count=1, flags=re.IGNORECASE)
    return page
