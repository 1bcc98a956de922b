"""The grid's columns and rows read by index probes (`explorer_app.grid_rows`, issue 42) are
those of reading the runs' answers whole (the way the grid read them before: every
distinct (model, condition) pair and every distinct row over the filtered answers), for
a launched run, an imported run, hand-made runs with random answers, every filter of the
grid, rows by question and by condition, and the pages cut from them."""

import random

import pytest

from benchmarks_app.models import Benchmark, Condition, Question
from explorer_app import grid_query, grid_rows
from explorer_app.grid_query import GridFilter
from runs_app import queueing, services
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


def read_whole(f: GridFilter, by_condition: bool):
    """The pairs and rows as the grid read them before: over every filtered answer."""
    answers = grid_query.filtered_answers(f)
    pairs = set(answers.order_by().values_list("model_id", "condition_id").distinct())
    fields = ["question_id", "condition_id"] if by_condition else ["question_id"]
    ordering = ["question__key", "condition__position", "condition__name"] if by_condition else ["question__key"]
    rows = [tuple(r[k] for k in fields) for r in answers.values(*fields).distinct().order_by(*ordering)]
    return pairs, rows


def read_by_probes(f: GridFilter, by_condition: bool):
    model_ids = set(LLMModel.objects.filter(name__in=f.models).values_list("pk", flat=True)) if f.models else None
    condition_ids = (set(Condition.objects.filter(name__in=f.conditions).values_list("pk", flat=True))
                     if f.conditions else None)
    pairs = grid_rows.pairs(f.runs, model_ids, condition_ids, f.codes, f.statuses)
    benchmark_id = Run.objects.get(pk=f.runs[0]).benchmark_id
    return pairs, grid_rows.rows(benchmark_id, f.runs, pairs, by_condition, model_ids, condition_ids, f.codes,
                                 f.statuses)


def filters(runs, models, conditions):
    """Every kind of filter the grid takes, alone and together."""
    yield GridFilter(runs=runs)
    for code in ("A", "B", "R", "none"):
        yield GridFilter(runs=runs, codes=(code,))
    yield GridFilter(runs=runs, codes=("A", "R"))
    for status in ("done", "failed", "pending"):
        yield GridFilter(runs=runs, statuses=(status,))
    yield GridFilter(runs=runs, models=(models[0],))
    yield GridFilter(runs=runs, conditions=(conditions[-1],))
    yield GridFilter(runs=runs, models=(models[-1],), codes=("B", "none"), statuses=("done", "failed"))
    yield GridFilter(runs=runs, conditions=(conditions[0],), codes=("X",))  # matches nothing


def assert_same_as_whole(runs, models, conditions):
    for f in filters(runs, models, conditions):
        for by_condition in (False, True):
            assert read_by_probes(f, by_condition) == read_whole(f, by_condition), (f, by_condition)


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="probes")
    authoring.save_spec(benchmark, escalation_spec())
    return benchmark


@pytest.fixture
def launched(benchmark, monkeypatch):
    """A launched run of two models, three repeats of the generating one, a few of its
    units answered and coded, the rest pending."""
    monkeypatch.setattr(queueing, "send_launch", lambda run_id, units: None)
    monkeypatch.setattr(queueing, "schedule_sweep", lambda run_id: None)
    models = [LLMModel.objects.create(name=name, litellm_model=f"openai/{name}", api_base="http://127.0.0.1:9/v1",
                                      answer_mode=mode)
              for name, mode in (("chooser", LLMModel.AnswerMode.CHOICE), ("writer", LLMModel.AnswerMode.GENERATE))]
    run = services.launch_run(benchmark, models, repeats=3)
    units = list(Response.objects.filter(run=run).order_by("pk"))
    for unit, (status, code) in zip(units[::3], [("done", "A"), ("done", "R"), ("failed", ""), ("done", "")] * 50):
        Response.objects.filter(pk=unit.pk).update(status=status, code=code)
    return run


def test_a_launched_run_shows_the_columns_and_rows_of_its_answers(launched):
    units = Response.objects.filter(run=launched)
    # the chooser asked once, the writer three times, each question
    assert units.count() == 4 * launched.benchmark.questions.count() and units.filter(status="pending").exists()
    assert units.filter(code="R").exists() and units.filter(status="failed").exists()
    assert_same_as_whole((launched.pk,), ["chooser", "writer"], ["default"])
    pairs, rows = read_by_probes(GridFilter(runs=(launched.pk,)), False)
    assert {LLMModel.objects.get(pk=m).name for m, _ in pairs} == {"chooser", "writer"}
    asked = set(units.values_list("question_id", flat=True))
    assert [r[0] for r in rows] == list(Question.objects.filter(pk__in=asked).order_by("key")
                                        .values_list("pk", flat=True))


