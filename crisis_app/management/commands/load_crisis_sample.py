from django.core.management.base import BaseCommand, CommandError

from crisis_app import services


class Command(BaseCommand):
    help = ("Load the sample free-form crisis simulation (explicit and anonymised variants, two continuations, "
            "two level-1 and two level-2 ablations, a ranked-options variant) into a benchmark; again changes nothing.")

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", default="crisis-sample", help="Benchmark name (created if missing).")

    def handle(self, *args, benchmark, **options):
        try:
            simulation = services.load_sample(benchmark)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        questions = simulation.benchmark.questions.filter(is_current=True).count()
        self.stdout.write(f"{simulation}: {simulation.variants.count()} variants, "
                          f"{simulation.continuations.count()} continuations, {questions} questions")
