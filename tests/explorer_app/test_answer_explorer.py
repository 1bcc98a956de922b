"""One answer's page and the answers list, on the database (SQLite and PostgreSQL): what the
page shows, escaping, search (full-text on PostgreSQL), filters, keyset pages, CSV, the API,
their 400s, and who may read them (analysts and operators every benchmark, reviewers the
benchmarks they code, outsiders nothing)."""

import csv
import io

import pytest
from django.db import connection, transaction

from accounts.services import create_user_with_role
from benchmarks_app.models import Benchmark, Condition, Question
from encoding_app.models import Code, ReviewTask
from explorer_app import answer_list
from runs_app.models import LLMModel, Response, Run
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def answers(db):
    """Two benchmarks. "hand": run 1, question q0 (options yes/no, shown reversed: the model
    saw "no" as A), m1 answers with a script tag and log-probabilities, coded B by a rule
    then A by a reviewer; m2 refuses; a failed answer; a two-move conversation (q1 follows
    q0's answer). "other": run 2, one answer."""
    hand = Benchmark.objects.create(name="hand", family="cfpd")
    other = Benchmark.objects.create(name="other", family="cfpd")
    q0 = Question.objects.create(benchmark=hand, key="hand-q0", text="Which course, yes or no?",
                                 options=[{"text": "yes we should escalate now"}, {"text": "no we should wait"}],
                                 option_order=[0, 1], choice_count=2)
    q1 = Question.objects.create(benchmark=hand, key="hand-q1", text="Why?", kind="open")
    q9 = Question.objects.create(benchmark=other, key="other-q0", text="Other?",
                                 options=[{"text": "a"}, {"text": "b"}], option_order=[0, 1], choice_count=2)
    m1 = LLMModel.objects.create(name="m1", litellm_model="openai/m1")
    m2 = LLMModel.objects.create(name="m2", litellm_model="openai/m2")
    run1 = Run.objects.create(benchmark=hand, status="done", note="first")
    run2 = Run.objects.create(benchmark=other, status="done")
    sent = [{"role": "system", "content": "You advise a <b>government</b>."},
            {"role": "user", "content": "Which course?\nA) no we should wait\nB) yes we should escalate now"}]
    scripted = Response.objects.create(
        run=run1, question=q0, model=m1, status="done", option_order=[1, 0], messages=sent,
        raw_output="<script>alert('x')</script> I pick A: no we should wait, because escalation harms",
        option_logprobs={"A": -0.105, "B": -2.303}, chosen_letter="A", params={"temperature": 0.7},
        prompt_tokens=41, completion_tokens=12, cost="0.00012000", latency_ms=850, attempts=2,
        error_kind="", code="A", code_source="reviewer", resolved_model="openai/m1-2026")
    rule = Code.objects.create(response=scripted, code="B", source="auto", rule="letter-first", is_current=False)
    reviewer_user = create_user_with_role("rosa", PASSWORD, role="reviewers")[0]
    task = ReviewTask.objects.create(response=scripted, purpose="audit", status="done", done_by=reviewer_user,
                                     explanation="Audit: a blind second look at the rule's code.")
    Code.objects.create(response=scripted, code="A", source="reviewer", coder=reviewer_user, task=task,
                        note="It names <i>wait</i>.", is_current=True, supersedes=rule)
    refusal = Response.objects.create(run=run1, question=q0, model=m2, status="done", option_order=[0, 1],
                                      raw_output="I can't recommend escalation here.", code="R", code_source="auto",
                                      latency_ms=300, messages=sent)
    failed = Response.objects.create(run=run1, question=q0, model=m1, repeat=1, status="failed", attempts=3,
                                     error_kind="timeout", error_message="Timed out after 120 s")
    follow = Response.objects.create(
        run=run1, question=q1, model=m1, status="done", previous=scripted,
        messages=sent + [{"role": "assistant", "content": scripted.raw_output},
                         {"role": "user", "content": "Explain your choice."}],
        raw_output="Waiting keeps options open.", latency_ms=500)
    elsewhere = Response.objects.create(run=run2, question=q9, model=m2, status="done", raw_output="b escalate",
                                        code="B", code_source="choice", option_order=[0, 1])
    return {"run1": run1, "run2": run2, "scripted": scripted, "refusal": refusal, "failed": failed,
            "follow": follow, "elsewhere": elsewhere, "reviewer": reviewer_user, "hand": hand}


