"""`export_report [--page PATH] [--url-query QUERY] --user NAME --out PATH [--format html|folder]`: a
dashboard as one self-contained HTML file, or as a folder of figures and tables for a paper."""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from formats_app.report_drawing import DrawingError
from formats_app.report_jobs import BadExport, dashboard_name
from formats_app.report_services import ReportError, write_folder, write_report


def chosen_format(out: str, fmt: str | None) -> str:
    """html when asked, or when --out ends in .html/.htm; else a folder."""
    if fmt:
        return fmt
    return "html" if Path(out).suffix.lower() in (".html", ".htm") else "folder"


class Command(BaseCommand):
    help = ("Write a dashboard view, with its filters as given, as one self-contained HTML file that opens from disk "
            "with no network and no account: plotly.js and the site's style inside, the charts' figures, tables and "
            "method notes in the page; or (--format folder, or an --out without .html) as a folder for a paper: "
            "every figure as SVG and PNG drawn offline by Chromium (kaleido), every table as CSV and LaTeX, and a "
            "README.md naming them. Rendered as --user sees it (a reader of that dashboard); figures are computed "
            "here, not by the worker. --page is the dashboard's path (default /analysis/, the CFPD dashboard; "
            "/analysis/territories/, /analysis/crisis/ likewise; a model's profile /models/NAME/; the models' "
            "comparison /models/compare/ with --url-query 'model=A&model=B'); --url-query its query string "
            "(e.g. 'domain=escalation&iterations=1000').")

    def add_arguments(self, parser):
        parser.add_argument("--page", default="/analysis/cfpd/", help="the dashboard's path (default /analysis/cfpd/; "
                                                                 "/models/NAME/, /models/compare/ too)")
        parser.add_argument("--url-query", default="", help="the query string, without '?'")
        parser.add_argument("--user", required=True, help="whose view: a user allowed to read that dashboard")
        parser.add_argument("--out", required=True,
                            help="the .html file to write, or the folder to write the figures and tables in")
        parser.add_argument("--format", choices=["html", "folder"], default=None,
                            help="html: one file; folder: SVG/PNG figures, CSV/LaTeX tables, README.md "
                                 "(default: html when --out ends in .html, else folder)")

    def handle(self, *args, page, url_query, user, out, format, **options):
        if not page.startswith("/"):
            raise CommandError("--page is a path on this site, starting with '/'")
        try:  # the button's check: a dashboard's path, a profile of a registered model
            dashboard_name(page)
        except BadExport as exc:
            raise CommandError(f"--{exc}") from None
        fmt = chosen_format(out, format)
        url = page + (f"?{url_query.lstrip('?')}" if url_query else "")
        self.stderr.write(f"rendering {url} as {user} (figures computed here; this may take a while)…")
        started = time.perf_counter()
        try:
            if fmt == "html":
                path = write_report(url, user, out)
                self.stdout.write(f"wrote {path} ({path.stat().st_size:,} bytes)")
                return
            if Path(out).exists() and not Path(out).is_dir():
                raise CommandError(f"{out} is a file: --format folder writes a folder")
            files = write_folder(url, user, out, progress=lambda step, done, total: self.stderr.write(
                f"  [{done}/{total}] {step}"))
        except (ReportError, DrawingError) as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        size = sum(f.stat().st_size for f in files)
        kinds = {}
        for f in files:
            kinds[f.suffix] = kinds.get(f.suffix, 0) + 1
        counted = ", ".join(f"{n} {suffix.lstrip('.')}" for suffix, n in sorted(kinds.items()))
        self.stdout.write(f"wrote {out}/ ({counted}; {size:,} bytes) in {time.perf_counter() - started:.1f} s")
