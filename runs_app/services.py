"""Run workflows: launch, cancel, resume, recover, progress; registering models and
importing answers collected elsewhere; deleting a finished run. Views, commands, the API and tasks call these.

The public face of runs_app's workflows: each concern lives in its own module
(`launching`, `run_control`, `run_progress`, `sweeping`, `service_wait`) and is
re-exported here, so callers import one module."""

from __future__ import annotations

from . import queueing, response_import  # noqa: F401 — queueing: tests replace its sends through this module
from .launching import (
    DETERMINISTIC_MODES, SAMPLING_REPEATS, LaunchInvalid, LaunchRequest, RunError, batch_table_prices, conditions_of,
    create_run, key_status, launch_limits, launch_run, model_prices, observed_latency_ms, plan_as_dict, plan_launch,
    queue_new_units, read_launch, repeats_for, select_questions, selection_notes, start_run,
)
from .models import LLMModel, Run
from .run_control import (
    CANCEL_CHUNK, UNCHANGED, Cancellation, budget_state, cancel_pending_units, cancel_run, read_budget, resume_run,
)
from .run_deletion import DELETE_CHUNK, RunDeletion, RunNotFinished, delete_run
from .run_progress import (Progress, RunWorker, error_breakdown, progress, progress_by_model, recounted_progress,
                           WORKERS_WINDOW, run_workers)
from .selection import Selection
from .service_wait import (
    BROKERS, UNCODED_CHUNK, UNCODED_SLACK, UNCODED_WINDOW, WRITE_OUTAGES, code_uncoded_answers, service_notice,
    uncoded_since, watch_services,
)
from .sweeping import SWEEP_BATCH, recover_active_runs, sweep_run

__all__ = [
    "BROKERS", "CANCEL_CHUNK", "DELETE_CHUNK", "DETERMINISTIC_MODES", "IMPORT_COLUMNS", "SAMPLING_REPEATS", "SWEEP_BATCH",
    "UNCHANGED", "UNCODED_CHUNK", "UNCODED_SLACK", "UNCODED_WINDOW", "WRITE_OUTAGES",
    "Cancellation", "LaunchInvalid", "LaunchRequest", "Progress", "ResponseImport", "RunDeletion", "RunError",
    "RunNotFinished", "Selection",
    "batch_table_prices", "budget_state", "cancel_pending_units", "cancel_run", "code_uncoded_answers",
    "conditions_of", "create_run", "delete_run", "error_breakdown", "import_response_file", "import_responses", "key_status",
    "launch_limits", "launch_run", "model_prices", "observed_latency_ms", "plan_as_dict", "plan_launch",
    "progress", "progress_by_model", "queue_new_units", "read_budget", "read_launch", "recounted_progress",
    "recover_active_runs", "repeats_for", "resume_run", "select_questions", "service_notice", "start_run",
    "sweep_run", "uncoded_since", "unknown_runs_and_models", "watch_services",
]


# --- answers produced elsewhere ----------------------------------------------------

# Read as a stream in two passes, in bounded memory (issue 32): runs_app.response_import.
IMPORT_COLUMNS = response_import.IMPORT_COLUMNS
ResponseImport = response_import.ResponseImport


def import_responses(text: str, benchmark_name: str | None = None, imported_by=None,
                     progress=None) -> ResponseImport:
    """Answers collected outside the tool, by the keys `export_questions` wrote. Atomic:
    any bad row and nothing is written. Unknown models become external models."""
    return response_import.import_text(text, create_run, imported_by=imported_by, progress=progress)


def import_response_file(path, imported_by=None, progress=None) -> ResponseImport:
    """The same from the file at `path`, read as a stream: memory does not grow with its
    rows beyond a few integers each (TableError: not UTF-8 text; OSError: unreadable)."""
    return response_import.import_file(path, create_run, imported_by=imported_by, progress=progress)


def unknown_runs_and_models(runs, models) -> str:
    """What a report command was given that does not exist ("" when all exist)."""
    unknown_runs = sorted(set(runs) - set(Run.objects.filter(pk__in=runs).values_list("pk", flat=True)))
    unknown_models = sorted(set(models) - set(LLMModel.objects.filter(name__in=models).values_list("name", flat=True)))
    return "; ".join(filter(None, [unknown_runs and f"no run {', '.join(map(str, unknown_runs))}",
                                   unknown_models and f"no model {', '.join(unknown_models)}"]))
