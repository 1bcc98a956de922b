"""The back-translation score beside each language's figures on the CFPD dashboard's
language panels (issue 41): the pure means, and the panels on the contrast report's data
(`test_language_contrast_report.asked`: s1 and s2 asked in en and zh, approved zh
translations)."""

import math

import pytest

from scenarios_app.analysis import dashboard
from scenarios_app.analysis.tidy_query import AnalysisFilter
from scenarios_app.analysis.translation_scores import language_quality, quality_note
from scenarios_app.models import ScenarioTranslation
from tests.scenarios_app.test_language_contrast_report import asked  # noqa: F401 (the fixture)


def item(chrf, bert, drifted=False):
    return {"chrf": chrf, "bertscore_f1": bert, "drifted": drifted}


S1 = {"template": item(60.0, 0.90), "option_a": item(40.0, 0.70, True)}  # means 50, 0.80
S2 = {"template": item(70.0, 0.86), "option_a": item(80.0, 0.90)}  # means 75, 0.88


def test_the_means_by_hand():
    quality = language_quality([("zh", S1), ("zh", S2), ("ru", {})], ["en", "zh", "ru"], "en")
    zh = quality["zh"]
    # chrF (50 + 75) / 2 = 62.5; BERTScore (0.80 + 0.88) / 2 = 0.84; 1 field drifted
    assert (zh.translations, zh.scored, zh.chrf, zh.drifted) == (2, 2, pytest.approx(62.5), 1)
    assert zh.bertscore_f1 == pytest.approx(0.84)
    assert quality["ru"].chrf is None and quality["en"].translations == 0
    assert quality_note(quality, "en") == (
        " Translation quality (back-translation against the source, mean of the approved translations used): "
        "en: the source language; zh: chrF 62.5, BERTScore F1 0.84 (2 of 2 translations used back-translated; "
        "1 field drifted); ru: no back-translation (1 translation used).")


def test_a_translation_without_bertscore_counts_its_chrf_alone():
    quality = language_quality([("zh", {"template": item(30.0, None)}), ("zh", S2)], ["zh"], "en")
    # chrF (30 + 75) / 2 = 52.5; BERTScore from S2 alone: 0.88
    assert quality["zh"].chrf == pytest.approx(52.5) and quality["zh"].bertscore_f1 == pytest.approx(0.88)


@pytest.fixture(autouse=True)
def board_built_in_the_request(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False


@pytest.mark.django_db
def test_the_language_panels_show_no_back_translation_then_the_scores(asked):  # noqa: F811
    board = dashboard.build(AnalysisFilter(), iterations=200)
    assert "zh: no back-translation (2 translations used)" in board.panels["languages"].note
    assert "zh: no back-translation (2 translations used)" in board.panels["language_contrasts"].note
    assert board.panels["languages"].table["back_translation_chrf"].isna().all()
    for key, scores in (("s1", S1), ("s2", S2)):
        ScenarioTranslation.objects.filter(scenario__key=key, language="zh").update(scores=scores)
    board = dashboard.build(AnalysisFilter(), iterations=200)
    note = board.panels["languages"].note
    assert "zh: chrF 62.5, BERTScore F1 0.84 (2 of 2 translations used back-translated; 1 field drifted)" in note
    assert "en: the source language" in note
    rates = board.panels["languages"].table.set_index("language")
    zh = list(rates.loc["zh", "back_translation_chrf"])
    assert zh and zh == pytest.approx([62.5] * len(zh))
    assert all(math.isnan(v) for v in rates.loc["en", "back_translation_chrf"])
