"""One analysis address space per family (issue 39): CFPD's dashboard, its files and its API
moved from /analysis/ and /api/analysis/ to /analysis/cfpd/ and /api/analysis/cfpd/, beside
/analysis/territories/ and /analysis/crisis/. An old link answers 301 to its new address with
its query kept; the other families' pages and the shared ones are not caught by the old
addresses."""

import pytest
from django.urls import reverse

from benchmarks_app import families
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def signed_in(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize(("old", "new"), [
    ("/analysis/", "/analysis/cfpd/"),
    ("/analysis/?iterations=200&model=owl&model=dove", "/analysis/cfpd/?iterations=200&model=owl&model=dove"),
    ("/analysis/answers.csv?run=3", "/analysis/cfpd/answers.csv?run=3"),
    ("/analysis/answers.parquet", "/analysis/cfpd/answers.parquet"),
    ("/analysis/rates.csv?domain=escalation", "/analysis/cfpd/rates.csv?domain=escalation"),
    ("/api/analysis/?panel=rates", "/api/analysis/cfpd/?panel=rates"),
])
def test_an_old_cfpd_address_is_sent_on_to_its_new_one_with_its_query(client, analyst, old, new):
    response = signed_in(client, analyst).get(old)
    assert response.status_code == 301
    assert response["Location"] == new


def test_the_old_api_address_is_sent_on_without_a_sign_in_and_the_new_one_asks_for_it(client):
    response = client.get("/api/analysis/?panel=rates")
    assert (response.status_code, response["Location"]) == (301, "/api/analysis/cfpd/?panel=rates")
    assert client.get("/api/analysis/cfpd/?panel=rates").status_code == 401


def test_the_new_addresses_answer(client, analyst):
    client = signed_in(client, analyst)
    assert client.get("/analysis/cfpd/?iterations=200").status_code == 200
    assert client.get("/api/analysis/cfpd/", {"panel": "rates", "iterations": 200}).status_code == 200


@pytest.mark.parametrize("path", ["/analysis/territories/", "/analysis/figures/status.json?key=x",
                                  "/analysis/crisis/nope.csv", "/analysis/cfpd/nope/"])
def test_the_old_addresses_catch_nothing_of_the_other_families_or_the_shared_pages(client, analyst, path):
    assert signed_in(client, analyst).get(path).status_code != 301


def test_each_familys_dashboard_lives_under_its_own_prefix():
    paths = {dashboard.url_name: reverse(dashboard.url_name) for dashboard in families.dashboards()}
    assert paths == {"analysis-dashboard": "/analysis/cfpd/", "territories-dashboard": "/analysis/territories/",
                     "crisis-dashboard": "/analysis/crisis/"}
    # no family's page sits at the neutral prefix itself, and none inside another's
    prefixes = sorted(paths.values())
    assert "/analysis/" not in prefixes
    assert not any(b.startswith(a) for a in prefixes for b in prefixes if a != b)
