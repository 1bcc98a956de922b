"""invite_panel --panel P --count N --out FILE: N single-use links of panel P, as a CSV with
a column `url` (the console's button does the same)."""

from django.core.management.base import BaseCommand, CommandError

from kit.csv_safety import SafeWriter
from panels_app import services
from panels_app.models import Panel


class Command(BaseCommand):
    help = "Make N single-use links of a panel and write them as a CSV with a column url."

    def add_arguments(self, parser):
        parser.add_argument("--panel", required=True, help="The panel's name.")
        parser.add_argument("--count", required=True, type=int)
        parser.add_argument("--out", required=True, help="The CSV file to write.")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000",
                            help="The site's address as respondents reach it (default: %(default)s).")

    def handle(self, *args, panel, count, out, base_url, **options):
        found = Panel.objects.filter(name=panel).first()
        if found is None:
            names = ", ".join(Panel.objects.values_list("name", flat=True)[:20]) or "none yet"
            raise CommandError(f"no panel named {panel!r} (panels: {names})")
        if not base_url.startswith(("http://", "https://")):
            raise CommandError(f"--base-url: must start with http:// or https://; got {base_url!r}")
        try:
            handle = open(out, "w", newline="", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"--out: cannot write {out}: {exc.strerror}") from None
        try:
            urls = services.make_links_for(found, count, base_url)
        except services.PanelError as exc:
            handle.close()
            raise CommandError(str(exc)) from None
        with handle:
            writer = SafeWriter(handle)
            writer.writerow(["url"])
            writer.writerows([url] for url in urls)
        self.stderr.write(f"{len(urls)} link(s) of panel {found.name!r} written to {out}")
