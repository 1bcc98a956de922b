"""The BorderLines scores of the answers in the database: the concurrence table (with
bootstrap intervals over territories) and the per-territory case view."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from . import concurrence
from .report_frames import BorderlinesFilter, answer_frame, territory_frame

# The report's columns, in the order `borderlines_report` writes them.
REPORT_COLUMNS = ["model", "strategy", "kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs",
                  "consistency_cs", "consistency_cs_unknown", "mean_countries", "mean_countries_with_control",
                  "random_baseline", "n_known", "n_territories"]
CASE_COLUMNS = ["model", "strategy", "repeat", "territory", "language", "role", "status", "answer_claimant",
                "names_controller"]


@dataclass
class BorderlinesReport:
    scores: pd.DataFrame  # concurrence.output_columns()
    cases: pd.DataFrame  # concurrence.case_view's columns, in the languages picked
    territories: pd.DataFrame
    answers: int
    unresolved: int  # answers placed on no claimant: with reviewers, refusals (R) and invalid (X) together
    # Every language's case: the map reads the scores' answers, not the case view's languages.
    all_cases: pd.DataFrame | None = None
    refusals: int = 0  # of `unresolved`: coded R
    invalid: int = 0  # of `unresolved`: coded X (names no claimant, refuses nothing)


def _concurrence_territories(territories: pd.DataFrame) -> pd.DataFrame:
    return territories[["territory", "controller", "claimants", "claimant_languages"]]


def build(filters: BorderlinesFilter, iterations: int = 1000, seed: int = 0) -> BorderlinesReport:
    territories = territory_frame(filters)
    answers = answer_frame(filters, territories)
    plain = _concurrence_territories(territories)
    scored = answers.drop(columns=["run", "code"])
    scores = concurrence.concurrence_table(scored, plain, iterations=iterations, seed=seed)
    all_cases = concurrence.case_view(scored, plain)
    cases = all_cases[all_cases["language"].isin(filters.languages)] if filters.languages else all_cases
    return BorderlinesReport(scores=scores, cases=cases.reset_index(drop=True), territories=territories,
                             answers=len(answers), unresolved=int(answers["answer_claimant"].isna().sum()),
                             all_cases=all_cases, refusals=int((answers["code"] == "R").sum()),
                             invalid=int((answers["code"] == "X").sum()))
