"""The run page shows each model's adaptive figures (concurrency, calls per minute, 429s)
as the workers recorded them on Run.throughput, on the page and in its progress JSON."""

import pytest
from django.urls import reverse

from runs_app.models import Run
from tests.runs_app.test_run_views import benchmark, bundled, login, operator, run  # noqa: F401 — fixtures

pytestmark = pytest.mark.django_db


def test_the_run_page_shows_concurrency_calls_per_minute_and_429s(client, operator, run, bundled):  # noqa: F811
    first, second = bundled
    Run.objects.filter(pk=run.pk).update(throughput={str(first.pk): {
        "model": first.name, "concurrency": 7, "ceiling": 8, "calls": 1234, "calls_per_minute": 318.5,
        "rate_limited": 12, "timeouts": 0, "at": 0.0}})
    login(client, operator)
    data = client.get(reverse("run-progress", args=[run.pk])).json()
    by_name = {m["name"]: m for m in data["models"]}
    assert (by_name[first.name]["concurrency"], by_name[first.name]["calls_per_minute"],
            by_name[first.name]["rate_limited"]) == (7, 318.5, 12)
    assert by_name[second.name]["concurrency"] is None  # nothing recorded for it yet
    page = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert "Concurrency · calls/min · 429s" in page
    assert '<span data-field="concurrency" data-format="int">7</span>' in page
    assert '<span data-field="rate_limited" data-format="int">12</span>' in page
