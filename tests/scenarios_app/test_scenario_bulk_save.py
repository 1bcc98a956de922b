"""New scenarios saved a chunk at a time (`scenarios_app.bulk_save`, issue 32): the same rows
as `services.save_spec` row by row, the same line of the report for every row (created,
updated, new-version, unchanged; `--dry-run` says the same), and nothing written when a
later chunk fails."""

import dataclasses

import pytest

from scenarios_app import services, transfer
from scenarios_app.bulk_save import BulkSaver
from scenarios_app.models import Benchmark, Question, ResponseOption, Scenario, ScenarioDyad
from scenarios_app.table_format import write_table
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db


def specs():
    return [
        escalation_spec("e1"),
        three_option_spec("t1", dyads=[("CN", "JP"), ("US", "CU"), ("RU", "GB")]),
        dataclasses.replace(escalation_spec("e2", dyads=[("RU", "GB")]), qualified_actor="B", notes="from the paper"),
        three_option_spec("t2"),
        escalation_spec("e3", dyads=[("US", "MX"), ("CN", "RU"), ("GB", "RU")]),
    ]


def write_file(tmp_path, rows, name="scenarios.csv"):
    path = tmp_path / name
    path.write_text(write_table(rows, services.taxonomy_from_db()), encoding="utf-8")
    return str(path)


def snapshot(name):
    """Every row a scenario import writes, with the benchmark's name taken out of keys."""
    benchmark = Benchmark.objects.get(name=name)
    scenarios = list(Scenario.objects.filter(benchmark=benchmark).order_by("key", "version").values_list(
        "key", "version", "is_current", "domain__slug", "comparison__slug", "template", "qualified_actor", "notes",
        "content_hash", "status", "author_id", "frozen_at"))
    options = list(ResponseOption.objects.filter(scenario__benchmark=benchmark).order_by(
        "scenario__key", "scenario__version", "position").values_list(
        "scenario__key", "scenario__version", "position", "text", "category__slug"))
    dyads = list(ScenarioDyad.objects.filter(scenario__benchmark=benchmark).order_by(
        "scenario__key", "scenario__version", "position").values_list(
        "scenario__key", "scenario__version", "position", "actor_a__code", "actor_b__code"))
    questions = sorted(
        (key.removeprefix(f"{name}/"), *rest) for key, *rest in Question.objects.filter(benchmark=benchmark).values_list(
            "key", "kind", "language", "text", "options", "option_order", "choice_count", "is_current",
            "cfpd__scenario__key", "cfpd__scenario__version", "cfpd__variant", "cfpd__domain__slug",
            "cfpd__actor_a__code", "cfpd__actor_b__code", "cfpd__qualified_actor__code"))
    return scenarios, options, dyads, questions


def import_file(path, name, dry_run=False):
    lines = []
    report = transfer.import_scenario_file(path, name, dry_run=dry_run, emit=lambda line, bad: lines.append(line))
    return report, lines


def test_new_scenarios_saved_in_chunks_are_the_rows_save_spec_writes_one_by_one(tmp_path, monkeypatch):
    monkeypatch.setattr(transfer, "WRITE_CHUNK", 2)  # five rows: chunks of 2, 2 and 1
    path = write_file(tmp_path, specs())
    report, lines = import_file(path, "bulk")
    assert report.ok and report.counts == {"created": 5}
    # The same file, each row saved by the one-at-a-time path.
    taxonomy = services.taxonomy_from_db()
    single = Benchmark.objects.create(name="single", title="single")
    rows = transfer.read_scenarios(open(path, encoding="utf-8").read(), "csv", taxonomy)
    for row in rows:
        transfer._check_row(row, taxonomy, services.known_actor_codes(), {})
        assert not row.problems
        assert services.save_spec(single, row.spec).action == "created"
    bulk, alone = snapshot("bulk"), snapshot("single")
    assert bulk == alone
    scenarios, options, dyads, questions = bulk
    # 5 scenarios; options 2+3+2+3+2 = 12; dyads 2+3+1+1+3 = 10.
    assert (len(scenarios), len(options), len(dyads)) == (5, 12, 10)
    assert len(questions) == Question.objects.filter(benchmark__name="single").count() > 10
    assert lines[-5:] == [f"line {n + 2} ({key}): created" for n, key in enumerate(["e1", "t1", "e2", "t2", "e3"])]


def changed(spec):
    return dataclasses.replace(spec, template=spec.template.replace("Talks over the river have failed. ", ""))


def test_a_file_of_new_and_existing_keys_reports_each_row_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(transfer, "WRITE_CHUNK", 2)
    benchmark = Benchmark.objects.create(name="t", title="t")
    e1, e2, e3 = (escalation_spec(key) for key in ("e1", "e2", "e3"))
    for spec in (e1, e2, e3):
        services.save_spec(benchmark, spec)
    services.freeze(Scenario.objects.filter(key="e2"))
    path = write_file(tmp_path, [changed(e1), escalation_spec("n1"), changed(e2), e3, three_option_spec("n2")])
    expected = ["line 2 (e1): updated", "line 3 (n1): created", "line 4 (e2): new-version", "line 5 (e3): unchanged",
                "line 6 (n2): created"]
    report, lines = import_file(path, "t", dry_run=True)
    assert lines[-5:] == [line.replace("): ", "): would be ") for line in expected]
    assert Scenario.objects.count() == 3  # a dry run writes nothing
    report, lines = import_file(path, "t")
    assert lines[-5:] == expected
    assert report.counts == {"created": 2, "updated": 1, "new-version": 1, "unchanged": 1}
    assert sorted(Scenario.objects.filter(is_current=True).values_list("key", "version")) == [
        ("e1", 1), ("e2", 2), ("e3", 1), ("n1", 1), ("n2", 1)]
    # The new keys' questions are those sync_questions makes: syncing again changes nothing.
    for scenario in Scenario.objects.filter(key__in=["n1", "n2"]):
        assert services.sync_questions(scenario) == {"created": 0, "updated": 0, "deleted": 0}


def test_a_chunk_that_fails_leaves_nothing_of_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(transfer, "WRITE_CHUNK", 2)
    original, calls = BulkSaver._create, []

    def fail_on_the_third_chunk(self, chunk):
        calls.append([spec.key for spec in chunk])
        if len(calls) == 3:
            raise RuntimeError("disk full")
        return original(self, chunk)

    monkeypatch.setattr(BulkSaver, "_create", fail_on_the_third_chunk)
    path = write_file(tmp_path, specs())
    with pytest.raises(RuntimeError):
        import_file(path, "t")
    assert calls == [["e1", "t1"], ["e2", "t2"], ["e3"]]
    assert not Benchmark.objects.filter(name="t").exists()
    assert not Scenario.objects.exists() and not Question.objects.filter(key__startswith="t/").exists()
    assert not ResponseOption.objects.exists() and not ScenarioDyad.objects.exists()


def test_the_in_memory_import_saves_in_chunks_too(monkeypatch):
    monkeypatch.setattr(transfer, "WRITE_CHUNK", 2)
    text = write_table(specs(), services.taxonomy_from_db())
    report = transfer.import_scenarios(text, "mem")
    assert report.ok and [action for _, _, action in report.outcomes] == ["created"] * 5
    assert Scenario.objects.filter(benchmark__name="mem").count() == 5
