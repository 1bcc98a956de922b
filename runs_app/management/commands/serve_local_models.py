"""`serve_local_models`: serve the bundled models (llama.cpp, OpenAI-compatible) until stopped."""

import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from runs_app import processes
from runs_app.local_models import BUNDLED, LocalModelError


class Command(BaseCommand):
    help = "Start llama.cpp's OpenAI-compatible server for each bundled model and keep it running until stopped."

    def handle(self, *args, **options):
        try:
            started = processes.ensure_local_servers(settings.VAR_DIR / "llama-server.log")
        except LocalModelError as exc:
            raise CommandError(str(exc)) from None
        for bundled in BUNDLED:
            url = bundled.base_url(settings.CFPD_LOCAL_LLM_HOST, settings.CFPD_LOCAL_LLM_PORT)
            self.stdout.write(f"{bundled.name}: openai/{bundled.alias} at {url}")
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        try:
            while not stopping and all(p.poll() is None for p in started):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for process in started:
                processes.stop(process)
