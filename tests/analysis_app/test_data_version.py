"""The data version (`benchmarks_app.data_version`): it moves after every change to a code
commits — a reviewer's correction and undo too, which add no answer — and when a run is
deleted, so the models' headline figures are keyed by what they read and are computed
again exactly when it changed (no timer)."""

import pytest

from accounts.services import create_user_with_role
from analysis_app import headlines
from benchmarks_app import data_version
from encoding_app import services
from encoding_app.models import CodingPolicy
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def question():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")]))
    policy = CodingPolicy.current()
    policy.double_coding_share = policy.audit_share = 0
    policy.save()
    return benchmark.questions.filter(cfpd__variant="full").first()


def answered(question, output, run=None):
    model, _ = LLMModel.objects.get_or_create(name="gen", defaults={"litellm_model": "openai/x"})
    response = Response.objects.create(run=run or Run.objects.create(benchmark=question.benchmark), question=question,
                                       model=model, status="done", raw_output=output, option_order=[0, 1, 2])
    responses_answered.send(sender=Response, response_ids=[response.pk])
    return response


def test_a_reviewers_code_and_its_undo_each_move_the_number_once_committed(question,
                                                                          django_capture_on_commit_callbacks):
    rita, _ = create_user_with_role("rita", "persona-pass-123", role="reviewers")
    with django_capture_on_commit_callbacks(execute=True):
        answered(question, "Hmm, A or maybe C.")  # the encoder cannot tell: queued for a reviewer
    queued = data_version.current()
    assert queued == 1  # the number starts at 0; being queued (state "unresolved") moved it
    task = services.next_task(rita)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.submit_code(task.pk, rita, "A")
    assert data_version.current() == queued  # not before the change commits
    for callback in callbacks:
        callback()
    assert data_version.current() == queued + 1
    before_undo = headlines._key(headlines.data_version())
    with django_capture_on_commit_callbacks(execute=True):
        services.undo_last(rita)  # adds no answer and no code row
    assert data_version.current() == queued + 2
    assert headlines._key(headlines.data_version()) != before_undo  # the profile's figures are asked for again


def test_answers_coded_on_arrival_move_it_and_a_deleted_run_moves_it(question, django_capture_on_commit_callbacks):
    run = Run.objects.create(benchmark=question.benchmark)
    with django_capture_on_commit_callbacks(execute=True):
        answered(question, "B", run=run)  # a bare letter: coded by rule at once
    assert Response.objects.get().code == "B" and data_version.current() == 1
    older = Run.objects.create(benchmark=question.benchmark)  # a later run, so the largest run number stays
    assert older.pk > run.pk
    version = headlines.data_version()
    with django_capture_on_commit_callbacks(execute=True):
        run.delete()
    assert data_version.current() == 2 and headlines.data_version() != version


def test_nothing_changed_nothing_moves(question, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answered(question, "C")
    version = headlines.data_version()
    assert headlines.data_version() == version and data_version.current() == 1
