"""`test_connection MODEL`: find out what a registered model's server supports (a few small
requests), keep it on the model as the page's button does, and print the findings."""

import json

from django.core.management.base import BaseCommand, CommandError

from gateway import capabilities
from runs_app import connection
from runs_app.models import LLMModel

MARKS = {True: "yes", False: "no", None: "not found out"}


class Command(BaseCommand):
    help = ("Test a registered model's connection: whether its server answers, returns log-probabilities, takes "
            "guided choice or a grammar, echoes prompts for rank classification, and heeds the temperature. "
            "Stored on the model; the launch plan reads it.")

    def add_arguments(self, parser):
        parser.add_argument("model", help="The registered model's name (see /runs/models/).")
        parser.add_argument("--json", action="store_true", help="Print the stored findings as JSON.")

    def handle(self, *args, **options):
        model = LLMModel.objects.filter(name=options["model"]).first()
        if model is None:
            known = ", ".join(LLMModel.objects.values_list("name", flat=True)[:30])
            raise CommandError(f"no model named {options['model']!r} (registered: {known or 'none'})")
        self.stderr.write(f"Testing {model.name} ({model.litellm_model}"
                          f"{' at ' + model.api_base if model.api_base else ''}); timeout {model.timeout_seconds} s "
                          "per request…")
        try:
            state = connection.test_connection(model)
        except connection.ConnectionTestRefused as exc:
            raise CommandError(str(exc)) from None
        if state.get("status") == "failed":
            raise CommandError(f"the test failed: {state.get('error')}")
        if options["json"]:
            self.stdout.write(json.dumps({key: state.get(key) for key in ("findings", "recommended", "probed")},
                                         indent=2))
            return
        width = max(len(label) for label in capabilities.LABELS.values())
        for key in capabilities.FINDINGS:
            finding = (state.get("findings") or {}).get(key)
            if finding is None:
                continue
            self.stdout.write(f"{capabilities.LABELS[key]:<{width}}  {MARKS[finding['ok']]:<13}  {finding['summary']}")
            if finding.get("message"):
                self.stdout.write(f"{'':<{width}}  {'':<13}  server: {finding['message'][:300]}")
        recommended = state.get("recommended") or {}
        self.stdout.write(f"\nchoice mode: {recommended.get('choice') or 'cannot work'}; rank classification: "
                          f"{recommended.get('rank') or 'cannot work'}; generate mode: "
                          f"{'works' if recommended.get('generate') else 'no answer'}")
        model.refresh_from_db()
        check = capabilities.mode_check(connection.facts(model))
        if check is not None:
            self.stdout.write(f"{model.answer_mode} mode as registered: {check.text}")
