"""A finished run deleted by statements (`services.delete_run`, issue 42): nothing of it is
left in any table that points at it or at its units (found through Django's model meta, as
the service finds them), the tallies and the run counters equal a recount, other runs keep
every row, a run not finished is refused, and for any statement size the database ends as
`Run.delete()` (Django's collector) leaves it. Both passes."""

import pytest
from django.db import connection, transaction
from django.db.models.deletion import get_candidate_relations_to_delete
from hypothesis import HealthCheck, given, settings, strategies as st

from encoding_app import services as coding
from encoding_app.models import Code, ReviewTask
from runs_app import run_deletion, services
from runs_app.models import LLMModel, ProviderBatch, Response, Run, RunProgress
from scenarios_app.tallies import PassTally, QuestionTally
from tests.runs_app.test_run_progress_counters import assert_counters_equal_a_recount
from tests.scenarios_app.test_analysis import answered  # noqa: F401 (fixture)
from tests.scenarios_app.test_analysis_tally import recounted, tallied

pytestmark = pytest.mark.django_db


def left_of(run_id: int, unit_ids: list[int]) -> dict[str, int]:
    """Rows in every table with a foreign key to the run or to one of its units (and to
    those rows' own dependants one step further): what a deletion must leave empty."""
    left = {}
    for relation in get_candidate_relations_to_delete(Run._meta):
        rows = relation.related_model._base_manager.filter(**{relation.field.attname: run_id})
        left[f"{relation.related_model._meta.label}.{relation.field.name}"] = rows.count()
    for relation in get_candidate_relations_to_delete(Response._meta):
        rows = relation.related_model._base_manager.filter(**{f"{relation.field.attname}__in": unit_ids})
        left[f"{relation.related_model._meta.label}.{relation.field.name}"] = rows.count()
        for further in get_candidate_relations_to_delete(relation.related_model._meta):
            deeper = further.related_model._base_manager.filter(**{f"{further.field.attname}__in": rows.values("pk")})
            left[f"{further.related_model._meta.label}.{further.field.name}"] = deeper.count()
    return {name: n for name, n in left.items() if n}


def other_run(benchmark_name: str) -> Run:
    from benchmarks_app.models import Question

    keys = list(Question.objects.filter(benchmark__name=benchmark_name).order_by("pk").values_list("key", flat=True))[:2]
    result = services.import_responses("question_key,model,repeat,output\n" + "".join(f"{k},outside,0,A\n" for k in keys),
                                       benchmark_name=benchmark_name)
    assert not result.problems
    return result.run


def snapshot(run_ids) -> dict:
    """Every row (ids and foreign keys) of the runs, their units and every table pointing at
    either, and the tallies with a count; the same on both passes."""
    tables = {Run: Run.objects.all(), Response: Response.objects.all()}
    for relation in [*get_candidate_relations_to_delete(Run._meta), *get_candidate_relations_to_delete(Response._meta),
                     *get_candidate_relations_to_delete(ReviewTask._meta), *get_candidate_relations_to_delete(Code._meta)]:
        tables.setdefault(relation.related_model, relation.related_model._base_manager.all())
    picture = {}
    for model, rows in tables.items():
        if model in (PassTally, QuestionTally):
            rows = rows.filter(n__gt=0)  # the collector leaves a deleted run's at n = 0
        columns = [f.attname for f in model._meta.concrete_fields if f.is_relation or f.primary_key]
        if model in (PassTally, QuestionTally, RunProgress):
            columns = [f.attname for f in model._meta.concrete_fields if not f.primary_key and f.name != "changed"]
            picture[model._meta.label] = sorted(rows.values_list(*columns))
            continue
        picture[model._meta.label] = sorted(rows.values_list(*columns))
    picture["progress"] = {pk: services.progress_by_model(Run.objects.get(pk=pk)) for pk in run_ids
                           if Run.objects.filter(pk=pk).exists()}
    return picture


def kept_of(run: Run) -> tuple:
    """Another run's units, their codes, tallies and counters, as rows."""
    units = sorted(run.responses.values_list())
    codes = sorted(Code.objects.filter(response__run=run).values_list())
    tallies = sorted(QuestionTally.objects.filter(run=run).values_list()), sorted(PassTally.objects.filter(run=run)
                                                                                  .values_list())
    return units, codes, tallies, sorted(RunProgress.objects.filter(run=run).values_list()), \
        services.progress_by_model(run)


def decorate(run: Run, reviewer):
    """What a finished run carries besides its answers: a review task with a reviewer's code
    (a code superseding the encoder's), a follow-up unit, a provider batch naming units."""
    hawk = LLMModel.objects.get(name="hawk")
    coded = run.responses.filter(model=hawk, code="B").order_by("pk").first()
    coding.queue_for_review(coded.pk, "check")
    held = coding.next_task(reviewer)
    coding.submit_code(held.pk, reviewer, "A")
    first = run.responses.order_by("pk").first()
    Response.objects.create(run=run, question=first.question, model=first.model, repeat=7, previous=first,
                            status="done", chosen_letter="A", code="A", code_source="choice", option_order=[0, 1])
    batch = ProviderBatch.objects.create(run=run, model=hawk, status="completed")
    run.responses.filter(model=hawk).update(provider_batch=batch)


