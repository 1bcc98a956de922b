"""`benchmark_stats [--benchmark NAME]`: question counts of every family (CFPD, territorial disputes,
free-form crisis); the last line is `total questions: N`."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app import services
from scenarios_app.counts import format_counts
from scenarios_app.family import NAME as CFPD
from scenarios_app.models import Benchmark


class Command(BaseCommand):
    help = ("Count questions per domain x choice count x qualified actor (focus actors, then the rest); for a "
            "territorial-disputes benchmark, its territories and languages (the English control counted); for a "
            "free-form crisis benchmark, its simulations, variants, continuations and questions per move.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="Default: every benchmark.")

    def handle(self, *args, benchmark, **options):
        benchmarks = Benchmark.objects.all()
        if benchmark:
            benchmarks = benchmarks.filter(name=benchmark)
            if not benchmarks:
                raise CommandError(f"no benchmark named {benchmark!r}")
        total = 0
        for found in benchmarks:
            if found.family == "borderlines":
                from territories_app.services import stats

                counts = stats(found)
                self.stdout.write(f"benchmark {found.name}: territorial disputes, {counts['questions']} questions")
                self.stdout.write(f"territories: {counts['territories']}")
                self.stdout.write(f"languages: {counts['languages']}")
                self.stdout.write("")
                total += counts["questions"]
                continue
            if found.family == "freeform":
                total += self._crisis(found)
                continue
            if found.family != CFPD:  # a family installed later: its questions, counted
                questions = found.questions.filter(is_current=True).count()
                self.stdout.write(f"benchmark {found.name}: {found.get_family_display()}, {questions} questions\n")
                total += questions
                continue
            table = services.stats_table(found)
            scenarios = found.scenarios.filter(is_current=True).count()
            self.stdout.write(f"benchmark {found.name}: {scenarios} scenarios, {table.total} questions")
            self.stdout.write(format_counts(table))
            self.stdout.write("")
            total += table.total
        self.stdout.write(f"total questions: {total}")

    def _crisis(self, found) -> int:
        # The CFPD pivot reads domains and qualified actors, which crisis questions have none of.
        from django.db.models import Count

        from crisis_app.models import Continuation, CrisisQuestion, Simulation, Variant

        questions = found.questions.filter(is_current=True)
        by_move = dict(CrisisQuestion.objects.filter(question__in=questions).values_list("move")
                       .annotate(n=Count("pk")).order_by("move"))
        count = questions.count()
        self.stdout.write(f"benchmark {found.name}: free-form crisis, {count} questions")
        self.stdout.write(f"simulations: {Simulation.objects.filter(benchmark=found).count()}")
        self.stdout.write(f"variants: {Variant.objects.filter(simulation__benchmark=found).count()}")
        self.stdout.write(f"move-2 continuations: {Continuation.objects.filter(simulation__benchmark=found).count()}")
        self.stdout.write("questions by move: " + ", ".join(f"{move}: {n}" for move, n in by_move.items()))
        self.stdout.write("")
        return count
