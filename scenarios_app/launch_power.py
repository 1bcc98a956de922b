"""CFPD's power figures for the launch plan (issue 29), given to the core through the family
registry (`Family.power`): per (domain, choice_count) of the questions a launch selects, the
expected half-width of a model's headline rate and the power to detect a difference of D
points between two models, and the scenarios ±D would need (`analysis_app.metrics.power`).

The intra-scenario correlation comes from earlier answers to the same benchmark where
there are any (`analysis.metrics.design.scenario_icc` over its runs' coded answers), else
the assumed default, and the plan says which."""

from __future__ import annotations

from collections import Counter

from analysis_app.metrics.power import DEFAULT_DIFFERENCE, plan

METHOD = ("Planner: Var(rate) = p(1 − p) × DE / (S × m), DE = 1 + (m − 1) × ICC (Kish), p = 0.5 (the widest), "
          "m = questions per scenario × repeats; power of a two-sided test at 5 % for a difference between two "
          "models (no credit taken for pairing: a floor), and at 5 % / pairs of models (Bonferroni).")


def earlier_icc(benchmark) -> tuple[float | None, str]:
    """(ICC, where it came from) from the benchmark's earlier coded answers, or (None, "")."""
    from runs_app.models import Run

    from .analysis.metrics.design import scenario_icc
    from .analysis.tidy_query import AnalysisFilter, tidy_with_categories

    runs = tuple(Run.objects.filter(benchmark=benchmark).values_list("pk", flat=True))
    if not runs:
        return None, ""
    table = tidy_with_categories(AnalysisFilter(runs=runs), by_actor=False).table
    icc, answers = scenario_icc(table)
    if answers == 0 or icc != icc:  # no answers, or undefined (NaN)
        return None, ""
    return icc, f"estimated from {answers:,} earlier coded answers to this benchmark"


def power_figures(benchmark, question_ids: list[int], repeats: int, models: int,
                  difference: float = DEFAULT_DIFFERENCE) -> dict:
    """Plain values for the plan: one row per (domain, choice_count), the ICC and the method."""
    from .models import ScenarioQuestion

    forms: dict[tuple[str, int], Counter] = {}
    rows = (ScenarioQuestion.objects.filter(question_id__in=list(question_ids))
            .values_list("domain__name", "question__choice_count", "scenario_id", "variant"))
    for domain, choice_count, scenario, variant in rows.iterator(chunk_size=5000):
        forms.setdefault((domain, int(choice_count)), Counter())[(scenario, variant)] += 1
    icc, source = earlier_icc(benchmark)
    figures = []
    for (domain, choice_count), per_scenario in sorted(forms.items()):
        scenarios = len(per_scenario)
        questions = sum(per_scenario.values()) / scenarios
        figure = plan(scenarios, questions, repeats, models, icc=icc, icc_source=source, difference=difference)
        figures.append({"domain": domain, "choice_count": choice_count, "scenarios": scenarios,
                        "questions_per_scenario": round(questions, 2), "answers_per_scenario": figure.per_scenario,
                        "half_width": figure.half_width, "power": figure.power,
                        "power_adjusted": figure.power_adjusted,
                        "scenarios_for_half_width": figure.scenarios_for_half_width,
                        "scenarios_for_power": figure.scenarios_for_power})
    used = figures and plan(1, 1, 1, models, icc=icc, icc_source=source)
    return {"difference": difference, "repeats": repeats, "models": models,
            "comparisons": used.comparisons if used else 0, "icc": used.icc if used else icc,
            "icc_source": used.icc_source if used else source, "forms": figures, "method": METHOD}
