"""Panels of people on the territorial-disputes page (issue 40; no Django): a panel's
concurrence scores beside the models', never among them.

A person answers some of a territory's questions (one language each), not a model's whole
pass over every language, so of the paper's scores (`concurrence`) a panel gets the three
that are shares of single answers, over the territories with a known controller k:

- KB CS: its English (control) answers naming k;
- Control CS: its answers in k's language naming k;
- Non-control CS: its answers in the other claimants' languages naming k.

Each is normalised over territories as a model's: the share within each territory (its
people's answers entering that score), then the mean over the territories, in percent;
written as one weighted mean, each answer weighing 1 / (the answers of its territory in that
score). Its interval is rate ± z·SE, the SE clustered two ways, by respondent and by
territory (`analysis_app.metrics.clustered.two_way_clustered_se`, as a panel's rates on the
CFPD page), cut at 0 and 100. Unresolved answers (no claimant) are left out, as a model's.
Consistency and the countries named need one person's answers in every language of a
territory and are not computed for people.

Input columns: people (the panel's label), respondent, territory, language, answer_claimant.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from analysis_app.metrics.clustered import two_way_clustered_se

from .concurrence import CONTROL_LANGUAGE, read_territories

CONFIDENCE = 0.95
SCORES = {"kb_cs": "KB CS", "control_cs": "Control CS", "non_control_cs": "Non-control CS"}
COLUMNS = ["people", "score", "rate", "ci_low", "ci_high", "se_clustered", "n_territories", "n_respondents",
           "n_answers"]


def _entries(answers: pd.DataFrame, territories: pd.DataFrame) -> pd.DataFrame:
    """One row per (answer, score it enters) with `named` (the answer names the controller)."""
    specs = read_territories(territories)
    rows = []
    for people, respondent, territory, language, claimant in answers[
            ["people", "respondent", "territory", "language", "answer_claimant"]].itertuples(index=False):
        spec = specs.get(territory)
        if spec is None or spec.controller is None or claimant is None or claimant != claimant:
            continue
        named = float(claimant == spec.controller)
        scores = []
        if language == CONTROL_LANGUAGE:  # an English claimant's answer is also in-language (one question)
            scores.append("kb_cs")
        if language == spec.controller_language:
            scores.append("control_cs")
        elif language in spec.languages:
            scores.append("non_control_cs")
        rows.extend((people, respondent, territory, score, named) for score in scores)
    return pd.DataFrame(rows, columns=["people", "respondent", "territory", "score", "named"])


def people_scores(answers: pd.DataFrame, territories: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """One row per (people, score) with an answer entering it: the territory-normalised share
    naming the controller, in percent, with its interval clustered by respondent and territory."""
    entries = _entries(answers, territories) if len(answers) else pd.DataFrame()
    if entries.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    z = float(norm.ppf(0.5 + confidence / 2))
    rows = []
    for (people, score), part in entries.groupby(["people", "score"], sort=True):
        weights = 1.0 / part.groupby("territory")["named"].transform("size").to_numpy(dtype=float)
        named = part["named"].to_numpy(dtype=float)
        rate = float((weights * named).sum() / weights.sum())
        se = two_way_clustered_se(named, part["respondent"].to_numpy(), part["territory"].to_numpy(), weights)
        rows.append([people, score, 100 * rate, 100 * max(0.0, rate - z * se), 100 * min(1.0, rate + z * se),
                     100 * se, part["territory"].nunique(), part["respondent"].nunique(), len(part)])
    table = pd.DataFrame(rows, columns=COLUMNS)
    order = {score: i for i, score in enumerate(SCORES)}
    return table.sort_values(["people", "score"], key=lambda c: c.map(order) if c.name == "score" else c,
                             ignore_index=True)
