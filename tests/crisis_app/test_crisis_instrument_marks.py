"""Figures stored by a scorer whose instrument failed a check are shown marked, not as results
(crisis_app.instrument_state): on the crisis page, its CSVs and API, in inconsistency_report,
on the model's profile, its CSV and API, and in the HTML report export of the page and the
profile. What marks a scorer: a self-check that fails (test_crisis_instrument_check), a
sound, checked load that finds another configuration stored under the name, a failed
validation of the same configuration. `score_inconsistency --rescore` deletes the marked
scores and scores again.

The scores are those of `test_crisis_dashboard.make_scores` (no encoder): eleven groups of
bertscore-minilm, one of kendall. model-a's base tellings at T=0.2 under bertscore-minilm:
run A's group means 0.2, 0.3, 0.35 -> 0.28333, run B 0.4: (0.28333 + 0.4) / 2 = 0.341667,
shown 0.342; model-b's 0.475."""

import csv
import io
from datetime import datetime, timezone
from html import unescape

import pytest
from django.core.management import CommandError, call_command

from crisis_app import instrument_state, scorers, validation_record
from crisis_app.models import GroupScore, Scorer
from crisis_app.scorers import LoadedScorer
from formats_app.report_services import render_report
from tests.crisis_app.test_crisis_dashboard import make_scores

pytestmark = pytest.mark.django_db

PAGE = "/analysis/crisis/?benchmark=crisis-sample&scorer=bertscore-minilm&iterations=200"
PROBLEM = "the known sentence pair scores F1 0.9120, expected 0.8839 ± 0.0001"
NOTICE = ("These figures come from scorer bertscore-minilm whose self-check failed on 3 Nov 2026: not results. "
          f"{PROBLEM}. Once the scorer is sound, delete them and score again: "
          "python manage.py score_inconsistency --scorer bertscore-minilm --rescore")
SOUND_CONFIG = {"metric": "bertscore_f1_rescaled", "model_name": "sentence-transformers/all-MiniLM-L6-v2",
                "num_layers": 4, "idf": False, "precision": "float32", "baseline_f1": 0.42907,
                "self_check": "passed: class, weights, known pair and baseline"}


