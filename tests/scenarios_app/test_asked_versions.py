"""The run's page names the exact scenario version each run asked (issue 43), linked to that
version's History in the console: written with the run's units (scenarios_app.AskedVersion),
a version edited after a run asked it gives the next run the new version, and the first run
still names the old one."""

import dataclasses
import re

import pytest

from accounts.services import create_user_with_role
from runs_app import services
from scenarios_app import services as authoring
from scenarios_app.models import AskedVersion, Benchmark, Scenario
from tests.conftest import PASSWORD
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db


def launch():
    request = services.read_launch({"benchmark": "asked", "models": ["local-smollm2"], "repeats": 1})
    return services.start_run(request, launched_by=None)


def versions_on_page(client, run):
    html = client.get(f"/runs/{run.pk}/").content.decode()
    block = re.search(r'<details id="asked-versions".*?</details>', html, re.S)
    assert block, "the run's page names no scenario version"
    return re.findall(r'<a href="([^"]+)">([^<]+)</a>', block.group(0)), block.group(0)


def test_each_run_names_the_versions_it_asked_linked_to_their_history(client):
    benchmark = Benchmark.objects.create(name="asked")
    authoring.save_spec(benchmark, escalation_spec(key="esc-a"))
    authoring.save_spec(benchmark, escalation_spec(key="esc-b", dyads=[("US", "MX")]))
    first = launch()
    edited = dataclasses.replace(escalation_spec(key="esc-a"), template=escalation_spec().template + " Decide now.")
    assert authoring.save_spec(benchmark, edited).action == "new-version"  # esc-a v1 was frozen by the first run
    second = launch()
    admin = create_user_with_role("adm", PASSWORD, role="operators", superuser=True)[0]
    client.force_login(admin)

    links, _ = versions_on_page(client, first)
    v1 = Scenario.objects.get(key="esc-a", version=1)
    assert [label for _, label in links] == ["esc-a v1", "esc-b v1"]
    assert links[0][0] == f"/admin/scenarios_app/scenario/{v1.pk}/history/"
    links, _ = versions_on_page(client, second)
    assert [label for _, label in links] == ["esc-a v2", "esc-b v1"]  # the edit, asked by the second run only
    history = client.get(links[0][0])
    assert history.status_code == 200 and "History: esc-a v2" in history.content.decode()
    assert AskedVersion.objects.filter(run=first).count() == 2  # one row per version, not per unit
