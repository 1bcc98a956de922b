"""The models × questions grid and two runs compared, on the database: the pages, the API,
their 400s and who may read them (analysts and operators every benchmark, reviewers the
benchmarks they code, others nothing)."""

import pytest

from accounts.services import create_user_with_role
from benchmarks_app.models import Benchmark, Condition
from encoding_app.models import Code
from explorer_app import grid_query
from runs_app.models import LLMModel, Response, Run
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401  (fixture)
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs(db):
    """Run 1 and run 2 of one benchmark, three questions, two models (m1, m2), by hand:

    question  model  run 1        run 2
    q0        m1     A            A
    q0        m2     A            B       (A→B)
    q1        m1     B            R       (B→R)
    q1        m2     B, B (2 rep) B, A    (repeat 1: B→A)
    q2        m1     —(failed)    A       (—→A)
    q2        m2     A            (none)  (only in A)
    """
    from benchmarks_app.models import Question

    benchmark = Benchmark.objects.create(name="hand", family="cfpd")
    questions = [Question.objects.create(benchmark=benchmark, key=f"hand-q{i}", text=f"Question {i}?",
                                         options=[{"text": "yes"}, {"text": "no"}], option_order=[0, 1],
                                         choice_count=2) for i in range(3)]
    m1 = LLMModel.objects.create(name="m1", litellm_model="openai/m1")
    m2 = LLMModel.objects.create(name="m2", litellm_model="openai/m2")
    run1 = Run.objects.create(benchmark=benchmark, status="done", note="before")
    run2 = Run.objects.create(benchmark=benchmark, status="done", note="after")

    def answer(run, q, model, code, repeat=0, status="done"):
        return Response.objects.create(run=run, question=questions[q], model=model, repeat=repeat, status=status,
                                       code=code, raw_output=f"<b>{code or 'nothing'}</b>", option_order=[0, 1])

    answer(run1, 0, m1, "A"), answer(run2, 0, m1, "A")
    answer(run1, 0, m2, "A"), answer(run2, 0, m2, "B")
    answer(run1, 1, m1, "B"), answer(run2, 1, m1, "R")
    answer(run1, 1, m2, "B"), answer(run1, 1, m2, "B", repeat=1)
    answer(run2, 1, m2, "B"), answer(run2, 1, m2, "A", repeat=1)
    answer(run1, 2, m1, "", status="failed"), answer(run2, 2, m1, "A")
    answer(run1, 2, m2, "A")
    return run1, run2, questions


def _client(client, username, role):
    user = create_user_with_role(username, PASSWORD, role=role)[0]
    client.force_login(user)
    return user


def test_the_grid_lays_models_against_questions_with_shares(client, two_runs):
    run1, run2, questions = two_runs
    _client(client, "ana", "analysts")
    response = client.get("/answers/grid/", {"run": run1.pk})
    assert response.status_code == 200
    built = response.context["grid"]
    assert [m.name for m in built.models] == ["m1", "m2"]
    assert [row.key for row in built.rows] == ["hand-q0", "hand-q1", "hand-q2"]
    cells = {(row.key, model.name): cell for row in built.rows for model, cell, url in row.cells}
    assert cells[("hand-q1", "m2")].shown == "B 2/2"  # two repeats, both B
    assert cells[("hand-q2", "m1")].top == "failed"
    assert built.total_rows == 3 and built.pages == 1
    html = response.content.decode()
    assert 'data-code="B" data-n="2"' in html


def test_several_runs_of_one_benchmark_share_a_cell(client, two_runs):
    run1, run2, _ = two_runs
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", {"run": [run1.pk, run2.pk]}).json()
    cell = next(c for row in body["rows"] if row["question"] == "hand-q1" for c in row["cells"] if c["model"] == "m2")
    # q1 × m2: B, B in run 1 and B, A in run 2 → B 3 of 4, A 1
    assert cell["n"] == 4 and cell["top"] == "B" and cell["share"] == 0.75 and cell["counts"] == {"B": 3, "A": 1}
    assert cell["answer_id"] is None


def test_the_grid_filters_by_code_and_status(client, two_runs):
    run1, _, _ = two_runs
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", {"run": run1.pk, "code": "a"}).json()  # lower case read as A
    assert [row["question"] for row in body["rows"]] == ["hand-q0", "hand-q2"]
    body = client.get("/api/answers/grid/", {"run": run1.pk, "status": "failed"}).json()
    assert body["models"] == ["m1"] and body["rows"][0]["cells"][0]["top"] == "failed"


