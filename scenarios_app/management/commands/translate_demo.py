"""`translate_demo`: a few demo scenarios drafted in a language by a bundled model and
approved by the demo's author (`scenarios_app.demo_translations`). A refused draft is said
and skipped; the command fails only when it cannot start."""

from django.core.management.base import BaseCommand, CommandError

from scenarios_app import demo_translations


class Command(BaseCommand):
    help = ("Draft a few demo scenarios in a language with a bundled model (slot check, back-translation, "
            "chrF/BERTScore) and approve them as the demo's author, labelled as machine drafts.")

    def add_arguments(self, parser):
        parser.add_argument("--language", default="zh", help="BCP 47 code (default zh)")
        parser.add_argument("--model", default=demo_translations.DEMO_MODEL,
                            help=f"the model that drafts (default {demo_translations.DEMO_MODEL})")
        parser.add_argument("--back-model", default=None, help="the model that translates back (default: --model)")
        parser.add_argument("--scenarios", default=",".join(demo_translations.DEMO_SCENARIOS),
                            help="scenario keys of the demo benchmark, comma-separated")
        parser.add_argument("--drafts", type=int, default=None,
                            help="ask the model for the first N scenarios only; the others take the demo's own "
                                 "translation (default: all)")

    def handle(self, *args, **options):
        keys = tuple(k.strip() for k in options["scenarios"].split(",") if k.strip())
        try:
            result = demo_translations.translate_demo(
                options["language"], keys=keys, model_name=options["model"], back_model_name=options["back_model"], drafts=options["drafts"],
                progress=lambda line: self.stdout.write(f"  {line}", ending="\n") or self.stdout.flush())
        except (demo_translations.DemoTranslationError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        questions = sum(o.questions for o in result.outcomes)
        fixtures = sum(o.status == "fixture" or (o.status == "kept" and demo_translations.FIXTURE_PROVENANCE in o.detail)
                       for o in result.outcomes)
        self.stdout.write(f"{result.language}: {result.approved} of {len(result.outcomes)} scenario(s) approved in "
                          f"{result.language} ({questions} question(s)): {result.drafted} machine draft(s) by "
                          f"{options['model']}, {fixtures} the demo's own translation(s) written by a person; actor "
                          f"names from the demo fixture: {result.names_set}")
        for outcome in result.outcomes:
            if outcome.status in ("refused", "failed", "not approved"):
                self.stdout.write(f"not translated: {outcome.key} ({outcome.status}): {outcome.detail}")
