"""`load_demo_panel`: the demo's panel of scripted respondents (panels_app.demo; idempotent)."""

from django.core.management.base import BaseCommand, CommandError

from benchmarks_app.models import Benchmark
from panels_app import demo
from panels_app.services import PanelError


class Command(BaseCommand):
    help = ("Add the demo's panel of scripted respondents (bots, labelled as scripted) to a benchmark: the questions "
            "a seeded sample, as the demo's run picks them. A panel made before is kept as it is.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", default="demo")
        parser.add_argument("--respondents", type=int, default=12)
        parser.add_argument("--sample", type=int, default=40, help="Questions (0: every current question).")
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, **options):
        benchmark = Benchmark.objects.filter(name=options["benchmark"]).first()
        if benchmark is None:
            raise CommandError(f"no benchmark named {options['benchmark']!r}: load_demo makes the demo's")
        if not 2 <= options["respondents"] <= 200:
            raise CommandError(f"--respondents: 2 to 200; got {options['respondents']}")
        try:
            panel, made = demo.seed_scripted_panel(benchmark, respondents=options["respondents"],
                                                   sample=options["sample"] or None, seed=options["seed"])
        except PanelError as exc:
            raise CommandError(str(exc)) from exc
        kept = panel.respondents.filter(finished_at__isnull=False, failed_checks=0).count()
        self.stdout.write(f"panel {panel.name!r}: {'made' if made else 'kept as it was'}, "
                          f"{panel.respondents.count()} scripted respondents ({kept} kept), "
                          f"{panel.panel_questions.count()} questions")
