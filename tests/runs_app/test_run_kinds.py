"""Run.kind (issue 27): every run made by `services.create_run`, its kind a field;
judge units left out of every reader by `Response.objects.answers()`; migration 0012
reading the kind of existing runs from their selection's keys."""

import importlib

import pytest
from django.apps import apps

from runs_app import queueing, services
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="kinds")
    authoring.save_spec(benchmark, escalation_spec())
    return benchmark


@pytest.fixture
def model():
    return LLMModel.objects.create(name="asked", litellm_model="openai/x", api_base="http://127.0.0.1:9/v1")


def test_imported_and_synthetic_runs_are_done_from_the_start_launched_and_judge_runs_queued(benchmark, model):
    made = {kind: services.create_run(kind, benchmark, [model], note=kind) for kind in Run.Kind.values}
    for kind, run in made.items():
        run.refresh_from_db()
        assert run.kind == kind and list(run.llm_models.all()) == [model] and run.note == kind
    for kind in (Run.Kind.IMPORT, Run.Kind.SYNTHETIC):
        assert made[kind].status == Run.Status.DONE and made[kind].started_at == made[kind].finished_at
    for kind in (Run.Kind.LAUNCH, Run.Kind.JUDGE):
        assert made[kind].status == Run.Status.QUEUED and made[kind].finished_at is None


def test_a_run_of_no_known_kind_is_refused(benchmark, model):
    with pytest.raises(ValueError, match="no run kind 'imported'"):
        services.create_run("imported", benchmark, [model])
    assert not Run.objects.exists()


def test_a_launch_and_an_import_are_runs_of_their_kind(benchmark, model, monkeypatch):
    monkeypatch.setattr(queueing, "send_launch", lambda run_id, units: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    launched = services.launch_run(benchmark, [model], repeats=1)
    key = benchmark.questions.order_by("key").values_list("key", flat=True).first()
    imported = services.import_responses(f"question_key,model,repeat,output\n{key},elsewhere,0,B\n").run
    assert (launched.kind, imported.kind) == (Run.Kind.LAUNCH, Run.Kind.IMPORT)
    assert imported.selection == {"imported": True} and imported.status == Run.Status.DONE


def test_answers_leave_out_the_units_of_judge_runs_and_only_those(benchmark, model):
    question = benchmark.questions.first()
    runs = {kind: services.create_run(kind, benchmark, [model]) for kind in Run.Kind.values}
    units = {kind: Response.objects.create(run=run, question=question, model=model, status="done")
             for kind, run in runs.items()}
    answers = set(Response.objects.answers().values_list("pk", flat=True))
    assert answers == {units[k].pk for k in (Run.Kind.LAUNCH, Run.Kind.IMPORT, Run.Kind.SYNTHETIC)}
    assert list(Response.objects.judge_units().values_list("pk", flat=True)) == [units[Run.Kind.JUDGE].pk]
    assert set(Run.objects.of_answers()) == {runs[k] for k in (Run.Kind.LAUNCH, Run.Kind.IMPORT, Run.Kind.SYNTHETIC)}


def test_the_migration_reads_each_runs_kind_from_its_selection_and_keeps_every_row(benchmark, model):
    from encoding_app.models import Judge, JudgeRequest

    selections = {"launch": {"domains": [], "sample": None, "seed": 0}, "judge": {"judge_of": 1},
                  "import": {"imported": True}, "crisis": {"imported": {"path": "run1/free", "continuation": "c"}},
                  "synthetic": {"synthetic": True, "seed": 3}, "empty": {}}
    runs = {name: Run.objects.create(benchmark=benchmark, selection=selection, note=name)
            for name, selection in selections.items()}
    # A judge unit in a run whose selection does not say so (made by hand): still a judge run.
    unmarked = Run.objects.create(benchmark=benchmark, note="by hand")
    question = benchmark.questions.first()
    target = Response.objects.create(run=runs["launch"], question=question, model=model, status="done")
    unit = Response.objects.create(run=unmarked, question=question, model=model, status="done")
    JudgeRequest.objects.create(judge_response=unit, target_response=target, judge=Judge.objects.create(model=model))
    assert set(Run.objects.values_list("kind", flat=True)) == {"launch"}  # as every run was before 0012

    migration = importlib.import_module("runs_app.migrations.0012_run_kind")
    migration.kind_from_selection(apps, None)

    kinds = dict(Run.objects.values_list("note", "kind"))
    assert kinds == {"launch": "launch", "judge": "judge", "import": "import", "crisis": "import",
                     "synthetic": "synthetic", "empty": "launch", "by hand": "judge"}
    assert dict(Run.objects.values_list("note", "selection")) == {**selections, "by hand": {}}