def test_an_imported_run_shows_the_columns_and_rows_of_its_answers(benchmark):
    persona = Condition.objects.create(name="persona", label="Persona", position=5)
    keys = list(benchmark.questions.order_by("key").values_list("key", flat=True))
    lines = ["question_key,model,repeat,output,condition"]
    # The keys in reverse order, a model answering some questions under one condition
    # only: the rows come out in key order, the pairs as the file has them.
    for i, key in enumerate(reversed(keys)):
        lines.append(f"{key},elsewhere,0,A,default")
        if i % 2:
            lines.append(f"{key},elsewhere,1,I refuse,default")
            lines.append(f"{key},other-place,0,B,persona")
    run = services.import_responses("\n".join(lines) + "\n").run
    assert run.kind == Run.Kind.IMPORT
    assert_same_as_whole((run.pk,), ["elsewhere", "other-place"], ["default", "persona"])
    pairs, rows = read_by_probes(GridFilter(runs=(run.pk,)), True)
    names = dict(LLMModel.objects.values_list("pk", "name"))
    assert {(names[m], c) for m, c in pairs} == {("elsewhere", 1), ("other-place", persona.pk)}
    # every question under the default condition, every other one under persona too
    assert len(rows) == len(keys) + len(keys) // 2
    assert [Question.objects.get(pk=q).key for q, c in rows if c == 1] == keys


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_answers_of_two_runs_read_by_probes_as_whole(seed):
    """Three models, three conditions, two runs of 12 questions whose keys do not follow
    their ids; each unit present or not, with a random status and code."""
    rng = random.Random(seed)
    benchmark = Benchmark.objects.create(name=f"random-{seed}", family="cfpd")
    questions = [Question.objects.create(benchmark=benchmark, key=f"r{seed}-{rng.randrange(10**6):06d}-{i}",
                                         text="?", options=[{"text": "yes"}, {"text": "no"}], choice_count=2)
                 for i in range(12)]
    models = [LLMModel.objects.create(name=f"rand-{seed}-{i}", litellm_model="openai/x") for i in range(3)]
    conditions = [Condition.objects.get(pk=1)] + [
        Condition.objects.create(name=f"c{seed}-{i}", label=f"C {i}", position=rng.choice([0, 3])) for i in range(2)]
    runs = [Run.objects.create(benchmark=benchmark, status="done") for _ in range(2)]
    rows = []
    for run in runs:
        for question in questions:
            for model in models:
                for condition in conditions:
                    for repeat in range(2):
                        if rng.random() < 0.35:
                            status = rng.choice(["done", "done", "failed", "pending"])
                            code = rng.choice(["A", "B", "R", ""]) if status == "done" else ""
                            rows.append(Response(run=run, question=question, model=model, condition=condition,
                                                 repeat=repeat, status=status, code=code))
    Response.objects.bulk_create(rows)
    names = [m.name for m in models]
    condition_names = [c.name for c in conditions]
    assert_same_as_whole((runs[0].pk,), names, condition_names)
    assert_same_as_whole(tuple(r.pk for r in runs), names, condition_names)


def test_a_run_with_no_answers_has_no_columns_and_no_rows(benchmark):
    run = Run.objects.create(benchmark=benchmark, status="done")
    assert read_by_probes(GridFilter(runs=(run.pk,)), False) == (set(), [])
    assert read_by_probes(GridFilter(runs=(run.pk,), codes=("R",)), True) == (set(), [])


def test_the_pages_of_a_code_filtered_grid_are_cut_from_the_rows_in_key_order(client, launched, monkeypatch):
    from accounts.services import create_user_with_role

    monkeypatch.setattr(grid_query, "ROWS_PER_PAGE", 2)
    client.force_login(create_user_with_role("ana-probes", PASSWORD, role="analysts")[0])
    for query in ({}, {"code": "R"}, {"code": "A", "status": "done"}):
        f = GridFilter(runs=(launched.pk,), codes=tuple(query.get("code", "").split()) if query.get("code") else (),
                       statuses=(query["status"],) if "status" in query else ())
        _, whole = read_whole(f, False)
        keys = list(Question.objects.filter(pk__in=[r[0] for r in whole]).order_by("key").values_list("key", flat=True))
        pages = -(-len(keys) // 2)
        assert pages >= 1
        for page in range(1, pages + 2):  # one past the last: the last again
            body = client.get("/api/answers/grid/", {"run": launched.pk, "page": page, **query}).json()
            shown = min(page, pages)
            assert (body["total_rows"], body["pages"], body["page"]) == (len(keys), pages, shown)
            assert [row["question"] for row in body["rows"]] == keys[(shown - 1) * 2: shown * 2]


def test_kept_rows_follow_every_unit_added_or_removed(benchmark):
    """The rows without a code or status filter are kept in the cache under the runs'
    stamp (units counted, highest id): a unit added to a question not asked yet, or the
    last unit of a question removed, shows at once; a code filter's rows are read afresh."""
    questions = list(benchmark.questions.order_by("key"))
    model = LLMModel.objects.create(name="kept", litellm_model="openai/kept")
    run = Run.objects.create(benchmark=benchmark, status="done")
    first = Response.objects.create(run=run, question=questions[0], model=model, status="done", code="A")
    pairs = grid_rows.pairs([run.pk])

    def kept(**codes):
        return grid_rows.kept_rows(benchmark.pk, [run.pk], pairs, False, **codes)

    assert kept() == [(questions[0].pk,)]
    added = Response.objects.create(run=run, question=questions[1], model=model, status="done", code="B")
    assert kept() == [(questions[0].pk,), (questions[1].pk,)]
    assert kept(codes=("B",)) == [(questions[1].pk,)]
    Response.objects.filter(pk=first.pk).update(code="B")  # a code changes: the stamp does not
    assert kept(codes=("B",)) == [(questions[0].pk,), (questions[1].pk,)]
    added.delete()
    assert kept() == [(questions[0].pk,)]