@pytest.fixture
def scores(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False  # the profile's figures computed in the request
    return make_scores()


def mark(check="self-check", problem=PROBLEM):
    Scorer.objects.filter(name="bertscore-minilm").update(
        check_failed_at=datetime(2026, 11, 3, 12, 0, tzinfo=timezone.utc), failed_check=check,
        check_problem=problem)


def text(response):
    return unescape(response.content.decode())


def rows(response):
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_crisis_page_its_csvs_and_api_mark_a_failed_scorers_figures(client, analyst, scores):
    client.force_login(analyst)
    sound = text(client.get(PAGE))
    assert "scorer <strong>bertscore-minilm</strong>" in sound and "Not results" not in sound
    assert "not_a_result" not in rows(client.get(PAGE.replace("?", "summary.csv?")))[0]
    mark()
    page = text(client.get(PAGE))
    assert f'<p class="form-errors" id="instrument-notice" role="alert"><strong>Not results.</strong> {NOTICE}</p>' \
        in page
    assert ">bertscore-minilm (check failed: not results)</option>" in page
    # Each panel's note: summary, boxes, curve, contrasts, groups and pairs.
    assert page.count("Not results: scorer bertscore-minilm failed its check.") == 6
    for key in ("summary", "groups"):
        marked = rows(client.get(PAGE.replace("?", f"{key}.csv?")))
        assert marked and {row["not_a_result"] for row in marked} == {NOTICE}
    assert client.get(PAGE.replace("/analysis/crisis/", "/api/analysis/crisis/")).json()["not_results"] == NOTICE
    # kendall's figures (ranked variants) stay results.
    kendall = text(client.get(PAGE.replace("bertscore-minilm", "kendall")))
    assert "scorer <strong>kendall</strong>" in kendall and "Not results." not in kendall


def test_the_report_command_marks_the_failed_scorers_rows_only(scores, tmp_path):
    mark()
    out, per_run, err = tmp_path / "summary.csv", tmp_path / "groups.csv", io.StringIO()
    call_command("inconsistency_report", "--out", str(out), "--per-run", str(per_run), "--iterations", "200",
                 stdout=io.StringIO(), stderr=err)
    summary = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {(row["scorer"], row["not_a_result"]) for row in summary} == {("bertscore-minilm", NOTICE),
                                                                         ("kendall", "")}
    groups = list(csv.DictReader(per_run.open(encoding="utf-8")))
    assert sum(row["not_a_result"] == NOTICE for row in groups) == 11  # the eleven bertscore-minilm groups
    assert f"not results: {NOTICE}" in err.getvalue()


def test_the_profile_shows_the_figure_as_not_a_result_unranked(client, analyst, scores):
    client.force_login(analyst)
    sound = text(client.get("/models/model-a/"))
    assert "<strong>0.342</strong>" in sound and "1 of 2" in sound and "Not a result." not in sound
    mark()
    page = text(client.get("/models/model-a/"))
    assert f"<strong>Not a result.</strong> {NOTICE}</p>" in page
    assert '<s title="not a result">0.342' in page and "<strong>0.342</strong>" not in page
    assert "1 of 2" not in page  # neither model-a's nor model-b's figure is ranked
    figure = next(f for fam in client.get("/api/profiles/model-a/").json()["families"] for f in fam["figures"]
                  if f["metric"] == "inconsistency:bertscore-minilm" and f["condition"] == "temperature 0.2")
    assert (figure["withheld"], figure["rank"]) == (NOTICE, None)
    row = next(r for r in rows(client.get("/models/model-a/figures.csv"))
               if r["metric"] == "inconsistency:bertscore-minilm" and r["condition"] == "temperature 0.2")
    assert (row["withheld"], row["rank"], row["estimate"][:5]) == (NOTICE, "", "0.341")


def test_the_html_export_of_the_page_and_of_the_profile_carry_the_mark(analyst, scores):
    mark()
    assert f"<strong>Not results.</strong> {NOTICE}" in unescape(render_report(PAGE, analyst.username))
    assert f"<strong>Not a result.</strong> {NOTICE}" in unescape(render_report("/models/model-a/",
                                                                                analyst.username))


def loaded(config, pair_scorer=None):
    return LoadedScorer("bertscore-minilm", Scorer.Kind.BERTSCORE, dict(config),
                        pair_scorer or (lambda texts, pairs: [0.5] * len(pairs)))


def test_a_checked_load_finding_another_configuration_marks_the_scores_and_says_what_to_do(scores):
    Scorer.objects.filter(name="bertscore-minilm").update(config=dict(SOUND_CONFIG, baseline_f1=0.494))
    with pytest.raises(scorers.ScorerError) as refused:
        scorers.stored_scorer(loaded(SOUND_CONFIG))
    message = str(refused.value)
    assert message.startswith("scorer bertscore-minilm already holds 11 score(s) made with another configuration "
                              "(baseline_f1: stored 0.494, now 0.42907). To replace them with scores of the scorer "
                              "loaded now, run `python manage.py score_inconsistency --scorer bertscore-minilm "
                              "--rescore` (it deletes the 11 stored score(s)")
    row = Scorer.objects.get(name="bertscore-minilm")
    assert (row.failed_check, row.check_problem) == (
        "configuration", "its stored configuration differs from the checked instrument's (baseline_f1: stored "
                         "0.494, now 0.42907)")
    assert "whose configuration check failed on" in instrument_state.notice(row)


def test_an_unchecked_load_finding_another_configuration_refuses_without_marking(scores):
    Scorer.objects.filter(name="bertscore-minilm").update(config=dict(SOUND_CONFIG, baseline_f1=0.494))
    with pytest.raises(scorers.ScorerError, match="--rescore"):
        scorers.stored_scorer(loaded(dict(SOUND_CONFIG, self_check="passed: class and weights (no known values "
                                                                   "for this encoder)")))
    assert Scorer.objects.get(name="bertscore-minilm").check_failed_at is None


def test_rescore_deletes_the_old_scores_and_the_mark_and_scores_every_group_again(scores, monkeypatch):
    Scorer.objects.filter(name="bertscore-minilm").update(config=dict(SOUND_CONFIG, baseline_f1=0.494))
    Scorer.objects.filter(name="kendall").update(config=scorers.KENDALL_CONFIG)  # make_scores stores none
    mark()
    monkeypatch.setattr(scorers, "load", lambda name, custom=None: loaded(SOUND_CONFIG))
    with pytest.raises(CommandError, match=r"score_inconsistency --scorer bertscore-minilm --rescore"):
        call_command("score_inconsistency", "--scorer", "bertscore-minilm", stdout=io.StringIO(),
                     stderr=io.StringIO())
    old = set(GroupScore.objects.filter(scorer__name="bertscore-minilm").values_list("pk", flat=True))
    err = io.StringIO()
    call_command("score_inconsistency", "--scorer", "bertscore-minilm", "--rescore", stdout=io.StringIO(), stderr=err)
    assert "deleted 11 score(s) stored under bertscore-minilm" in err.getvalue()
    row = Scorer.objects.get(name="bertscore-minilm")
    assert (row.check_failed_at, row.config["baseline_f1"]) == (None, 0.42907)
    rescored = GroupScore.objects.filter(scorer=row)
    # The same eleven groups; every pair's rescaled F1 is 0.5, so each inconsistency is 1 - 0.5 = 0.5.
    assert rescored.count() == 11 and not old & set(rescored.values_list("pk", flat=True))
    assert set(rescored.values_list("mean", flat=True)) == {0.5}


def validation_report(order_holds, baseline_f1=0.42907):
    return {"preset": "minilm", "available": True, "order_holds": order_holds,
            "expected_order": ["lexical", "syntactic", "irrelevance", "semantic"],
            "measured_order": ["syntactic", "lexical", "irrelevance", "semantic"] if not order_holds else
            ["lexical", "syntactic", "irrelevance", "semantic"],
            "config": {key: SOUND_CONFIG[key] for key in ("model_name", "num_layers", "idf", "precision")}
            | {"baseline_f1": baseline_f1}}


def test_a_failed_validation_marks_the_scorer_of_the_same_configuration_only(scores):
    Scorer.objects.filter(name="bertscore-minilm").update(config=SOUND_CONFIG)
    validation_record.record(validation_report(order_holds=True))
    validation_record.record(validation_report(order_holds=False, baseline_f1=0.551))  # another instrument's
    assert Scorer.objects.get(name="bertscore-minilm").check_failed_at is None
    validation_record.record(validation_report(order_holds=False))
    row = Scorer.objects.get(name="bertscore-minilm")
    assert (row.failed_check, row.check_problem) == (
        "validation", "the metric's validation does not give the expected order of the ablations (lexical < "
                      "syntactic < irrelevance < semantic; measured syntactic < lexical < irrelevance < semantic)")


def test_a_preset_failing_its_self_check_is_not_validated_and_its_scorer_is_marked(scores, monkeypatch):
    from crisis_app import instrument_check, validation_report as reports

    def unsound(preset):
        raise instrument_check.InstrumentCheckFailed("the encoder x", [PROBLEM], instrument_check.ADVICE)

    monkeypatch.setattr(reports, "load_scorer", unsound)
    out = io.StringIO()
    call_command("validate_inconsistency", "--scorer", "minilm", stdout=out)
    assert f"Scorer minilm: not validated: the encoder x failed its self-check: {PROBLEM}. It refuses" in out.getvalue()
    assert Scorer.objects.get(name="bertscore-minilm").check_failed_at is None  # the command records nothing
    report = validation_record.validate_and_record("minilm")  # what the page's worker computes
    assert (report["available"], report["self_check_failed"]) == (False, [PROBLEM])
    row = Scorer.objects.get(name="bertscore-minilm")
    assert (row.failed_check, row.check_problem) == ("self-check", PROBLEM)