def test_rows_by_condition_when_asked(client, two_runs):
    run1, _, questions = two_runs
    other = Condition.objects.create(name="persona", label="Persona")
    Response.objects.create(run=run1, question=questions[0], model=LLMModel.objects.get(name="m1"),
                            condition=other, status="done", code="B")
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", {"run": run1.pk}).json()
    assert body["rows_by"] == "condition"  # automatic: two conditions
    assert [(r["question"], r["condition"]) for r in body["rows"]][:2] == [("hand-q0", "default"),
                                                                        ("hand-q0", "persona")]
    body = client.get("/api/answers/grid/", {"run": run1.pk, "rows": "question"}).json()
    assert body["rows_by"] == "question" and body["total_rows"] == 3


def test_the_grid_pages_rows_and_models(client, two_runs, monkeypatch):
    run1, _, _ = two_runs
    monkeypatch.setattr(grid_query, "ROWS_PER_PAGE", 2)
    monkeypatch.setattr(grid_query, "MODELS_PER_PAGE", 1)
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", {"run": run1.pk, "page": 2, "model_page": 2}).json()
    assert (body["pages"], body["page"], body["model_pages"], body["models"]) == (2, 2, 2, ["m2"])
    assert [r["question"] for r in body["rows"]] == ["hand-q2"]
    page = client.get("/answers/grid/", {"run": run1.pk}).content.decode()
    assert "next rows" in page and "page=2" in page


@pytest.mark.parametrize("query, field, words", [
    ({}, "run", "is needed"),
    ({"run": "x"}, "run", "whole number"),
    ({"run": "999999"}, "run", "999999 does not exist"),
    ({"run": "1", "status": "nope"}, "status", "must be one of"),
    ({"run": "1", "code": "Q"}, "code", "must be one of"),
    ({"run": "1", "rows": "diagonal"}, "rows", "must be one of"),
    ({"run": "1", "model": "ghost"}, "model", "not registered"),
    ({"run": "1", "condition": "ghost"}, "condition", "is not a condition"),
    ({"run": "1", "page": "0"}, "page", "between 1"),
])
def test_a_bad_grid_filter_is_a_400_naming_it(client, two_runs, query, field, words):
    run1, _, _ = two_runs
    query = {k: (str(run1.pk) if v == "1" and k == "run" else v) for k, v in query.items()}
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", query)
    assert body.status_code == 400 and words in body.json()[field][0]
    if query:
        page = client.get("/answers/grid/", query)
        assert page.status_code == 400 and words in page.context["error"]


def test_runs_of_two_benchmarks_are_refused_with_a_message(client, two_runs):
    run1, _, _ = two_runs
    other = Run.objects.create(benchmark=Benchmark.objects.create(name="other", family="cfpd"))
    _client(client, "ana", "analysts")
    page = client.get("/answers/grid/", {"run": [run1.pk, other.pk]})
    assert page.status_code == 400 and "different benchmarks" in page.context["error"]
    compared = client.get("/answers/compare/", {"a": run1.pk, "b": other.pk})
    assert compared.status_code == 400 and "one benchmark" in compared.context["error"]
    assert client.get("/api/answers/compare/", {"a": run1.pk, "b": other.pk}).status_code == 400


def test_two_runs_compared_count_each_change(client, two_runs):
    run1, run2, _ = two_runs
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/compare/", {"a": run1.pk, "b": run2.pk}).json()
    # matched: q0m1, q0m2, q1m1, q1m2r0, q1m2r1, q2m1 = 6; q2m2 only in A
    assert (body["matched"], body["changed"], body["only_a"], body["only_b"]) == (6, 4, 1, 0)
    assert {(c["before"], c["after"], c["n"]) for c in body["changes"]} == {
        ("A", "B", 1), ("B", "R", 1), ("B", "A", 1), ("", "A", 1)}
    by_model = {m["model"]: (m["matched"], m["changed"]) for m in body["by_model"]}
    assert by_model == {"m1": (3, 2), "m2": (3, 2)}
    rate_a = next(r for r in body["rates"] if r["code"] == "A")
    # A before: q0m1, q0m2 = 2/6; after: q0m1, q1m2r1, q2m1 = 3/6
    assert (rate_a["before"], rate_a["after"]) == (pytest.approx(2 / 6), pytest.approx(3 / 6))
    assert rate_a["ci_low"] < rate_a["difference"] < rate_a["ci_high"]
    assert len(body["changed_answers"]) == 4
    first = body["changed_answers"][0]
    assert first["a"]["output"].startswith("<b>")  # raw in the API; escaped on the page


