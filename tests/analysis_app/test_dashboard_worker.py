"""The CFPD dashboard's board is built by the worker (scenarios_app.analysis.board_figure): a
page whose build is not done answers at once, with the newest build of its filter
labelled with its time, or a placeholder that fills in; it never builds in the request."""

import re

import pytest
from django.urls import reverse
from django.utils.timezone import localtime

from scenarios_app.analysis import dashboard
from analysis_app.models import ComputedFigure
from runs_app.models import LLMModel, Response
from runs_app.signals import responses_answered
from tests.scenarios_app.test_analysis import answered, login  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_build_in_the_request(monkeypatch):
    """`dashboard.build` raises unless the worker (`allowed`) runs it."""
    real = dashboard.build
    state = {"allowed": False}

    def guarded(*args, **kwargs):
        if not state["allowed"]:
            raise AssertionError("the dashboard was built inside the request")
        return real(*args, **kwargs)

    monkeypatch.setattr(dashboard, "build", guarded)
    return state


def get_page(client, capture, **query):
    with capture(execute=True):  # the page's enqueue runs at commit
        return client.get(reverse("analysis-dashboard"), query)


def run_worker(worker, guard):
    guard["allowed"] = True
    worker.run()
    guard["allowed"] = False


def add_answer(run, letter="A"):
    hawk = LLMModel.objects.get(name="hawk")
    response = Response.objects.create(run=run, question=run.responses.first().question, model=hawk,
                                       repeat=1, option_order=[0, 1], status="done", chosen_letter=letter)
    responses_answered.send(sender=Response, response_ids=[response.pk])


def panels(html):  # the page from the first panel on
    return html[html.index('<nav class="contents"'):]


def test_a_first_load_answers_a_placeholder_and_the_worker_fills_it_in(
        client, analyst, answered, worker, no_build_in_the_request, django_capture_on_commit_callbacks):
    login(client, analyst)
    query = {"run": answered.pk, "iterations": 200}
    page = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    assert "Computing…" in page and 'id="figures-waiting"' in page and 'data-then="notice"' not in page
    assert "figure-data-rates" not in page
    row = ComputedFigure.objects.get(kind="cfpd-dashboard")
    assert worker.queued == [row.pk] and row.status == "pending"
    assert row.params["filters"]["runs"] == [answered.pk] and row.params["options"]["iterations"] == 200
    # The placeholder polls status.json with the build's key: pending until the worker is done.
    status = client.get(reverse("analysis-figures-status"), {"key": row.key}).json()
    assert status == {"pending": 1}
    get_page(client, django_capture_on_commit_callbacks, **query)  # a second load queues nothing more
    assert worker.queued == [row.pk]

    run_worker(worker, no_build_in_the_request)
    assert client.get(reverse("analysis-figures-status"), {"key": row.key}).json() == {"pending": 0}
    page = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    assert "Computing…" not in page and 'id="figures-waiting"' not in page and "Figures from" not in page
    assert re.search(r"9 of 10 answers coded", page) and "Computed by the worker at" in page
    assert 'id="figure-data-rates"' in page and 'id="table-differences"' in page
    # The CSV links carry this page's own query, escaped.
    assert f'href="rates.csv?run={answered.pk}&amp;iterations=200"' in page
    assert worker.queued == []


def test_after_a_new_answer_the_previous_figures_show_labelled_stale_while_the_worker_counts(
        client, analyst, answered, worker, no_build_in_the_request, django_capture_on_commit_callbacks):
    login(client, analyst)
    query = {"run": answered.pk, "iterations": 200}
    get_page(client, django_capture_on_commit_callbacks, **query)
    run_worker(worker, no_build_in_the_request)
    first = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    built = ComputedFigure.objects.get(kind="cfpd-dashboard")

    add_answer(answered)
    stale = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    newer = ComputedFigure.objects.exclude(pk=built.pk).get(kind="cfpd-dashboard")
    assert worker.queued == [newer.pk] and newer.status == "pending"
    label = f"Figures from {localtime(built.computed_at):%H:%M}</strong>; newer answers are being counted…"
    assert label in stale and 'data-then="notice"' in stale and newer.key in stale.replace("%3A", ":")
    assert panels(stale) == panels(first) and "9 of 10 answers coded" in stale  # the previous build, as it was

    run_worker(worker, no_build_in_the_request)
    after = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    assert "Figures from" not in after and "10 of 11 answers coded" in after
    assert panels(after) != panels(first)  # hawk's rates moved: 10 answers, then 11
    # The older build is gone once the newer one is shown.
    assert list(ComputedFigure.objects.values_list("pk", flat=True)) == [newer.pk]


def test_recompute_asks_the_worker_again_and_shows_the_build_meanwhile(
        client, analyst, answered, worker, no_build_in_the_request, django_capture_on_commit_callbacks):
    login(client, analyst)
    query = {"run": answered.pk, "iterations": 200}
    get_page(client, django_capture_on_commit_callbacks, **query)
    run_worker(worker, no_build_in_the_request)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.get(reverse("analysis-dashboard"), {**query, "fresh": 1})
    assert response.status_code == 302 and "fresh" not in response["Location"]
    row = ComputedFigure.objects.get(kind="cfpd-dashboard")
    assert row.status == "pending" and worker.queued == [row.pk]
    page = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    assert "newer answers are being counted…" in page and 'id="figure-data-rates"' in page
    run_worker(worker, no_build_in_the_request)
    page = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    assert "Figures from" not in page and "(<a href=" in page and "recompute</a>" in page


def test_a_failed_build_is_shown_and_asked_again_at_the_next_load(
        client, analyst, answered, worker, no_build_in_the_request, django_capture_on_commit_callbacks):
    login(client, analyst)
    query = {"run": answered.pk, "iterations": 200}
    get_page(client, django_capture_on_commit_callbacks, **query)
    worker.run()  # the guard raises: the build fails
    row = ComputedFigure.objects.get(kind="cfpd-dashboard")
    assert row.status == "failed"
    page = get_page(client, django_capture_on_commit_callbacks, **query).content.decode()
    # asked again at this load: the placeholder, and the worker has it
    assert "Computing…" in page and worker.queued == [row.pk]


def test_the_page_shows_another_filter_s_builds_never(
        client, analyst, answered, worker, no_build_in_the_request, django_capture_on_commit_callbacks):
    login(client, analyst)
    get_page(client, django_capture_on_commit_callbacks, run=answered.pk, iterations=200)
    run_worker(worker, no_build_in_the_request)
    page = get_page(client, django_capture_on_commit_callbacks, run=answered.pk, iterations=300).content.decode()
    assert "Computing…" in page and "figure-data-rates" not in page


def test_the_api_and_the_csv_still_answer_in_the_request(client, analyst, answered, worker):
    login(client, analyst)
    assert client.get(reverse("analysis-panel-csv", args=["rates"]), {"run": answered.pk}).status_code == 200
    assert client.get("/api/analysis/cfpd/", {"run": answered.pk, "iterations": 200}).json()["coverage"]["total"] == 10
    assert worker.queued == [] and not ComputedFigure.objects.exists()
