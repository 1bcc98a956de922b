"""A panel of people's concurrence scores (territories_app.people_scores, issue 40):
normalised over territories as a model's, the interval clustered by respondent and
territory; hand-checked."""

import pandas as pd
import pytest

from territories_app.people_scores import COLUMNS, people_scores

Z = 1.959963984540054
TERRITORIES = pd.DataFrame([
    {"territory": "T1", "controller": "A", "claimants": ["A", "B"], "claimant_languages": {"A": "xa", "B": "xb"}},
    {"territory": "T2", "controller": "B", "claimants": ["A", "B"], "claimant_languages": {"A": "xa", "B": "xb"}},
    {"territory": "T3", "controller": None, "claimants": ["A", "B"], "claimant_languages": {"A": "xa", "B": "xb"}}])


def _answers(rows):
    return pd.DataFrame([("People: P", *row) for row in rows],
                        columns=["people", "respondent", "territory", "language", "answer_claimant"])


def test_scores_by_hand():
    table = people_scores(_answers([
        ("r1", "T1", "en", "A"), ("r2", "T1", "en", "B"), ("r1", "T2", "en", "B"),  # KB
        ("r1", "T1", "xa", "A"), ("r2", "T2", "xb", "B"),  # Control (the controller's language)
        ("r2", "T1", "xb", "B"), ("r1", "T2", "xa", "A"),  # Non-control
        ("r1", "T3", "en", "A"),  # no known controller: in no score
        ("r2", "T2", "en", None)]), TERRITORIES)  # unresolved: left out
    assert list(table.columns) == COLUMNS
    table = table.set_index("score")
    kb = table.loc["kb_cs"]
    # KB: T1 r1 names A (1), r2 B (0) -> 1/2; T2 r1 names B (1) -> 1; mean 3/4 = 75 %.
    # Weights 1/2, 1/2, 1 (W = 2); weighted residuals w(x - 3/4): r1 T1 1/8, r2 T1 -3/8, r1 T2 1/4.
    # By respondent: r1 3/8, r2 -3/8 -> 18/64; by territory: T1 -1/4, T2 1/4 -> 8/64; each alone
    # 1/64 + 9/64 + 4/64 = 14/64. V = (18 + 8 - 14)/64 / W² = 12/256 -> SE sqrt(12)/16 = 21.65 points.
    assert kb["rate"] == pytest.approx(75.0)
    assert kb["se_clustered"] == pytest.approx(100 * 12 ** 0.5 / 16)
    assert (kb["ci_low"], kb["ci_high"]) == (pytest.approx(75 - Z * 100 * 12 ** 0.5 / 16), 100.0)
    assert (kb["n_territories"], kb["n_respondents"], kb["n_answers"]) == (2, 2, 3)
    assert table.loc["control_cs", "rate"] == 100.0  # T1 A in xa, T2 B in xb
    assert table.loc["non_control_cs", "rate"] == 0.0  # T1 B in xb, T2 A in xa
    assert list(table.index) == ["kb_cs", "control_cs", "non_control_cs"]


def test_an_english_claimant_answer_is_both_kb_and_in_language():
    territories = pd.DataFrame([{"territory": "G", "controller": "UK", "claimants": ["UK", "Spain"],
                                 "claimant_languages": {"UK": "en", "Spain": "es"}}])
    table = people_scores(_answers([("r1", "G", "en", "UK"), ("r1", "G", "es", "UK")]), territories)
    assert table.set_index("score")["rate"].to_dict() == {"kb_cs": 100.0, "control_cs": 100.0,
                                                          "non_control_cs": 100.0}


def test_no_answers_no_rows():
    assert people_scores(_answers([]), TERRITORIES).empty
    assert people_scores(_answers([("r1", "T3", "en", "A")]), TERRITORIES).empty
