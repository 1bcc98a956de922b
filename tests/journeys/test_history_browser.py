"""The record in a real browser (issue 43): a scenario imported by `import_scenarios --author`
and then edited by its author in the console; its *History* page shows both changes, each
with its author, field by field."""

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from scenarios_app.models import Scenario
from tests.factories import GOOD_ROW, HEADER, table_csv
from tests.journeys.test_author_browser import log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

EDITED_OPTION = "Withdraw at once and reopen talks with [Actor B]"


def import_row(tmp_path, option_1, username):
    row = list(GOOD_ROW)
    row[HEADER.index("Response Option 1")] = option_1
    path = tmp_path / "scenarios.csv"
    path.write_text(table_csv([row]), encoding="utf-8")
    call_command("import_scenarios", str(path), "--benchmark", "default", "--author", username, stdout=StringIO())


def test_a_scenario_history_shows_the_console_edit_and_the_import(page, live_server, author, admin_user,
                                                                 tmp_path, screenshots):
    import_row(tmp_path, GOOD_ROW[HEADER.index("Response Option 1")], admin_user.username)
    import_row(tmp_path, EDITED_OPTION, admin_user.username)  # an edit by the command
    scenario = Scenario.objects.get(benchmark__name="default", is_current=True)

    log_in(page, live_server, author.username)
    page.goto(f"{live_server.url}/admin/scenarios_app/scenario/{scenario.pk}/change/")
    page.fill("#id_notes", "Checked against the 1996 crisis.")
    with page.expect_navigation():
        page.click("input[name=_continue]")
    expect(page.locator("ul.messagelist")).to_contain_text("was changed successfully")

    with page.expect_navigation():
        page.click("a.historylink")
    assert page.url.endswith(f"/admin/scenarios_app/scenario/{scenario.pk}/history/"), page.url
    entries = page.locator(".auditlog-entry")
    expect(entries.first).to_contain_text(author.username)  # newest first: the console edit
    expect(entries.first).to_contain_text("Checked against the 1996 crisis.")
    by_command = entries.filter(has_text="import_scenarios")
    expect(by_command.first).to_contain_text(admin_user.username)
    expect(by_command.first).to_contain_text("at once and reopen")
    page.screenshot(path=str(screenshots / "scenario_history.png"), full_page=True)
    assert page.problems == []
