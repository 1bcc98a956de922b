"""CFPD's metrics for its dashboard (no Django): every function takes the
tidy table of `tidy.py` (one row per answer, or per n identical answers with the
optional weight column n) and returns a DataFrame.

- `rates`: scenario-normalised rates (paper 000, 3.6), by action;
- `bootstrap`: percentile CIs over scenarios (4.1; the resampling is `analysis_app.metrics`);
- `repeats`: mean and sd across sampling passes (3.7);
- `refusals`: refusal rate, missing and unresolved counts;
- `entropy`: Shannon entropy of the answers (B.3);
- `countries`: rates by qualified actor and by dyad (4.2);
- `differences`: pairwise model differences, permutation tests, Holm (4.1, 5);
- `robustness`: focus-complete scenarios (4.3, B.2);
- `report`: the one-call preference table behind the CSV report.
"""

from .bootstrap import scenario_bootstrap
from .countries import country_rates, dyad_rates
from .differences import model_differences
from .entropy import domain_entropy, scenario_entropy, shannon_entropy
from .rates import action_rates, domain_rates, mean_over_scenarios, scenario_rates
from .refusals import outcome_summary, refusals_by_actor, refusals_by_domain, refusals_by_model
from .repeats import repeat_rates, repeat_summary, summarise_repeats
from .report import preference_table
from .robustness import focus_complete, focus_complete_scenarios, robustness_rates
from .tidy import COLUMNS, OUTCOMES, WEIGHT, pooled, validate, weights

__all__ = [
    "COLUMNS", "OUTCOMES", "WEIGHT", "action_rates", "country_rates", "domain_entropy",
    "domain_rates", "dyad_rates", "focus_complete", "focus_complete_scenarios", "mean_over_scenarios",
    "model_differences",
    "outcome_summary", "pooled", "preference_table", "refusals_by_actor", "refusals_by_domain", "refusals_by_model",
    "repeat_rates", "repeat_summary", "robustness_rates", "scenario_bootstrap", "scenario_entropy",
    "scenario_rates", "shannon_entropy", "summarise_repeats", "validate", "weights",
]