def test_the_compare_page_escapes_outputs_and_lists_changes(client, two_runs):
    run1, run2, _ = two_runs
    _client(client, "ana", "analysts")
    page = client.get("/answers/compare/", {"a": run1.pk, "b": run2.pk})
    html = page.content.decode()
    assert page.status_code == 200
    assert "&lt;b&gt;A&lt;/b&gt;" in html and "<b>A</b>" not in html
    assert html.count('<tr data-question=') == 4
    assert "Newcomb" in html


def test_matching_ignoring_the_condition(client, two_runs):
    run1, run2, questions = two_runs
    strategy = Condition.objects.create(name="cot", label="Think first")
    Response.objects.filter(run=run2).update(condition=strategy)
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/compare/", {"a": run1.pk, "b": run2.pk}).json()
    assert body["matched"] == 0
    page = client.get("/answers/compare/", {"a": run1.pk, "b": run2.pk}).content.decode()
    assert "ignore_condition=1" in page
    body = client.get("/api/answers/compare/", {"a": run1.pk, "b": run2.pk, "ignore_condition": "1"}).json()
    assert body["matched"] == 6 and body["changed"] == 4 and body["ignore_condition"] is True
    page = client.get("/answers/compare/", {"a": run1.pk, "b": run2.pk, "ignore_condition": "1"}).content.decode()
    assert "the condition ignored" in page


@pytest.mark.parametrize("query, field", [({"a": "1"}, "b"), ({"a": "1", "b": "1"}, "b"),
                                          ({"a": "1", "b": "99999"}, "b"), ({"a": "z", "b": "2"}, "a")])
def test_a_bad_comparison_is_a_400(client, two_runs, query, field):
    run1, _, _ = two_runs
    query = {k: (str(run1.pk) if v == "1" else v) for k, v in query.items()}
    _client(client, "ana", "analysts")
    response = client.get("/api/answers/compare/", query)
    assert response.status_code == 400 and field in response.json()
    page = client.get("/answers/compare/", query)
    if list(query) == ["a"]:  # the run page's "Compare with…": run A picked, B to pick
        assert page.status_code == 200 and page.context["a"] == query["a"] and "error" not in page.context
    else:
        assert page.status_code == 400


# --- who may read -----------------------------------------------------------------------------

@pytest.mark.parametrize("role, status", [("analysts", 200), ("operators", 200), ("authors", 403), (None, 403)])
def test_analysts_and_operators_read_others_do_not(client, two_runs, role, status):
    run1, run2, _ = two_runs
    _client(client, "person", role)
    assert client.get("/answers/grid/", {"run": run1.pk}).status_code == status
    assert client.get("/answers/grid/").status_code == status
    assert client.get("/answers/compare/", {"a": run1.pk, "b": run2.pk}).status_code == status
    assert client.get("/api/answers/grid/", {"run": run1.pk}).status_code == status
    assert client.get("/api/answers/compare/", {"a": run1.pk, "b": run2.pk}).status_code == status


def test_reviewers_read_only_the_benchmarks_they_code(client, two_runs):
    run1, run2, _ = two_runs
    other_benchmark = Benchmark.objects.create(name="elsewhere", family="cfpd")
    elsewhere = Run.objects.create(benchmark=other_benchmark, status="done")
    reviewer = _client(client, "rev", "reviewers")
    assert client.get("/answers/grid/", {"run": run1.pk}).status_code == 403  # codes nothing yet
    Code.objects.create(response=Response.objects.filter(run=run1).first(), code="A", source="reviewer",
                        coder=reviewer, is_current=False)
    assert client.get("/answers/grid/", {"run": run1.pk}).status_code == 200
    assert client.get("/api/answers/compare/", {"a": run1.pk, "b": run2.pk}).status_code == 200
    assert client.get("/answers/grid/", {"run": elsewhere.pk}).status_code == 403
    assert client.get("/api/answers/grid/", {"run": elsewhere.pk}).status_code == 403
    picker = client.get("/answers/grid/").context["runs"]
    assert elsewhere not in picker and run1 in picker


def test_signed_out_visitors_are_sent_to_sign_in_and_the_api_answers_401(client, two_runs):
    run1, _, _ = two_runs
    assert client.get("/answers/grid/", {"run": run1.pk}).status_code == 302
    assert client.get("/api/answers/grid/", {"run": run1.pk}).status_code in (401, 403)


