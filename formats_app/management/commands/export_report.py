"""`export_report [--page PATH] [--url-query QUERY] --user NAME --out FILE.html`: a dashboard as one
self-contained HTML file."""

from django.core.management.base import BaseCommand, CommandError

from formats_app.report_services import ReportError, write_report


class Command(BaseCommand):
    help = ("Write a dashboard view, with its filters as given, as one self-contained HTML file that opens from disk "
            "with no network and no account: plotly.js and the site's style inside, the charts' figures, tables and "
            "method notes in the page. Rendered as --user sees it (a reader of that dashboard); figures are computed "
            "here, not by the worker. --page is the dashboard's path (default /analysis/, the CFPD dashboard; "
            "/territories/dashboard/, /crisis/dashboard/, /models/… likewise); --url-query its query string "
            "(e.g. 'domain=escalation&iterations=1000').")

    def add_arguments(self, parser):
        parser.add_argument("--page", default="/analysis/", help="the dashboard's path (default /analysis/)")
        parser.add_argument("--url-query", default="", help="the query string, without '?'")
        parser.add_argument("--user", required=True, help="whose view: a user allowed to read that dashboard")
        parser.add_argument("--out", required=True, help="the .html file to write")

    def handle(self, *args, page, url_query, user, out, **options):
        if not page.startswith("/"):
            raise CommandError("--page is a path on this site, starting with '/'")
        url = page + (f"?{url_query.lstrip('?')}" if url_query else "")
        self.stderr.write(f"rendering {url} as {user} (figures computed here; this may take a while)…")
        try:
            path = write_report(url, user, out)
        except ReportError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        self.stdout.write(f"wrote {path} ({path.stat().st_size:,} bytes)")
