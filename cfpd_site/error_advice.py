"""What an error page says and where it sends people: pure (no Django import), so that
every status and path is checked by plain tests (tests/cfpd_site/test_error_advice.py).

The product's sections, by URL prefix (cfpd_site/urls.py): an error under one of them
offers that section's first page as well as the home page. Longest prefix first, so
that /analysis/territories/... is the territories page, not the dashboard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SECTIONS = (
    ("/analysis/territories/", "Territorial disputes"),
    ("/analysis/crisis/", "Crisis inconsistency"),
    ("/analysis/cfpd/", "Dashboard"),
    ("/benchmarks/", "Benchmarks"),
    ("/runs/", "Runs"),
    ("/encoding/", "Coding"),
    ("/admin/", "Console"),
    ("/api/docs/", "API documentation"),
)


# Django's get_object_or_404 says "No Run matches the given query.": a class name and a
# phrase about queries, for the page to put in words (`advise(missing=...)`).
NO_MATCH = re.compile(r"^No (\w+) matches the given query\.$")


@dataclass(frozen=True)
class Advice:
    status: int
    title: str
    message: str  # what happened and what to do
    detail: str  # the refusing code's own one-line reason, or ""
    links: tuple[tuple[str, str], ...]  # (label, path) to go on with, home last


def section_for(path: str) -> tuple[str, str] | None:
    """(label, path) of the section `path` is in, unless `path` is that section's own
    first page (a link back to the page that failed helps no one)."""
    for prefix, label in SECTIONS:
        if path.startswith(prefix) and path != prefix:
            return label, prefix
    return None


def missing_thing(what: str, key: str = "") -> str:
    """A record the address names that does not exist, in words: 'No run 999: it may have
    been deleted, or the address may be mistyped.'"""
    named = f"No {what} {key}" if key else f"No such {what}"
    return f"{named}: it may have been deleted, or the address may be mistyped."


def advise(status: int, path: str, *, signed_in: bool, roles: tuple[str, ...] = (), reason: str = "",
           missing: tuple[str, str] | None = None) -> Advice:
    """What to say for `status` at `path`: a title, what happened and what to do, the
    refusing code's `reason` if it gave one, and the links to go on with. `missing`: the
    record a 404's address names that does not exist (what, e.g. 'run'; its key or '')."""
    links = [("Home", "/")]
    section = section_for(path)
    if section is not None and status != 500:
        links.insert(0, section)
    if status == 404:
        title = "Page not found"
        if missing is not None:
            message = missing_thing(*missing)
            reason = ""
        else:
            message = (f"There is no page at {path}. The address may be mistyped, or what it names (a run, a "
                       f"scenario, a benchmark) does not exist.")
            if NO_MATCH.match(reason.strip()):
                reason = ""  # Django's wording of a missing record, not ours
    elif status == 403:
        title = "Not allowed"
        if signed_in:
            held = ", ".join(roles) if roles else "no role yet"
            message = (f"Your account ({held}) may not open this page or do this. If your work needs it, ask an "
                       f"administrator for the role that gives it (below: what each role gives).")
        else:
            message = "This needs you to sign in."
            links.insert(0, ("Sign in", "/accounts/login/"))
    elif status == 400:
        title = "Bad request"
        message = ("The site could not use this request: a form or link sent something malformed or too large, "
                   "or the site was reached under a name it does not serve. Go back, reload the page and try again.")
    else:
        title = "Something went wrong"
        message = ("The site failed to answer this request. The error is in the server's log; try again in a "
                   "moment, and tell whoever runs the site if it keeps happening.")
        reason = ""  # an uncaught error's text is for the log, not the page
    return Advice(status=status, title=title, message=message, detail=reason.strip(), links=tuple(links))
