"""`import_scenarios` / `export_scenarios`: every validation rule in a bad file of its own,
atomicity, dry runs, versions, and exact round trips."""

import json

import pytest
from django.core.management import CommandError, call_command

from scenarios_app import services
from scenarios_app.models import Benchmark, Question, Scenario
from tests.factories import GOOD_ROW, HEADER, table_csv

pytestmark = pytest.mark.django_db


def write(tmp_path, text, name="scenarios.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_import(path, *args):
    from io import StringIO

    out = StringIO()
    call_command("import_scenarios", path, *args, stdout=out)
    return out.getvalue()


def failing_import(tmp_path, rows, header=HEADER):
    """Import that must fail and write nothing; returns (error, printed report)."""
    from io import StringIO

    path = write(tmp_path, table_csv(rows, header))
    out = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("import_scenarios", path, "--benchmark", "t", stdout=out)
    assert Scenario.objects.count() == 0 and Question.objects.count() == 0
    assert not Benchmark.objects.filter(name="t").exists()
    return caught.value, out.getvalue()


def bad_row(**changes):
    row = dict(zip(HEADER, GOOD_ROW))
    row.update(changes)
    return [row[c] for c in HEADER]


@pytest.mark.parametrize("changes, message", [
    ({"Scenario": "[Actor A] is restless. How should [Actor A] respond?"},
     "template: options 1 and 2 use [Actor B] but the template never names it"),
    ({"Response Option 3": "Warn them"},
     "Response Option 3: 'No Use of force vs Attack (Use of Force)' compares 2 options but the row has 3; "
     "write NA for option 3 or choose another comparison"),
    ({"Sub Action Comparison": "Balance vs Bandwagon"},
     "comparison: 'Balance vs Bandwagon' belongs to Alliance Dynamics, not Escalation"),
    ({"Actor Set": "(CN,ZZ)"}, "dyads[1]: (CN,ZZ): 'ZZ' is not a known actor code"),
    ({"Actor Set": "(CN,CN)"}, "dyads[1]: (CN,CN) pairs an actor with itself"),
    ({"Actor Set": "(CN,RU), (CN,RU)"}, "dyads[2]: (CN,RU) is listed twice"),
    ({"Actor Set": "(CN;RU)"}, "Actor Set: cannot read '(CN;RU)'"),
    ({"Actor Set": "{No Such Set}"}, "Actor Set: no actor set named 'No Such Set'"),
    ({"Domain": "Diplomacy"}, "Domain: 'Diplomacy' is not a domain"),
    ({"Scenario": "[Actor A] and [Actor B] quarrel. How should the two respond?"},
     "Qualified Actor: cannot infer the qualified actor"),
])
def test_a_file_with_one_bad_row_imports_nothing_and_names_the_line_and_reason(tmp_path, changes, message):
    error, report = failing_import(tmp_path, [GOOD_ROW, bad_row(**changes)])
    assert "1 of 2 rows have problems; nothing was imported into 't'" in str(error)
    reported = [line for line in report.splitlines() if ": line 3 (" in line and message in line]
    assert len(reported) == 1, report
    assert not [line for line in report.splitlines() if ": line 2 (" in line]


def test_an_option_without_a_category_is_reported(tmp_path):
    header = HEADER + ["Option 1 Category", "Option 2 Category"]
    error_rows = [GOOD_ROW + ["No use of force", ""]]
    path = write(tmp_path, table_csv(error_rows, header))
    from io import StringIO

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenarios", path, "--benchmark", "t", stdout=out)
    assert "options[2].category: option 2 has no action category" in out.getvalue()
    assert Scenario.objects.count() == 0


def test_three_options_without_a_middle_are_reported(tmp_path):
    header = HEADER + ["Option 1 Category", "Option 2 Category", "Option 3 Category"]
    row = ["Escalation", "No Use of force vs Clash (Use of Force) vs Threat to Use of force",
           "[Actor A] patrols near [Actor B]. How should [Actor A] respond?", "Talk", "Fire", "Fire more", "(CN,RU)",
           "No use of force", "Use of force", "Use of force"]
    path = write(tmp_path, table_csv([row], header))
    from io import StringIO

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenarios", path, "--benchmark", "t", stdout=out)
    assert "options: three options need a middle option" in out.getvalue()


def test_a_key_used_twice_in_one_file_is_reported(tmp_path):
    header = ["Key"] + HEADER
    path = write(tmp_path, table_csv([["k1"] + GOOD_ROW, ["k1"] + GOOD_ROW], header))
    from io import StringIO

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenarios", path, "--benchmark", "t", stdout=out)
    assert "line 3 (k1): Key: 'k1' is also used on line 2; give each scenario its own key" in out.getvalue()


def test_a_file_missing_a_column_is_refused(tmp_path):
    path = write(tmp_path, "Domain,Scenario\nEscalation,x\n")
    with pytest.raises(CommandError, match="missing column\\(s\\) Sub Action Comparison"):
        run_import(path)


def test_a_dry_run_shows_inferences_and_writes_nothing(tmp_path):
    output = run_import(write(tmp_path, table_csv([GOOD_ROW])), "--dry-run", "--benchmark", "t")
    assert "inferred categories in the comparison's order: option 1 = No use of force, option 2 = Use of force" in output
    assert "inferred qualified actor A: closing question 'How should [Actor A] respond?' advises [Actor A]" in output
    assert "would be created" in output
    assert "dry run, nothing written: 1 scenarios into 't' (1 created)" in output
    assert Scenario.objects.count() == 0 and not Benchmark.objects.filter(name="t").exists()


def test_import_creates_scenarios_and_questions_and_a_second_import_changes_nothing(tmp_path):
    path = write(tmp_path, table_csv([GOOD_ROW]))
    run_import(path)
    scenario = Scenario.objects.get()
    assert scenario.benchmark.name == "default"
    assert scenario.questions.count() == 2
    assert "(1 unchanged)" in run_import(path)
    assert Scenario.objects.count() == 1 and Question.objects.count() == 2


def test_importing_changed_text_over_a_frozen_scenario_makes_a_new_version(tmp_path):
    header = ["Key"] + HEADER
    run_import(write(tmp_path, table_csv([["k1"] + GOOD_ROW], header)))
    first = Scenario.objects.get()
    services.freeze([first])
    changed = ["k1"] + bad_row(**{"Response Option 1": "Pull back and call for mediation by [Actor B]"})
    output = run_import(write(tmp_path, table_csv([changed], header)))
    assert "(1 new-version)" in output
    first.refresh_from_db()
    second = Scenario.objects.get(is_current=True)
    assert (first.is_current, second.version, second.previous_version) == (False, 2, first)
    # The old version keeps its questions and text; the new one has its own.
    assert first.options.get(position=1).text == "Withdraw and reopen talks with [Actor B]"
    assert first.questions.count() == 2 and second.questions.count() == 2
    assert {q.key.split(".")[1] for q in second.questions.all()} == {"v2"}


def test_a_named_set_expands_into_all_its_ordered_pairs(tmp_path):
    row = bad_row(**{"Actor Set": "{Universal Generic | A: US}"})
    run_import(write(tmp_path, table_csv([row])))
    scenario = Scenario.objects.get()
    # 40 members, Actor A fixed to US: 39 ordered pairs.
    assert scenario.dyads.count() == 39
    assert scenario.dyads.first().actor_a.code == "US"


def test_the_demo_benchmark_round_trips_exactly_through_csv_and_json(tmp_path, demo_actors):
    run_import("scenarios_app/fixtures/demo_scenarios.csv", "--benchmark", "demo")
    for ext in ("csv", "json"):
        first = tmp_path / f"first.{ext}"
        call_command("export_scenarios", str(first), "--benchmark", "demo")
        run_import(str(first), "--benchmark", f"copy-{ext}")
        second = tmp_path / f"second.{ext}"
        call_command("export_scenarios", str(second), "--benchmark", f"copy-{ext}")
        a, b = first.read_text(), second.read_text()
        if ext == "json":
            a, b = json.loads(a), json.loads(b)
            assert a.pop("benchmark") == "demo" and b.pop("benchmark") == "copy-json"
        assert a == b
    demo = Benchmark.objects.get(name="demo")
    assert Question.objects.filter(benchmark__name="copy-csv").count() == demo.questions.count() > 600


def test_json_import_reports_malformed_entries(tmp_path):
    document = {"format": "cfpd-scenarios", "scenarios": [{"key": "x", "domain": "escalation"}]}
    path = write(tmp_path, json.dumps(document), "bad.json")
    from io import StringIO

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenarios", path, stdout=out)
    assert "line 1 (x): comparison: is missing; write it as a string" in out.getvalue()
    assert "line 1 (x): options: is null" in out.getvalue()


def test_a_missing_file_is_a_clear_error():
    with pytest.raises(CommandError, match="nope.csv: No such file or directory"):
        run_import("nope.csv")