def test_the_demo_like_runs_compare(client, demo_like):  # noqa: F811
    earlier, run = demo_like
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/compare/", {"a": earlier.pk, "b": run.pk}).json()
    hawk_answers = Response.objects.filter(run=earlier).count()
    assert body["matched"] == hawk_answers  # hawk answered every question in both runs
    assert sum(c["n"] for c in body["changes"]) == body["changed"]
    grid = client.get("/api/answers/grid/", {"run": run.pk}).json()
    assert grid["models"] == ["dove", "hawk", "owl"]


def test_the_run_page_links_to_its_grid_and_to_a_comparison(client, two_runs):
    run1, run2, _ = two_runs
    Run.objects.create(benchmark=Benchmark.objects.create(name="unrelated", family="cfpd"))
    _client(client, "ana", "analysts")
    html = client.get(f"/runs/{run1.pk}/").content.decode()
    assert f'href="/answers/grid/?run={run1.pk}"' in html and f'href="/answers/compare/?a={run1.pk}"' in html
    picker = client.get("/answers/compare/", {"a": run1.pk})
    assert [r.pk for r in picker.context["runs_b"]] == [run2.pk]  # B among the runs of the same benchmark


def test_a_cell_opens_its_answer_or_the_list_of_its_answers(client, two_runs):
    run1, _, questions = two_runs
    _client(client, "ana", "analysts")
    body = client.get("/api/answers/grid/", {"run": run1.pk}).json()
    cells = {(row["question"], c["model"]): c for row in body["rows"] for c in row["cells"]}
    one = cells[("hand-q0", "m1")]
    assert one["url"] == f"/answers/{one['answer_id']}/"
    assert client.get(one["url"]).status_code == 200
    several = cells[("hand-q1", "m2")]  # two repeats
    assert several["url"].startswith("/answers/?") and f"question={questions[1].pk}" in several["url"]
    listed = client.get(several["url"])
    assert listed.status_code == 200
    ids = set(Response.objects.filter(run=run1, question=questions[1], model__name="m2").values_list("pk", flat=True))
    assert {row["id"] for row in listed.context["rows"]} == ids and len(ids) == 2


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("ignore_condition", [False, True])
def test_the_databases_matching_is_the_pure_rule(two_runs, seed, ignore_condition):
    """compare_query counts in SQL what comparison.match pairs in Python, on random answers
    (several conditions and repeats; some units asked in one run only)."""
    import random
    from collections import Counter

    from explorer_app import compare_query, comparison

    run1, run2, questions = two_runs
    Response.objects.filter(run__in=[run1, run2]).delete()
    strategy = Condition.objects.create(name=f"s{seed}", label="another")
    conditions = [Condition.objects.get(name="default"), strategy]
    models = list(LLMModel.objects.filter(name__in=["m1", "m2"]))
    rng = random.Random(seed)
    for run in (run1, run2):
        for q in questions:
            for model in models:
                for condition in conditions:
                    for repeat in range(2):
                        if rng.random() < 0.7:
                            Response.objects.create(run=run, question=q, model=model, condition=condition,
                                                    repeat=repeat, status="done", code=rng.choice("ABR" + " "
                                                                                                  ).strip())
    pure = comparison.match(*[[comparison.Answer._make(row) for row in Response.objects.filter(run=run).values_list(
        "id", "question_id", "model_id", "condition_id", "repeat", "code")] for run in (run1, run2)],
        ignore_condition=ignore_condition)
    counted = compare_query.count_pairs(run1.pk, run2.pk, (), ignore_condition)
    assert counted.transitions == comparison.transitions(pure.pairs)
    assert (counted.matched, counted.only_a, counted.only_b, counted.ambiguous) == (
        len(pure.pairs), pure.only_a, pure.only_b, pure.ambiguous)
    assert counted.by_question == {q: Counter((p.a.code, p.b.code) for p in pure.pairs if p.a.question == q)
                                   for q in {p.a.question for p in pure.pairs}}
    changed = [(p.a.id, p.b.id) for p in pure.changed]
    assert compare_query.changed_pairs(run1.pk, run2.pk, (), ignore_condition, limit=1000) == changed
    assert compare_query.changed_pairs(run1.pk, run2.pk, (), ignore_condition, offset=2, limit=3) == changed[2:5]
    only_m1 = compare_query.count_pairs(run1.pk, run2.pk, [models[0].pk], ignore_condition)
    assert only_m1.matched == sum(1 for p in pure.pairs if p.a.model == models[0].pk)