def test_a_deleted_run_leaves_nothing_and_the_counts_equal_a_recount(answered, reviewer, monkeypatch):  # noqa: F811
    decorate(answered, reviewer)
    kept = other_run(answered.benchmark.name)
    kept_before = kept_of(kept)
    unit_ids = list(answered.responses.values_list("pk", flat=True))
    codes = Code.objects.filter(response__run=answered).count()
    assert len(unit_ids) == 11 and codes >= 10
    assert left_of(answered.pk, unit_ids)  # codes, a review task, a batch, counters, tallies on PostgreSQL
    monkeypatch.setattr(run_deletion, "DELETE_CHUNK", 4)  # several statements over the 11 units
    reported = []

    result = services.delete_run(answered, progress=lambda done, total, phase: reported.append((done, total)))

    assert left_of(answered.pk, unit_ids) == {} and not Run.objects.filter(pk=answered.pk).exists()
    assert result.units == 11 and result.rows["runs_app.Response"] == 11 and result.rows["runs_app.Run"] == 1
    assert result.rows["encoding_app.Code"] == codes and result.rows["encoding_app.ReviewTask"] == 1
    # Unit ids are consecutive here, so 11 units over statements of 4 ids: ≤ 4 reports, last 11 of 11.
    assert reported and reported[-1] == (11, 11) and [d for d, _ in reported] == sorted(d for d, _ in reported)
    if connection.vendor == "postgresql":  # the tallies' triggers are PostgreSQL's
        assert tallied() == recounted()
    assert_counters_equal_a_recount(kept)
    assert kept_of(kept) == kept_before  # another run's rows neither deleted nor changed
    # The counters' trigger stepped aside for the deleted run's statements only: a unit of
    # another run deleted later in the same transaction is taken out of its counters.
    kept.responses.order_by("pk").first().delete()
    assert_counters_equal_a_recount(kept)
    assert Run.objects.filter(pk=kept.pk).exists()


@pytest.mark.parametrize("status", ["queued", "running", "paused"])
def test_a_run_not_finished_is_refused(answered, status):  # noqa: F811
    Run.objects.filter(pk=answered.pk).update(status=status)
    with pytest.raises(services.RunNotFinished, match=f"Run {answered.pk} is {status}: .*cancel it first"):
        services.delete_run(answered)
    assert answered.responses.count() == 10


def test_a_cancelled_run_with_a_unit_in_flight_is_refused_then_deleted_once_it_ends(answered):  # noqa: F811
    Run.objects.filter(pk=answered.pk).update(status="cancelled")
    unit = answered.responses.order_by("pk").first()
    Response.objects.filter(pk=unit.pk).update(status="running")
    with pytest.raises(services.RunNotFinished, match="still has 1 unit"):
        services.delete_run(answered)
    assert answered.responses.count() == 10
    Response.objects.filter(pk=unit.pk).update(status="cancelled")
    assert services.delete_run(answered).units == 10
    assert not Response.objects.filter(run_id=answered.pk).exists()


def test_a_follow_up_in_another_run_goes_as_the_collector_would_take_it(answered):  # noqa: F811
    kept = other_run(answered.benchmark.name)
    unit = answered.responses.order_by("pk").first()
    follow = kept.responses.order_by("pk").first()
    Response.objects.filter(pk=follow.pk).update(previous=unit)  # CASCADE reaches it (Django's rule)
    result = services.delete_run(answered)
    assert not Response.objects.filter(pk=follow.pk).exists() and result.rows["runs_app.Response"] == 11
    assert kept.responses.count() == 1
    assert_counters_equal_a_recount(kept)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk=st.integers(min_value=1, max_value=12), follow_ups=st.sets(st.integers(0, 9), max_size=4),
       reviewed=st.booleans(), cancelled=st.booleans())
def test_for_any_statement_size_it_ends_as_the_collector_does(answered, reviewer, chunk, follow_ups,  # noqa: F811
                                                               reviewed, cancelled):
    """Whatever the statement size and whatever hangs on the run, the database after
    delete_run is the database after Run.delete(), tallies at n = 0 aside."""
    with transaction.atomic():
        units = list(answered.responses.order_by("pk"))
        for i in sorted(follow_ups):
            Response.objects.create(run=answered, question=units[i].question, model=units[i].model, repeat=3 + i,
                                    previous=units[i], status="done", option_order=[0, 1])
        if reviewed:
            decorate(answered, reviewer)
        if cancelled:
            Run.objects.filter(pk=answered.pk).update(status="cancelled")
        with transaction.atomic():
            Run.objects.get(pk=answered.pk).delete()
            by_collector = snapshot([])
            transaction.set_rollback(True)
        run_deletion.DELETE_CHUNK, saved = chunk, run_deletion.DELETE_CHUNK
        try:
            services.delete_run(Run.objects.get(pk=answered.pk))
        finally:
            run_deletion.DELETE_CHUNK = saved
        assert snapshot([]) == by_collector
        if connection.vendor == "postgresql":
            assert tallied() == recounted()
        transaction.set_rollback(True)  # the next example starts from the fixture's run


def test_the_command_deletes_a_finished_run_and_names_a_running_one(answered):  # noqa: F811
    from io import StringIO

    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="no run 999"):
        call_command("delete_run", "999", stdout=StringIO())
    Run.objects.filter(pk=answered.pk).update(status="running")
    with pytest.raises(CommandError, match=f"Run {answered.pk} is running"):
        call_command("delete_run", str(answered.pk), stdout=StringIO())
    Run.objects.filter(pk=answered.pk).update(status="done")
    out = StringIO()
    call_command("delete_run", str(answered.pk), stdout=out)
    assert f"run {answered.pk}: 10/10 units deleted" in out.getvalue()
    assert f"run {answered.pk} deleted in" in out.getvalue() and "runs_app.Response 10" in out.getvalue()
    assert not Run.objects.filter(pk=answered.pk).exists()
