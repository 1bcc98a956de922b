"""`export_inspect_log --run N --out PATH [--model NAME] [--answers QUERY]`: a run's answers (or
those the answers list's filter picks) as Inspect AI eval logs (.eval or .json by PATH's suffix)."""

from django.core.management.base import BaseCommand, CommandError

from formats_app.inspect_services import ExportError, picked_answers, write_inspect_logs
from runs_app.models import Run


class Command(BaseCommand):
    help = ("Write a run's answers as Inspect AI eval logs (log version 2), which Inspect's read_eval_log "
            "reads and `inspect view` shows: one sample per answer (its messages, output, usage and time), the "
            "answer's code as the score 'code' (its source and rule in the score's metadata), condition, repeat "
            "(epoch) and the family's fields as metadata. One log per model. PATH ending in .eval (Inspect's "
            "default format, a zip) or .json is a log file of that format: PATH itself for one model (or "
            "--model), else one file per model named from PATH (run.eval -> run-MODEL.eval for each). Any other "
            "PATH is a folder with one TIME_TASK_runN-MODEL.json each (as Inspect names its logs: `inspect view "
            "--log-dir PATH` lists a .json log only when its name starts with a time).")

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True, help="the run's number")
        parser.add_argument("--out", required=True,
                            help="a .eval or .json file (one per model, named from it, when the run has several), "
                                 "or a folder (whose logs `inspect view --log-dir` lists)")
        parser.add_argument("--model", help="only this model's answers (its registered name)")
        parser.add_argument("--answers", metavar="QUERY",
                            help="only the answers this filter picks, as the answers list's query string "
                                 "(e.g. 'code=R&condition=t1-0' or 'q=sanctions&status=done')")

    def handle(self, *args, run, out, model, answers, **options):
        found = Run.objects.select_related("benchmark").filter(pk=run).first()
        if found is None:
            raise CommandError(f"no run {run}")
        try:
            paths = write_inspect_logs(found, out, model, picked_answers(answers) if answers else None)
        except ExportError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"{out}: {exc.strerror}") from None
        for path in paths:
            self.stdout.write(f"wrote {path} ({path.stat().st_size:,} bytes)")
