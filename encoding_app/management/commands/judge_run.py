"""`judge_run RUN --judge MODEL [--user NAME]`: ask a judge model to read a run's unresolved answers."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from encoding_app import judges
from encoding_app.services import CodingError
from runs_app.models import LLMModel, Run


class Command(BaseCommand):
    help = ("Queue a judge run: the judge model reads each unresolved answer of RUN; its readings are shown to "
            "reviewers as suggestions (codes only once an admin promotes the judge).")

    def add_arguments(self, parser):
        parser.add_argument("run", type=int)
        parser.add_argument("--judge", required=True, metavar="MODEL", help="A registered model's name.")
        parser.add_argument("--user", help="Recorded as who asked (a username).")

    def handle(self, *args, run, judge, user=None, **options):
        target = Run.objects.filter(pk=run).first()
        if target is None:
            raise CommandError(f"no run {run}")
        model = LLMModel.objects.filter(name=judge).first()
        if model is None:
            raise CommandError(f"no model named {judge!r}; register it under Runs › Models")
        requester = None
        if user:
            requester = get_user_model().objects.filter(username=user).first()
            if requester is None:
                raise CommandError(f"no user {user!r}")
        try:
            judge_run = judges.request_judging(target, model, requester)
        except CodingError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"run {judge_run.pk}: {model.name} reads {judge_run.responses.count()} unresolved "
                          f"answers of run {run} (note: {judge_run.note})")
