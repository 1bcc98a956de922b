"""Every Eval Ever records of a run (issue 30), validated by that project's own package
(its validator: the JSON schemas, the datastore path, the aggregate and its samples)."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from runs_app import services
from runs_app.models import LLMModel
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests import formats_env
from tests.factories import escalation_spec

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.embedded_pass(reason=(
        "a file format (Every Eval Ever records): its rows are read and written through the "
        "exporters tested in both passes"))]

KEY_1, KEY_2 = "t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full"


@pytest.fixture
def run():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec())
    text = (f"question_key,model,repeat,output\n{KEY_1},m1,0,B: Strike\n{KEY_1},m1,1,A\n{KEY_2},m1,0,B\n"
            f"{KEY_2},m1,1,B\n{KEY_1},m2,0,A\n")
    return services.import_responses(text).run


def test_a_runs_records_pass_every_eval_evers_own_validator(run, tmp_path):
    formats_env.need("every_eval_ever")
    out = io.StringIO()
    call_command("export_eval_records", "--run", run.pk, "--out", tmp_path / "eee", stdout=out)
    paths = sorted((tmp_path / "eee").rglob("*.json*"))
    assert len(paths) == 4  # an aggregate and its samples for each of the two models
    code, report = formats_env.eee_validate(paths)
    assert code == 0, json.dumps(report, indent=1)[:4000]  # 0: no error and no warning
    [aggregate_path] = [p for p in paths if p.suffix == ".json" and "/unattributed/m1/" in p.as_posix()]
    assert aggregate_path.relative_to(tmp_path / "eee").parts[:4] == ("data", "t", "unattributed", "m1")
    aggregate = json.loads(aggregate_path.read_text())
    assert aggregate["model_info"]["id"] == "unattributed/m1"
    assert aggregate["model_info"]["additional_details"]["deployment_type"] == "unknown"  # imported answers
    shares = {r["evaluation_name"]: r["score_details"]["score"] for r in aggregate["evaluation_results"]
              if r["evaluation_name"].startswith("code share")}
    # m1's four answers are coded B, A, B, B: A 1/4, B 3/4.
    assert shares == {"code share A": 0.25, "code share B": 0.75}
    samples = [json.loads(line) for line in
               aggregate_path.with_name(aggregate_path.stem + "_samples.jsonl").read_text().splitlines()]
    assert aggregate["detailed_evaluation_results"]["total_rows"] == len(samples) == 4
    first = samples[0]
    assert first["sample_id"] == f"{KEY_1}|default|0" and first["output"]["raw"] == ["B: Strike"]
    assert first["metadata"]["code"] == "B" and first["metadata"]["chosen_text"] == "Strike Russia's border posts"
    assert first["evaluation"] == {"score": 1.0, "is_correct": False, "num_turns": 1}
    # The validator does refuse: the same aggregate without its model is an error.
    del aggregate["model_info"]
    aggregate_path.write_text(json.dumps(aggregate))
    assert formats_env.eee_validate([aggregate_path])[0] == 1


def test_headline_figures_of_the_results_layer_ride_in_the_aggregate(run, tmp_path, monkeypatch):
    """The family's publisher (analysis_app.headlines) gives the figures: those resting on
    this run and of this model are written with their intervals and n; others are not."""
    formats_env.need("every_eval_ever")
    from analysis_app import headlines
    from analysis_app.results import Figure

    figures = [Figure(benchmark="t", family="cfpd", model="m1", metric="force_rate", label="Use of force",
                      estimate=0.4, ci_low=0.25, ci_high=0.55, n=12, unit="share", runs=(run.pk,)),
               Figure(benchmark="t", family="cfpd", model="m1", metric="other_run", label="Other run",
                      estimate=0.5, n=3, runs=(run.pk + 100,)),
               Figure(benchmark="t", family="cfpd", model="m1", metric="cs", label="Concurrence", estimate=12.5,
                      ci_low=10.0, ci_high=15.0, n=7, unit="percent", direction="lower", condition="hawk",
                      runs=(run.pk,))]
    original = headlines.publisher("cfpd")
    monkeypatch.setitem(headlines._PUBLISHERS, "cfpd", headlines.Publisher(
        family="cfpd", label=original.label, publish=lambda models: [f for f in figures if f.model in models]))
    from formats_app.eval_services import write_eval_records

    paths = write_eval_records(run, tmp_path / "eee")
    code, report = formats_env.eee_validate(paths)
    assert code == 0, json.dumps(report, indent=1)[:4000]
    aggregate = json.loads(next(p for p in paths if "/m1/" in p.as_posix() and p.suffix == ".json").read_text())
    results = {r["evaluation_result_id"]: r for r in aggregate["evaluation_results"]}
    assert "other_run:default" not in results
    force = results["force_rate:default"]
    assert force["score_details"]["score"] == 0.4
    assert force["score_details"]["uncertainty"]["confidence_interval"]["lower"] == 0.25
    assert force["score_details"]["uncertainty"]["num_samples"] == 12
    assert (force["metric_config"]["min_score"], force["metric_config"]["max_score"]) == (0, 1)
    concurrence = results["cs:hawk"]
    assert concurrence["metric_config"]["lower_is_better"] is True and concurrence["metric_config"]["max_score"] == 100
    assert concurrence["evaluation_name"] == "Concurrence (hawk)"


def test_the_settings_the_answers_were_asked_with_ride_as_the_generation_config(run, tmp_path):
    formats_env.need("every_eval_ever")
    from formats_app.eval_services import write_eval_records
    from runs_app.models import Response

    # m1's answers asked alike; m2's one answer has no settings (imported: nothing was asked).
    Response.objects.filter(run=run, model__name="m1").update(params={"temperature": 0.7, "max_tokens": 48,
                                                                      "timeout": 120})
    paths = write_eval_records(run, tmp_path / "eee")
    assert formats_env.eee_validate(paths)[0] == 0
    aggregates = {p.parent.name: json.loads(p.read_text()) for p in paths if p.suffix == ".json"}
    assert {r["generation_config"]["generation_args"]["temperature"] for r in aggregates["m1"]["evaluation_results"]
            } == {0.7}
    assert aggregates["m1"]["evaluation_results"][0]["generation_config"] == {
        "generation_args": {"temperature": 0.7, "max_tokens": 48}}  # the schema's fields only: no timeout
    assert all("generation_config" not in r for r in aggregates["m2"]["evaluation_results"])
    # Settings that differ within the run are no one configuration: none is claimed.
    Response.objects.filter(run=run, model__name="m1", repeat=1).update(params={"temperature": 1.0})
    paths = write_eval_records(run, tmp_path / "eee2")
    m1 = json.loads(next(p for p in paths if p.suffix == ".json" and p.parent.name == "m1").read_text())
    assert all("generation_config" not in r for r in m1["evaluation_results"])


def test_a_model_with_a_provider_is_filed_under_its_developer(run, tmp_path):
    LLMModel.objects.filter(name="m2").update(is_external=False, litellm_model="openai/gpt-4o-mini")
    from formats_app.eval_services import write_eval_records

    paths = write_eval_records(run, tmp_path / "eee")
    assert any(p.relative_to(tmp_path / "eee").parts[:4] == ("data", "t", "openai", "gpt-4o-mini") for p in paths)
    if formats_env._has("every_eval_ever", formats_env.EEE_PYTHON):
        assert formats_env.eee_validate(paths)[0] == 0


def test_an_unknown_run_is_refused(tmp_path):
    with pytest.raises(CommandError, match="no run 5"):
        call_command("export_eval_records", "--run", 5, "--out", tmp_path)
