"""One scenario's History from its creation to the run that first asked it (issue 43): the
record of changes holds the bulk import's creation (bulk_create sends no signal, so the
import writes the entry itself, with the import's author), each approval and the status it
changed, and the freezing by the run that first asked it. The console's History page shows
them all."""

import pytest
from auditlog.context import set_actor
from auditlog.models import LogEntry

from runs_app import services as runs
from scenarios_app import services as authoring
from scenarios_app.models import Scenario
from tests.conftest import _persona
from tests.factories import GOOD_ROW, HEADER, table_csv

pytestmark = pytest.mark.django_db


def entries(scenario):
    return [(e.action, e.actor.username if e.actor else None, e.changes_dict)
            for e in LogEntry.objects.get_for_object(scenario).order_by("pk")]


def test_a_scenario_created_by_a_bulk_import_is_recorded_with_the_imports_author(tmp_path, author):
    from django.core.management import call_command

    path = tmp_path / "scenarios.csv"
    path.write_text(table_csv([list(GOOD_ROW)]), encoding="utf-8")
    call_command("import_scenarios", str(path), "--benchmark", "life", "--author", author.username)
    scenario = Scenario.objects.get(benchmark__name="life")
    (action, actor, changes), = entries(scenario)
    assert (action, actor) == (LogEntry.Action.CREATE, author.username)
    assert changes["template"][1] == scenario.template and changes["key"] == ["None", scenario.key]
    entry = LogEntry.objects.get_for_object(scenario).get()
    assert entry.additional_data["command"] == "import_scenarios"


def test_approvals_and_the_first_run_are_in_the_scenarios_history(tmp_path, author):
    from tests.factories import escalation_spec
    from scenarios_app.models import Benchmark

    rita, rob = _persona("rita", "authors"), _persona("rob", "authors")
    benchmark = Benchmark.objects.create(name="life")
    with set_actor(author):
        scenario = authoring.save_spec(benchmark, escalation_spec(key="esc-life"), author=author).scenario
    before = len(entries(scenario))
    with set_actor(rita):
        authoring.approve(scenario, rita)
        authoring.approve(scenario, rita)  # the same approval again: counted once, recorded once
    with set_actor(rob):
        authoring.approve(scenario, rob)
    run = runs.start_run(runs.read_launch({"benchmark": "life", "models": ["local-smollm2"], "repeats": 1}),
                         launched_by=None)
    runs.start_run(runs.read_launch({"benchmark": "life", "models": ["local-smollm2"], "repeats": 1}),
                   launched_by=None)  # a second run: the version is frozen already, nothing more recorded
    scenario.refresh_from_db()
    new = entries(scenario)[before:]
    assert [(action, actor) for action, actor, _ in new] == [
        (LogEntry.Action.UPDATE, "rita"), (LogEntry.Action.UPDATE, "rob"), (LogEntry.Action.UPDATE, None)]
    assert new[0][2] == {"approved by": ["", "rita"]}
    assert new[1][2] == {"approved by": ["", "rob"], "status": ["draft", "reviewed"]}  # two reviewers: reviewed
    assert new[2][2] == {"frozen at": ["", scenario.frozen_at.isoformat(timespec="seconds")],
                         "first asked by run": ["", str(run.pk)]}


def test_the_history_page_shows_creation_approval_and_run(client, tmp_path, author, admin_user):
    from tests.factories import escalation_spec
    from scenarios_app.models import Benchmark

    rita, rob = _persona("rita", "authors"), _persona("rob", "authors")
    benchmark = Benchmark.objects.create(name="life")
    with set_actor(author):
        scenario = authoring.save_spec(benchmark, escalation_spec(key="esc-life"), author=author).scenario
    for person in (rita, rob):
        with set_actor(person):
            authoring.approve(scenario, person)
    run = runs.start_run(runs.read_launch({"benchmark": "life", "models": ["local-smollm2"], "repeats": 1}),
                         launched_by=None)
    client.force_login(admin_user)
    page = client.get(f"/admin/scenarios_app/scenario/{scenario.pk}/history/").content.decode()
    for said in ("alice", "rita", "rob", "Approved by", "First asked by run", f">{run.pk}<", "create"):
        assert said in page, said
