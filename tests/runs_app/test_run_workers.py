"""The run page's workers (issue 42): `run_workers` counts answers per recorded worker over
the run's last WORKERS_WINDOW units and the units each worker holds now; the page shows them;
the claim writes the claiming worker's name."""

import os
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from runs_app import run_progress, services, worker_identity
from runs_app.models import LLMModel, Response
from runs_app.transitions import claim
from scenarios_app.models import Benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(db):
    call_command("load_demo", stdout=open(os.devnull, "w"))
    model = LLMModel.objects.create(name="fake", litellm_model="openai/fake", api_base="http://127.0.0.1:9/v1",
                                    answer_mode="choice", choice_strategy="logprobs")
    return services.launch_run(Benchmark.objects.get(name="demo"), [model], services.Selection(sample=6, seed=1))


def test_answers_and_held_units_are_counted_per_worker(run, monkeypatch):
    ids = list(run.responses.order_by("pk").values_list("pk", flat=True))
    Response.objects.filter(pk__in=ids[:3]).update(status="done", worker="host1@m")
    Response.objects.filter(pk=ids[3]).update(status="done", worker="host2@m")
    Response.objects.filter(pk=ids[4]).update(status="running", worker="host3@m")
    # ids[5] pending, no worker: not named.
    assert services.run_workers(run) == [run_progress.RunWorker("host1@m", 3, 0), run_progress.RunWorker("host2@m", 1, 0),
                                         run_progress.RunWorker("host3@m", 0, 1)]
    # A window of 3 units: ids[3..5] (pk > last - 3), so host1's three answers fall outside it.
    monkeypatch.setattr(run_progress, "WORKERS_WINDOW", 3)
    assert services.run_workers(run) == [run_progress.RunWorker("host2@m", 1, 0), run_progress.RunWorker("host3@m", 0, 1)]
    # An imported or synthetic run's answers name no worker: nothing is read for them.
    run.kind = "import"
    assert services.run_workers(run) == []


def test_the_run_page_names_the_workers(run, client, admin_user):
    client.force_login(admin_user)
    assert "No worker has taken a unit of this run yet" in client.get(reverse("run-detail", args=[run.pk])).content.decode()
    run.responses.filter(pk=run.responses.order_by("pk").first().pk).update(status="done", worker="host1@machine")
    html = client.get(reverse("run-detail", args=[run.pk])).content.decode()
    assert '<code>host1@machine</code></td><td class="num">1</td><td class="num">0</td>' in html


def test_a_claim_records_the_worker_that_made_it(run, monkeypatch):
    monkeypatch.setattr(worker_identity, "_name", "host7@machine")
    pk = run.responses.order_by("pk").first().pk
    now = timezone.now()
    claim([pk], "t" * 32, now + timedelta(seconds=30), now)
    assert Response.objects.filter(pk=pk).values_list("status", "worker").get() == ("running", "host7@machine")
