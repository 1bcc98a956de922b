"""Error pages: in the product's layout for 400, 403, 404 and 500, with DEBUG off and on
(the demo runs with DEBUG=1), saying what happened and where to go; JSON under /api/;
an expected 403 logged without a traceback; the favicon; a dashboard filter naming a
run or model that does not exist says so."""

import logging

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings
from django.urls import include, path

from cfpd_site import urls as site_urls
from runs_app.models import LLMModel, Run
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def boom(request):
    raise RuntimeError("a bug in a view")


def refuse(request):
    raise PermissionDenied("Only operators launch runs")


# This module is also the URLconf of the tests below: the site's URLs, plus a view that
# fails and one that refuses, on a page and under /api/.
urlpatterns = [path("boom/", boom), path("refuse/", refuse), path("api/boom/", boom),
               path("", include(site_urls.urlpatterns))]
handler400, handler403 = site_urls.handler400, site_urls.handler403
handler404, handler500 = site_urls.handler404, site_urls.handler500

TECHNICAL = ("Using the URLconf defined in", "Traceback", "Django tried these URL patterns", "You're seeing this error")


@pytest.fixture(params=[False, True], ids=["DEBUG=0", "DEBUG=1"])
def debug(request):
    with override_settings(DEBUG=request.param, ROOT_URLCONF=__name__):
        yield request.param


def signed_in(user):
    client = Client(raise_request_exception=False)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def page_of(response, status):
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    for marker in TECHNICAL:
        assert marker not in html, marker
    assert '<header class="topbar">' in html and "CFPD Workbench" in html  # the product's layout
    assert f"Error {status}" in html
    return html


def assert_nav(html):
    assert '<nav>' in html and 'href="/benchmarks/">Benchmarks</a>' in html


def test_a_wrong_url_is_the_products_404(debug, analyst):
    html = page_of(signed_in(analyst).get("/analysis/cfpd/no-such-page/"), 404)
    assert "Page not found" in html and "There is no page at /analysis/cfpd/no-such-page/" in html
    assert 'href="/analysis/cfpd/">Dashboard</a>' in html and 'href="/">Home</a>' in html  # where to go
    assert_nav(html)


def test_a_wrong_id_is_the_products_404_with_what_was_missing(debug, analyst):
    html = page_of(signed_in(analyst).get("/runs/987654/"), 404)
    # Issue 38: Django's own "No Run matches the given query." was shown; now in words.
    assert "No run 987654: it may have been deleted, or the address may be mistyped." in html
    assert "matches the given query" not in html and 'href="/runs/">Runs</a>' in html
    assert_nav(html)
    html = page_of(signed_in(analyst).get("/benchmarks/no-such-benchmark/"), 404)
    assert "No benchmark no-such-benchmark: it may have been deleted" in html
    assert "matches the given query" not in html


def test_a_wrong_url_missing_its_slash_is_still_redirected(debug, analyst):
    response = signed_in(analyst).get("/runs")
    assert response.status_code == 301 and response["Location"] == "/runs/"


def test_a_signed_out_visitor_gets_the_404_page_without_nav(debug, client):
    html = page_of(Client().get("/no/such/page/"), 404)
    assert "<nav>" not in html


def test_a_refusal_is_the_products_403_with_the_reason_and_the_roles(debug, reviewer, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        html = page_of(signed_in(reviewer).get("/runs/launch/"), 403)
    assert "Not allowed" in html and "Your account (reviewers) may not" in html
    assert "What each role gives" in html and "<dt>operators</dt>" in html
    assert_nav(html)
    records = [r for r in caplog.records if r.name == "django.request"]
    assert [r.getMessage() for r in records] == ["Forbidden (Permission denied): /runs/launch/"]
    assert all(r.exc_info is None and not r.exc_text for r in records)
    assert "Traceback" not in caplog.text


def test_a_refusal_with_a_message_shows_it(debug, reviewer, caplog):
    html = page_of(signed_in(reviewer).get("/refuse/"), 403)
    assert "Only operators launch runs" in html
    assert "Traceback" not in caplog.text


def test_a_bad_request_is_the_products_400(debug, analyst):
    client = signed_in(analyst)
    html = page_of(client.get("/", HTTP_HOST="not-served.example"), 400)
    assert "Bad request" in html


def test_an_uncaught_error_is_the_products_500_and_the_log_keeps_the_traceback(debug, analyst, caplog):
    with caplog.at_level(logging.ERROR, logger="django.request"):
        html = page_of(signed_in(analyst).get("/boom/"), 500)
    assert "Something went wrong" in html and "a bug in a view" not in html
    assert_nav(html)
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info and record.exc_info[0] is RuntimeError


def test_a_form_with_an_expired_token_says_to_reload(analyst):
    client = Client(enforce_csrf_checks=True)
    assert client.login(username=analyst.username, password=PASSWORD)
    html = page_of(client.post("/accounts/logout/"), 403)
    assert "expired or missing security token: reload the page" in html


@pytest.mark.parametrize("url, status", [("/api/nope/", 404), ("/api/boom/", 500), ("/api/runs/987654/", 404)])
def test_api_errors_stay_json(debug, analyst, url, status):
    response = signed_in(analyst).get(url, HTTP_ACCEPT="application/json")
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    assert set(response.json()) == {"detail"}


def test_api_refusal_stays_drfs(debug, reviewer):
    response = signed_in(reviewer).post("/api/runs/", {}, content_type="application/json")
    assert response.status_code == 403 and "detail" in response.json()


def test_the_favicon_is_served_to_everyone(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # the ICO header: reserved 0, type 1 (icon)


@pytest.mark.parametrize("page", ["/analysis/cfpd/", "/analysis/territories/"])
def test_a_dashboard_filter_naming_no_run_or_model_says_so(client, analyst, page):
    model = LLMModel.objects.create(name="known-model", litellm_model="openai/x")
    run = Run.objects.create(benchmark=_benchmark())
    signed_in_client = signed_in(analyst)
    html = signed_in_client.get(f"{page}?run=999999").content.decode()
    assert "run 999999 does not exist (the Runs box)" in html
    assert "No answers in this filter yet" not in html
    response = signed_in_client.get(f"{page}?model=gpt-nowhere")
    assert response.status_code == 400
    assert "model &#x27;gpt-nowhere&#x27; is not registered (the Models box)" in response.content.decode()
    # What exists is no error, answered or not.
    assert signed_in_client.get(f"{page}?run={run.pk}&model={model.name}").status_code == 200


def _benchmark():
    from benchmarks_app.models import Benchmark

    return Benchmark.objects.create(name="b1")
