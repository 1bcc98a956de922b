"""The authors' console: a panel saved with a selection picks its questions (a bad selection
named on its field), an attention check naming no option refused, single-use links made as a
CSV by the list's action, links withdrawn."""

import csv
import io

import pytest

from panels_app.models import Panel, Respondent
from tests.conftest import PASSWORD
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db


def _form(benchmark, **changes):
    data = {"name": "Public, DE", "stands_for": "public, DE", "benchmark": str(benchmark.pk),
            "selection": '{"sample": 3, "seed": 4}', "seed": "0", "items_per_respondent": "2", "ask_reason": "on",
            "consent_text": "Agree?", "closing_text": "Thanks", "completion_url": "", "completion_code": "",
            "open_cap": "",
            "attention_checks-TOTAL_FORMS": "1", "attention_checks-INITIAL_FORMS": "0",
            "attention_checks-0-text": "Choose Yes", "attention_checks-0-options": '["Yes", "No"]',
            "attention_checks-0-expected": "1", "attention_checks-0-position": "0",
            "profile_questions-TOTAL_FORMS": "0", "profile_questions-INITIAL_FORMS": "0"}
    data.update(changes)
    return data


def test_an_author_makes_a_panel_in_the_console(client, author):
    benchmark, _ = make_benchmark()
    client.login(username=author.username, password=PASSWORD)
    saved = client.post("/admin/panels_app/panel/add/", _form(benchmark))
    assert saved.status_code == 302, saved.content.decode()[:3000]
    panel = Panel.objects.get(name="Public, DE")
    assert panel.panel_questions.count() == 3 and panel.selection["seed"] == 4
    assert panel.attention_checks.get().expected == 1
    from auditlog.models import LogEntry  # the record of changes: who made the panel
    assert LogEntry.objects.get_for_object(panel).get().actor == author
    assert client.get(f"/admin/panels_app/panel/{panel.pk}/history/").status_code == 200


def test_a_bad_selection_or_check_is_named_on_its_field(client, author):
    benchmark, _ = make_benchmark()
    client.login(username=author.username, password=PASSWORD)
    page = client.post("/admin/panels_app/panel/add/", _form(benchmark, selection='{"sample": 0}'))
    assert page.status_code == 200 and "sample: must be from 1" in page.content.decode()
    page = client.post("/admin/panels_app/panel/add/", _form(benchmark, **{"attention_checks-0-expected": "3"}))
    assert "the expected option must be 1 to 2" in page.content.decode()
    assert not Panel.objects.exists()


def test_links_are_made_as_a_csv_and_withdrawn(client, author):
    panel = make_panel(make_benchmark()[0])
    client.login(username=author.username, password=PASSWORD)
    made = client.post("/admin/panels_app/panel/", {"action": "make_links", "_selected_action": [str(panel.pk)],
                                                    "count": "4"})
    assert made["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(made.content.decode())))
    assert len(rows) == 4 and all(row["url"].startswith("http://testserver/p/") for row in rows)
    first = Respondent.objects.first()
    client.post("/admin/panels_app/respondent/", {"action": "withdraw_links", "_selected_action": [str(first.pk)]})
    first.refresh_from_db()
    assert first.withdrawn_at is not None