def _login(client, username, role=None):
    user = create_user_with_role(username, PASSWORD, role=role)[0]
    client.force_login(user)
    return user


def _ids(response):
    return [row["id"] for row in response.json()["results"]]


# --- one answer's page ---------------------------------------------------------------------

def test_the_answer_page_shows_what_was_sent_said_and_coded(client, answers):
    _login(client, "ana", "analysts")
    a = answers["scripted"]
    response = client.get(f"/answers/{a.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    # escaped, never executed: the output's script tag and the message's markup are text
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "&lt;b&gt;government&lt;/b&gt;" in html and "It names &lt;i&gt;wait&lt;/i&gt;." in html
    # the options in the order the model saw them: "no" lettered A (the question's B)
    assert "<strong>A</strong> no we should wait <span class=\"muted small\">(the question's B)</span>" in html
    # the letter and the quoted wording highlighted as the coding page does
    assert '<mark class="hl-letter" title="option A">A</mark>' in html
    assert '<mark class="hl-option" title="option A">no we should wait</mark>' in html
    # the code: canonical A, which the model saw as B
    assert 'id="answer-code">A (shown as B)' in html
    described = response.context["a"]
    assert [c["source"] for c in described["codes"]] == ["auto", "reviewer"]
    assert described["codes"][1]["reason"] == "Audit: a blind second look at the rule's code."
    assert described["codes"][1]["coder"] == "rosa" and described["codes"][1]["is_current"]
    assert described["temperature"] == 0.7 and described["attempts"] == 2 and described["cost"] == 0.00012
    # the chart: one bar per option, in the order seen, with the stored log-probabilities
    trace = described["chart"]["data"][0]
    assert trace["x"] == ["A", "B"] and trace["y"] == [-0.105, -2.303]
    assert 'data-figure="answer-chart-data"' in html and 'id="answer-chart-data"' in html
    assert f'href="/runs/{answers["run1"].pk}/"' in html and 'href="/models/m1/"' in html
    assert described["follow_ups"] == [answers["follow"].pk]


def test_a_follow_up_marks_the_earlier_turns_and_links_back(client, answers):
    _login(client, "ana", "analysts")
    follow = answers["follow"]
    response = client.get(f"/answers/{follow.pk}/")
    messages = response.context["a"]["messages"]
    # the earlier unit sent 2 messages and answered once: 3 earlier turns, then the new one
    assert [m["earlier"] for m in messages] == [True, True, True, False]
    assert messages[3]["content"] == "Explain your choice."
    assert f'href="/answers/{answers["scripted"].pk}/"' in response.content.decode()
    assert response.context["a"]["no_chart"].startswith("No log-probabilities: the question has no options")


def test_a_failed_answer_shows_its_error_and_why_there_is_no_chart(client, answers):
    _login(client, "olga", "operators")
    html = client.get(f"/answers/{answers['failed'].pk}/").content.decode()
    assert "Timed out</strong> after 3 attempts" in html and "Timed out after 120 s" in html
    assert "No log-probabilities: the model has not answered (the answer is failed)." in html


def test_no_such_answer_is_a_404_and_a_judge_unit_is_no_answer(client, answers):
    _login(client, "ana", "analysts")
    assert client.get("/answers/999999/").status_code == 404
    Run.objects.filter(pk=answers["run2"].pk).update(kind=Run.Kind.JUDGE)
    assert client.get(f"/answers/{answers['elsewhere'].pk}/").status_code == 404
    assert client.get(f"/api/answers/{answers['elsewhere'].pk}/").status_code == 404


# --- the list ------------------------------------------------------------------------------

def test_the_list_shows_the_newest_first_with_links(client, answers):
    _login(client, "ana", "analysts")
    response = client.get("/answers/")
    assert response.status_code == 200
    ids = [row["id"] for row in response.context["rows"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 5
    html = response.content.decode()
    assert f'href="/answers/{answers["scripted"].pk}/"' in html
    assert "&lt;script&gt;" in html and "<script>alert" not in html


@pytest.mark.parametrize("query, expected", [
    ({"model": "m2"}, ["elsewhere", "refusal"]),
    ({"status": "failed"}, ["failed"]),
    ({"code": "R"}, ["refusal"]),
    ({"code": "none"}, ["follow", "failed"]),
    ({"code": ["a", "B"]}, ["elsewhere", "scripted"]),
    ({"source": "reviewer"}, ["scripted"]),
    ({"source": ["none", "choice"]}, ["elsewhere", "follow", "failed"]),
    ({"condition": "default"}, ["elsewhere", "follow", "failed", "refusal", "scripted"]),
])
def test_the_filters_narrow_the_list(client, answers, query, expected):
    _login(client, "ana", "analysts")
    wanted = [answers[name].pk for name in expected]
    assert _ids(client.get("/api/answers/", query)) == sorted(wanted, reverse=True)


def test_the_run_filter_and_question_filter(client, answers):
    _login(client, "ana", "analysts")
    assert _ids(client.get("/api/answers/", {"run": answers["run2"].pk})) == [answers["elsewhere"].pk]
    q1 = answers["follow"].question_id
    assert _ids(client.get("/api/answers/", {"question": q1})) == [answers["follow"].pk]


def test_a_run_filter_lists_the_runs_answers_and_a_judge_runs_units_never(client, answers):
    """Naming runs that are no judge runs, the list reads their units without the judge
    runs' NOT EXISTS (issue 42); naming a judge run, its units stay out, with or without
    another run beside it."""
    _login(client, "ana", "analysts")
    run1, run2 = answers["run1"], answers["run2"]
    first = [answers[name].pk for name in ("follow", "failed", "refusal", "scripted")]
    assert _ids(client.get("/api/answers/", {"run": run1.pk})) == sorted(first, reverse=True)
    assert _ids(client.get("/api/answers/", {"run": [run1.pk, run2.pk]})) == sorted(
        first + [answers["elsewhere"].pk], reverse=True)
    Run.objects.filter(pk=run2.pk).update(kind=Run.Kind.JUDGE)
    assert _ids(client.get("/api/answers/", {"run": run2.pk})) == []
    assert _ids(client.get("/api/answers/", {"run": [run1.pk, run2.pk]})) == sorted(first, reverse=True)


def test_search_finds_a_word_of_an_output(client, answers):
    _login(client, "ana", "analysts")
    # "escalation" is in the scripted answer and the refusal; on PostgreSQL the English stem
    # "escal" also matches "escalate" in the other benchmark's answer.
    found = set(_ids(client.get("/api/answers/", {"q": "escalation"})))
    assert {answers["scripted"].pk, answers["refusal"].pk} <= found
    if connection.vendor == "postgresql":
        assert found == {answers["scripted"].pk, answers["refusal"].pk, answers["elsewhere"].pk}
    else:
        assert found == {answers["scripted"].pk, answers["refusal"].pk}
    waiting = _ids(client.get("/api/answers/", {"q": "waiting"}))
    if connection.vendor == "postgresql":  # stemmed: "waiting" finds "wait" too
        assert waiting == [answers["follow"].pk, answers["scripted"].pk]
    else:
        assert waiting == [answers["follow"].pk]
    assert _ids(client.get("/api/answers/", {"q": "zebra"})) == []
    page = client.get("/answers/", {"q": "zebra"})
    assert page.status_code == 200 and "No answers match “zebra”" in page.content.decode()


def test_a_word_of_a_question_is_found_among_the_questions_and_the_page_says_where_it_looked(client, answers):
    # Issue 38: "blockade" is a word of a question, not of any output. The page says what it
    # searched and offers the questions; searching there finds the answers to that question.
    Question.objects.filter(key="hand-q0").update(text="Their navy keeps a blockade of the strait. Which course?")
    _login(client, "ana", "analysts")
    assert _ids(client.get("/api/answers/", {"q": "blockade"})) == []
    page = client.get("/answers/", {"q": "blockade"}).content.decode()
    assert "No answers match “blockade” in the answers' outputs" in page
    assert 'href="?q=blockade&amp;search_in=questions" id="search-elsewhere"' in page
    assert 'name="search_in" value="questions"' in page and 'name="search_in" value="answers" checked' in page
    q0 = {answers["scripted"].pk, answers["refusal"].pk, answers["failed"].pk}
    assert set(_ids(client.get("/api/answers/", {"q": "BLOCKADE", "search_in": "questions"}))) == q0
    found = client.get("/answers/", {"q": "blockade", "search_in": "questions"}).content.decode()
    assert "“blockade” searched in the questions" in found
    assert 'name="search_in" value="questions" checked' in found
    for pk in q0:
        assert f'data-answer="{pk}"' in found


def test_a_question_search_reads_options_and_keys_and_leaves_out_minus_words(client, answers):
    _login(client, "ana", "analysts")
    q0 = {answers["scripted"].pk, answers["refusal"].pk, answers["failed"].pk}
    # an option's wording ("escalate now"), every word required, a key, and a word left out
    assert set(_ids(client.get("/api/answers/", {"q": "escalate", "search_in": "questions"}))) == q0
    assert _ids(client.get("/api/answers/", {"q": "escalate zebra", "search_in": "questions"})) == []
    assert _ids(client.get("/api/answers/", {"q": "other-q0", "search_in": "questions"})) == [
        answers["elsewhere"].pk]
    assert set(_ids(client.get("/api/answers/", {"q": "course -yes", "search_in": "questions"}))) == set()
    assert set(_ids(client.get("/api/answers/", {"q": "? -escalate", "search_in": "questions"}))) == {
        answers["follow"].pk, answers["elsewhere"].pk}
    # Words of the options' JSON that are no option's wording ("category", "text") match nothing.
    assert _ids(client.get("/api/answers/", {"q": "text", "search_in": "questions"})) == []
    # The choice travels with the pages' links and the CSV.
    page = client.get("/answers/", {"q": "escalate", "search_in": "questions"}).content.decode()
    assert "search_in=questions" in page.split('id="answer-csv"')[0].rsplit("href=", 1)[1]


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_full_text_search_takes_phrases_and_exclusions_on_postgresql(client, answers):
    _login(client, "ana", "analysts")
    assert _ids(client.get("/api/answers/", {"q": '"escalation harms"'})) == [answers["scripted"].pk]
    assert _ids(client.get("/api/answers/", {"q": "escalation -recommend"})) == sorted(
        [answers["scripted"].pk, answers["elsewhere"].pk], reverse=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'response_output_search'")
        # Only the answers that have an output (a launch's pending units add nothing to it).
        assert "gin" in (definition := cursor.fetchone()[0]) and "WHERE (raw_output <> ''::text)" in definition
    # An exclusion alone matches answers with an output, not the failed one without.
    assert answers["failed"].raw_output == "" and answers["failed"].pk in _ids(client.get("/api/answers/"))
    assert answers["failed"].pk not in _ids(client.get("/api/answers/", {"q": "-zebra"}))
    assert answers["scripted"].pk in _ids(client.get("/api/answers/", {"q": "-zebra"}))
    # The search's condition is the index's: the planner can take it.
    searched = answer_list.searched(Response.objects.all(), "escalation")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        sql, params = searched.values("id").query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = " ".join(row[0] for row in cursor.fetchall())
        # Where the answers are partitioned by run (`partition_answers`) each partition has its own
        # index, attached to (made from) the parent's.
        cursor.execute("SELECT i.inhrelid::regclass::text FROM pg_inherits i "
                       "WHERE i.inhparent = 'response_output_search'::regclass")
        names = ["response_output_search", *(row[0] for row in cursor.fetchall())]
        assert any(f"Index Scan on {name} " in plan for name in names), plan


def test_a_search_on_one_model_finds_that_models_answers_and_leaves_its_index_aside_on_postgresql(
        client, answers, monkeypatch):
    _login(client, "ana", "analysts")
    assert _ids(client.get("/api/answers/", {"q": "escalation", "model": "m1"})) == [answers["scripted"].pk]
    on_m2 = set(_ids(client.get("/api/answers/", {"q": "escalation", "model": "m2"})))
    assert on_m2 == ({answers["refusal"].pk, answers["elsewhere"].pk} if connection.vendor == "postgresql"
                     else {answers["refusal"].pk})
    assert set(_ids(client.get("/api/answers/", {"q": "escalation", "model": ["m1", "m2"]}))) == (
        on_m2 | {answers["scripted"].pk})
    # Issue 42 (h54): with a search on PostgreSQL the model is a test of each row the search's
    # GIN index finds (model_id + 0), not a bitmap of the model's index ANDed with it.
    f = answer_list.AnswerFilter(models=("m1",), search="escalation")
    sql = str(answer_list.narrowed(Response.objects.all(), f).values("id").query)
    fenced = '("runs_app_response"."model_id" + 0) IN' in sql
    assert fenced == (connection.vendor == "postgresql")
    # Dense (SPARSE matches or more, `page`): the model's index in id order, the text a test.
    dense = str(answer_list.narrowed(Response.objects.all(), f, dense=True).values("id").query)
    assert '"model_id" + 0' not in dense and (("|| COALESCE(" in dense) == (connection.vendor == "postgresql"))
    monkeypatch.setattr(answer_list, "SPARSE", 1)  # every search dense: the same answers
    assert _ids(client.get("/api/answers/", {"q": "escalation", "model": "m1"})) == [answers["scripted"].pk]
    assert set(_ids(client.get("/api/answers/", {"q": "escalation", "model": "m2"}))) == on_m2
    # Without a search, or searching the questions, the model's index serves as before.
    for other in (answer_list.AnswerFilter(models=("m1",)),
                  answer_list.AnswerFilter(models=("m1",), search="escalate", search_in="questions")):
        assert '"model_id" + 0' not in str(answer_list.narrowed(Response.objects.all(), other).values("id").query)


def test_keyset_pages_walk_forward_and_back_without_repeats(client, answers, monkeypatch):
    monkeypatch.setattr("explorer_app.answer_query.PAGE_SIZE", 2)
    monkeypatch.setattr(answer_list.answer_query, "PAGE_SIZE", 2)
    _login(client, "ana", "analysts")
    all_ids = sorted([a.pk for k, a in answers.items() if k in ("scripted", "refusal", "failed", "follow",
                                                                "elsewhere")], reverse=True)

    def walk(sort):
        seen, pages, url, query = [], [], "/api/answers/", {"sort": sort}
        while True:
            body = client.get(url, query).json()
            pages.append(body)
            seen += [r["id"] for r in body["results"]]
            if not body["next"]:
                return seen, pages
            url, query = body["next"], None

    seen, pages = walk("newest")
    assert seen == all_ids and [len(p["results"]) for p in pages] == [2, 2, 1]
    assert pages[0]["previous"] == "" and pages[1]["previous"]
    back = client.get(pages[2]["previous"]).json()  # the page before the last is the middle one
    assert [r["id"] for r in back["results"]] == all_ids[2:4]
    assert [r["id"] for r in client.get(back["previous"]).json()["results"]] == all_ids[:2]
    # by question (ids in creation order: hand-q0, hand-q1, other-q0), then answer id
    seen, _ = walk("question")
    keys = [Response.objects.get(pk=i).question.key for i in seen]
    assert keys == ["hand-q0", "hand-q0", "hand-q0", "hand-q1", "other-q0"] and len(set(seen)) == 5
    seen, _ = walk("slowest")
    latencies = [Response.objects.get(pk=i).latency_ms or 0 for i in seen]
    assert latencies == sorted(latencies, reverse=True) and len(set(seen)) == 5


def test_the_page_links_its_next_page(client, answers, monkeypatch):
    monkeypatch.setattr(answer_list.answer_query, "PAGE_SIZE", 2)
    _login(client, "ana", "analysts")
    response = client.get("/answers/", {"model": "m1"})
    html = response.content.decode()
    assert 'id="answer-next"' in html and "model=m1" in response.context["next_page"]
    follow = client.get("/answers/?" + response.context["next_page"])
    assert [r["id"] for r in follow.context["rows"]] == [answers["scripted"].pk]


def test_the_csv_holds_the_list_escaped_for_spreadsheets(client, answers):
    _login(client, "ana", "analysts")
    Response.objects.filter(pk=answers["refusal"].pk).update(raw_output="=HYPERLINK(\"x\")")
    response = client.get("/answers/", {"run": answers["run1"].pk, "format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:3] == ["id", "run", "benchmark"] and len(rows) == 1 + 4
    by_id = {int(r[0]): r for r in rows[1:]}
    assert by_id[answers["refusal"].pk][-1] == "'=HYPERLINK(\"x\")"


@pytest.mark.parametrize("query, field", [
    ({"run": "abc"}, "run"), ({"run": "99999"}, "run"), ({"model": "nobody"}, "model"),
    ({"status": "asleep"}, "status"), ({"code": "Q"}, "code"), ({"source": "magic"}, "source"),
    ({"sort": "random"}, "sort"), ({"cursor": "not-a-cursor"}, "cursor"), ({"condition": "nope"}, "condition"),
    ({"q": "x" * 201}, "q"), ({"q": "a\x00b"}, "q"), ({"domain": "Nowhere"}, "domain"),
    ({"search_in": "everywhere"}, "search_in"),
])
def test_a_bad_filter_is_a_clear_400(client, answers, query, field):
    _login(client, "ana", "analysts")
    api = client.get("/api/answers/", query)
    assert api.status_code == 400 and field in api.json()
    page = client.get("/answers/", query)
    assert page.status_code == 400 and 'id="answer-list-error"' in page.content.decode()


def test_a_cursor_of_another_order_is_a_400(client, answers):
    from explorer_app.answer_query import AFTER, encode_cursor

    _login(client, "ana", "analysts")
    response = client.get("/api/answers/", {"sort": "newest", "cursor": encode_cursor(AFTER, "hand-q0", 3)})
    assert response.status_code == 400 and "another order" in response.json()["cursor"][0]


# --- who may read --------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["analysts", "operators"])
def test_analysts_and_operators_read_every_answer(client, answers, role):
    _login(client, "reader", role)
    assert len(_ids(client.get("/api/answers/"))) == 5
    assert client.get(f"/answers/{answers['elsewhere'].pk}/").status_code == 200
    assert client.get(f"/api/answers/{answers['scripted'].pk}/").json()["model"] == "m1"


def test_a_reviewer_reads_only_the_benchmarks_they_code(client, answers):
    client.force_login(answers["reviewer"])  # coded an answer of "hand"
    ids = _ids(client.get("/api/answers/"))
    assert answers["elsewhere"].pk not in ids and len(ids) == 4
    assert client.get(f"/answers/{answers['scripted'].pk}/").status_code == 200
    assert client.get(f"/answers/{answers['elsewhere'].pk}/").status_code == 403
    assert client.get(f"/api/answers/{answers['elsewhere'].pk}/").status_code == 403


def test_a_reviewer_who_codes_nothing_sees_an_empty_list(client, answers):
    _login(client, "newbie", "reviewers")
    assert client.get("/answers/").status_code == 200
    assert _ids(client.get("/api/answers/")) == []
    assert client.get(f"/answers/{answers['scripted'].pk}/").status_code == 403


@pytest.mark.parametrize("role", [None, "authors"])
def test_outsiders_read_nothing(client, answers, role):
    _login(client, "oscar", role)
    assert client.get("/answers/").status_code == 403
    assert client.get(f"/answers/{answers['scripted'].pk}/").status_code == 403
    assert client.get("/api/answers/").status_code == 403
    assert client.get(f"/api/answers/{answers['scripted'].pk}/").status_code == 403


def test_signed_out_the_pages_ask_for_a_sign_in_and_the_api_says_401(client, answers):
    assert client.get("/answers/").status_code == 302
    assert client.get(f"/answers/{answers['scripted'].pk}/").status_code == 302
    assert client.get("/api/answers/").status_code == 401


def test_the_api_detail_has_the_page_values(client, answers):
    _login(client, "ana", "analysts")
    body = client.get(f"/api/answers/{answers['scripted'].pk}/").json()
    assert body["messages"][0] == {"role": "system", "content": "You advise a <b>government</b>.", "earlier": False}
    assert [o["letter"] + o["canonical"] for o in body["options"]] == ["AB", "BA"]
    assert body["options"][0]["logprob"] == -0.105 and body["chart"]["data"][0]["x"] == ["A", "B"]
    assert body["codes"][1]["note"] == "It names <i>wait</i>." and body["output"].startswith("<script>")
    assert any(s["mark"] == "letter" for s in body["segments"])


def test_the_schema_documents_both_operations(client, answers):
    _login(client, "olga", "operators")
    schema = client.get("/api/schema/", {"format": "json"}).json()
    list_op = schema["paths"]["/api/answers/"]["get"]
    assert {p["name"] for p in list_op["parameters"]} >= {"q", "run", "model", "condition", "status", "code",
                                                          "source", "sort", "cursor"}
    assert "400" in list_op["responses"] and "404" in schema["paths"]["/api/answers/{id}/"]["get"]["responses"]


def test_a_family_filter_narrows_by_its_questions(client, answers):
    from benchmarks_app import families

    offered = {f.name for f in families.coding_filters()}
    assert "domain" in offered  # CFPD's
    _login(client, "ana", "analysts")
    # the hand questions are no CFPD scenario questions: a domain holds none of them
    choices = [v for v, _ in next(f for f in families.coding_filters() if f.name == "domain").choices()]
    if choices:
        assert _ids(client.get("/api/answers/", {"domain": choices[0]})) == []


def test_the_condition_filter_uses_names(client, answers):
    _login(client, "ana", "analysts")
    other = Condition.objects.create(name="persona-x", label="Persona X")
    Response.objects.filter(pk=answers["refusal"].pk).update(condition=other)
    assert _ids(client.get("/api/answers/", {"condition": "persona-x"})) == [answers["refusal"].pk]


def test_a_reviewer_coding_an_answer_blind_sees_no_code_on_it(client, answers):
    from django.utils import timezone

    blind = create_user_with_role("bea", PASSWORD, role="reviewers")[0]
    a = answers["scripted"]
    ReviewTask.objects.create(response=a, purpose="second", status="open", leased_by=blind,
                              lease_expires_at=timezone.now())
    client.force_login(blind)
    page = client.get(f"/answers/{a.pk}/")
    assert page.status_code == 200 and page.context["a"]["codes"] == []
    assert 'id="answer-codes-hidden"' in page.content.decode() and 'id="answer-code">hidden' in page.content.decode()
    api = client.get(f"/api/answers/{a.pk}/").json()
    assert api["codes_hidden"] is True and api["code"] == "" and api["codes"] == []
    row = next(r for r in client.get("/api/answers/").json()["results"] if r["id"] == a.pk)
    assert row["code"] == "" and row["code_source"] == ""
    # an analyst sees it as ever
    _login(client, "ana", "analysts")
    assert client.get(f"/api/answers/{a.pk}/").json()["code"] == "A"


def test_the_run_page_and_the_coding_overview_link_their_answers(client, answers):
    _login(client, "olga", "operators")
    a = answers["scripted"]
    html = client.get(f"/runs/{answers['run1'].pk}/").content.decode()
    assert f'href="/answers/{a.pk}/"' in html and f'href="/answers/?run={answers["run1"].pk}"' in html
    assert 'data-answer-url="/answers/0/"' in html
    client.force_login(answers["reviewer"])
    overview = client.get("/encoding/").content.decode()
    assert f'href="/answers/{a.pk}/"' in overview  # its done audit


# --- the site's bar (issue 38: the explorer was reached only from links) --------------------

@pytest.mark.parametrize("role, listed", [("analysts", True), ("operators", True), ("reviewers", True),
                                          ("authors", False), (None, False)])
def test_the_bar_offers_the_answers_to_their_readers_only(client, role, listed):
    _login(client, "reader", role)
    bar = client.get("/benchmarks/").content.decode().split("<nav>")[1].split("</nav>")[0]
    assert ('href="/answers/">Answers</a>' in bar) is listed
    # The link leads somewhere the role may go.
    assert (client.get("/answers/").status_code == 200) is listed
