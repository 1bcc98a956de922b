import time
import pytest
from django.urls import reverse
from tests.conftest import PASSWORD
from tests.scenarios_app.test_people_on_dashboard import people, _dove, board_built_in_the_request  # noqa
pytestmark = pytest.mark.django_db

def test_time(client, analyst, people):
    _dove(people)
    assert client.login(username=analyst.username, password=PASSWORD)
    client.get(reverse("analysis-dashboard"), {"run": people.pk, "iterations": 200})
    from django.core.cache import cache
    for i in range(3):
        cache.clear()
        t = time.perf_counter()
        r = client.get(reverse("analysis-dashboard"), {"run": people.pk})
        print("page", time.perf_counter() - t, r.status_code)
    for q in ({"run": "x"}, {"run": people.pk, "adjust": "zz"}, {"run": people.pk, "panels": "<script>"}, {"run": people.pk, "category": "<b>"}):
        print(q, client.get(reverse("analysis-dashboard"), q).status_code)

def test_build(people):
    _dove(people)
    from scenarios_app.analysis import dashboard
    from scenarios_app.analysis.tidy_query import AnalysisFilter
    for i in range(3):
        b = dashboard.build(AnalysisFilter(runs=(people.pk,)))
        b2 = dashboard.build(AnalysisFilter(runs=(people.pk,)), panels=tuple(k for k in dashboard.PANELS if k != "people"))
        import time; t=time.perf_counter(); dashboard.build(AnalysisFilter(runs=(people.pk,)), panels=("people",)); print("people only", time.perf_counter()-t)
        print("build", b.seconds, "without people", b2.seconds)
