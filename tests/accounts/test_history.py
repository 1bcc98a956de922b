"""The record (issue 43): django-auditlog's history of a scenario edited by `import_scenarios`
(with its --author, or the OS user who ran it) and of a user's roles; the console's History
page and the site-wide log, filtered and exported as CSV; nothing in it can be changed."""

import csv
import io
from io import StringIO

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.core.management import call_command

from scenarios_app.models import Scenario
from tests.factories import GOOD_ROW, HEADER, table_csv

pytestmark = pytest.mark.django_db

EDITED = "Withdraw at once and reopen talks with [Actor B]"


def import_rows(tmp_path, option_1, *args):
    row = list(GOOD_ROW)
    row[HEADER.index("Response Option 1")] = option_1
    path = tmp_path / "scenarios.csv"
    path.write_text(table_csv([row]), encoding="utf-8")
    out = StringIO()
    call_command("import_scenarios", str(path), "--benchmark", "hist", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def imported(tmp_path, author):
    import_rows(tmp_path, GOOD_ROW[HEADER.index("Response Option 1")], "--author", author.username)
    return Scenario.objects.get(benchmark__name="hist", is_current=True)


def option_entries(scenario):
    return LogEntry.objects.filter(content_type__model="responseoption",
                                   additional_data__command="import_scenarios").order_by("pk")


def test_an_import_that_edits_a_scenario_is_recorded_with_its_author(tmp_path, author, imported):
    before = LogEntry.objects.count()
    out = import_rows(tmp_path, EDITED, "--author", author.username)
    assert "updated" in out or "new-version" in out
    entries = LogEntry.objects.order_by("pk")[before:]
    assert entries, "the import's edit left no entry"
    changed = [e for e in entries if EDITED in str(e.changes_dict)]
    assert changed, [e.changes_dict for e in entries]
    for entry in entries:
        assert entry.actor == author
        assert entry.additional_data["command"] == "import_scenarios"


def test_without_author_the_os_user_is_recorded(tmp_path, imported, monkeypatch):
    monkeypatch.setattr("getpass.getuser", lambda: "deploy-bot")
    before = LogEntry.objects.count()
    import_rows(tmp_path, EDITED)
    entries = list(LogEntry.objects.order_by("pk")[before:])
    assert entries
    assert {e.actor for e in entries} == {None}
    assert {e.additional_data["os_user"] for e in entries} == {"deploy-bot"}


def test_a_role_given_and_taken_is_recorded_by_membership(outsider):
    authors = Group.objects.get(name="authors")
    outsider.groups.add(authors)
    outsider.groups.remove(authors)
    entries = LogEntry.objects.get_for_object(outsider).order_by("pk")
    # two membership entries: {"groups": {"type": "m2m", "operation": "add"/"delete", "objects": ["authors"]}}
    m2m = [e.changes_dict["groups"] for e in entries if "groups" in e.changes_dict]
    assert [(c["operation"], c["objects"]) for c in m2m] == [("add", ["authors"]), ("delete", ["authors"])]


def test_a_console_edit_is_recorded_with_the_person(client, admin_user):
    from runs_app.models import LLMModel

    model = LLMModel.objects.create(name="hist-model", litellm_model="openai/gpt-4o-mini")
    client.force_login(admin_user)
    # The middleware names the signed-in person; a change of one field through a request.
    from auditlog.context import set_actor

    with set_actor(admin_user):
        model.top_logprobs = 7
        model.save()
    entry = LogEntry.objects.get_for_object(model).order_by("pk").last()
    assert entry.actor == admin_user and entry.changes_dict["top_logprobs"][1] == "7"
    page = client.get(f"/admin/runs_app/llmmodel/{model.pk}/history/")
    assert page.status_code == 200
    assert admin_user.username in page.content.decode() and "top_logprobs" in page.content.decode().lower().replace(" ", "_")


def test_the_scenario_history_page_shows_the_import(client, tmp_path, author, admin_user, imported):
    import_rows(tmp_path, EDITED, "--author", author.username)
    client.force_login(admin_user)
    scenario = Scenario.objects.get(benchmark__name="hist", is_current=True)
    page = client.get(f"/admin/scenarios_app/scenario/{scenario.pk}/history/")
    assert page.status_code == 200
    text = page.content.decode()
    assert author.username in text and "import_scenarios" in text and "at once and reopen" in text
    assert client.get("/admin/scenarios_app/scenario/999999/history/").status_code == 404


def test_the_log_filters_by_person_and_exports_csv(client, tmp_path, author, admin_user, imported):
    import_rows(tmp_path, EDITED, "--author", author.username)
    client.force_login(admin_user)
    listing = client.get(f"/admin/auditlog/logentry/?person={author.pk}")
    assert listing.status_code == 200
    ids = list(LogEntry.objects.filter(actor=author).values_list("pk", flat=True))
    assert ids
    response = client.post("/admin/auditlog/logentry/", {"action": "export_csv", "_selected_action": ids})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == ["when", "who", "command", "action", "kind", "object id", "object", "field", "old", "new"]
    assert {row[1] for row in rows[1:]} == {author.username}
    assert any(row[7] == "options" and EDITED in row[9] for row in rows[1:]), rows


def test_a_cell_that_looks_like_a_formula_is_neutralised():
    from accounts.history_log import _cell
    from kit.csv_safety import neutralise_row

    assert neutralise_row([_cell("=1+1")])[0] != "=1+1"


def test_nothing_in_the_record_can_be_changed_through_the_site(client, admin_user, outsider):
    outsider.groups.add(Group.objects.get(name="authors"))
    entry = LogEntry.objects.get_for_object(outsider).last()
    client.force_login(admin_user)
    assert client.get("/admin/auditlog/logentry/add/").status_code == 403
    assert client.post(f"/admin/auditlog/logentry/{entry.pk}/change/", {"changes": "{}"}).status_code == 403
    assert client.post(f"/admin/auditlog/logentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert LogEntry.objects.filter(pk=entry.pk, changes=entry.changes).exists()


def test_a_new_scenarios_entry_names_its_own_fields_not_the_tables_that_link_to_it():
    from scenarios_app import services as authoring
    from scenarios_app.models import Benchmark
    from tests.factories import escalation_spec

    scenario = authoring.save_spec(Benchmark.objects.create(name="made"), escalation_spec()).scenario
    created = LogEntry.objects.get(content_type__model="scenario", object_id=scenario.pk, action=LogEntry.Action.CREATE)
    assert {"key", "template", "benchmark"} <= set(created.changes_dict)
    # Its options, dyads, questions and the runs that asked it are other tables' rows (recorded on their own).
    assert not {"options", "dyads", "cfpd_questions", "asked_by", "reviews", "translations"} & set(created.changes_dict)
