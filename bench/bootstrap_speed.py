"""Speed of the scenario bootstrap and of the preference table (pure pandas/numpy, no Django).

1. A synthetic scenario-rate table of 400 scenarios x 8 models x 3 categories (one
   three-option domain): time `scenario_bootstrap` with 2,000 iterations (all 8 model
   groups) and the core `bootstrap_ci` on one model's 400 x 3 matrix.
2. A synthetic tidy table of ~200k answers (8 models, 400 scenarios over the six
   domain forms, ~5% refusals, ~1% missing): time `preference_table`.
3. The same table collapsed as the Django side hands it over (GROUP BY every column but
   question_key, the count in the weight column n): time `preference_table` again. The
   actors are drawn per answer here, so few answers are identical and the collapse is
   small; this line measures the weighted path, not the saving of a real collapse.

Prints best and mean of the repeats, and peak memory traced by tracemalloc (numpy
reports its buffers to it) during one extra call.

    .venv/bin/python bench/bootstrap_speed.py
    .venv/bin/python bench/bootstrap_speed.py --iterations 5000 --repeats 10
    .venv/bin/python bench/bootstrap_speed.py --repeats 2 --json   # one JSON object per case per line
"""

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis_app.metrics.bootstrap import bootstrap_ci  # noqa: E402
from scenarios_app.analysis.metrics.bootstrap import scenario_bootstrap  # noqa: E402
from scenarios_app.analysis.metrics.report import preference_table  # noqa: E402
from scenarios_app.analysis.metrics.tidy import COLUMNS, WEIGHT  # noqa: E402

FORMS = [  # (domain, choice_count, categories)
    ("Escalation", 2, ["No use of force", "Use of force"]),
    ("Escalation", 3, ["No use of force", "Threat to use of force", "Use of force"]),
    ("Cooperation", 2, ["Cooperative", "Non-cooperative"]),
    ("Intervention", 2, ["High intervention", "No intervention"]),
    ("Intervention", 3, ["High intervention", "Middle intervention", "No intervention"]),
    ("Alliance Dynamics", 2, ["Balancing", "Bandwagoning", "Buck passing", "Power maximisation"]),
]
ACTORS = ["US", "GB", "CN", "RU", "IN", "FR", "DE", "JP", "MX", "PK", "IR", "UA"]


def scenario_rate_table(scenarios, models, categories, seed=0):
    """Rows like `rates.scenario_rates`: a Dirichlet draw of category rates per (model, scenario)."""
    generator = np.random.default_rng(seed)
    rates = generator.dirichlet(np.ones(len(categories)), size=(models, scenarios))
    index = pd.MultiIndex.from_product([[f"model-{m}" for m in range(models)], [f"s{s:03d}" for s in range(scenarios)],
                                        categories], names=["model", "scenario", "category"])
    frame = pd.DataFrame({"rate": rates.ravel()}, index=index).reset_index()
    return frame.assign(domain="Escalation", choice_count=3)


def tidy_table(rows, models=8, scenarios=400, seed=0):
    """About `rows` answers: each model asked every question of 400 scenarios once."""
    generator = np.random.default_rng(seed)
    per_scenario = rows // (models * scenarios)
    form = generator.integers(0, len(FORMS), size=scenarios)
    n = models * scenarios * per_scenario
    model = np.repeat(np.arange(models), scenarios * per_scenario)
    scenario = np.tile(np.repeat(np.arange(scenarios), per_scenario), models)
    scenario_form = form[scenario]
    lean = generator.random((models, scenarios))[model, scenario]  # each model's taste per scenario
    draw = generator.random(n)
    outcome = np.where(draw < 0.05, "refusal", np.where(draw < 0.06, "missing", "answer"))
    sizes = np.array([len(FORMS[f][2]) for f in scenario_form])
    pick = np.minimum((generator.random(n) * lean * sizes * 1.6).astype(int), sizes - 1)
    category = np.array([FORMS[f][2][k] for f, k in zip(scenario_form, pick)], dtype=object)
    category[outcome != "answer"] = None
    return pd.DataFrame({
        "model": np.array([f"model-{m}" for m in range(models)])[model], "run": 1,
        "question_key": np.arange(n).astype(str), "scenario": np.char.add("s", scenario.astype(str)),
        "domain": np.array([FORMS[f][0] for f in range(len(FORMS))])[scenario_form],
        "choice_count": np.array([FORMS[f][1] for f in range(len(FORMS))])[scenario_form],
        "action": "", "qualified_actor": np.array(ACTORS)[generator.integers(0, len(ACTORS), n)],
        "opposing_actor": np.array(ACTORS)[generator.integers(0, len(ACTORS), n)], "repeat": 0,
        "outcome": outcome, "category": category,
    })


def collapsed(tidy):
    """One row per distinct answer with its count in n, as a GROUP BY in the database gives it."""
    keys = [column for column in COLUMNS if column != "question_key"]
    return tidy.groupby(keys, dropna=False).size().rename(WEIGHT).reset_index()


def timed(function, repeats):
    """(best, mean) wall seconds over `repeats` calls, and peak traced MiB of one more call."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return min(seconds), statistics.mean(seconds), peak / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--json", action="store_true", help="one JSON object per case per line (seconds: the best)")
    args = parser.parse_args()

    categories = ["No use of force", "Threat to use of force", "Use of force"]
    rates = scenario_rate_table(400, 8, categories)
    one_model = rates[rates["model"] == "model-0"].pivot(index="scenario", columns="category", values="rate")
    tidy = tidy_table(args.rows)
    weighted = collapsed(tidy)

    cases = [  # (case, rows, label, function)
        ("scenario_bootstrap", len(rates), f"scenario_bootstrap 400 sc x 8 models x 3 cat, {args.iterations} it",
         lambda: scenario_bootstrap(rates, args.iterations, seed=0)),
        ("bootstrap_ci", len(one_model), f"bootstrap_ci one model 400 x 3, {args.iterations} it",
         lambda: bootstrap_ci(one_model.to_numpy(), args.iterations, seed=0)),
        ("preference_table", len(tidy), f"preference_table {len(tidy):,} rows, {args.iterations} it",
         lambda: preference_table(tidy, args.iterations, seed=0)),
        ("preference_table_collapsed", len(weighted),
         f"preference_table collapsed to {len(weighted):,} rows with n, {args.iterations} it",
         lambda: preference_table(weighted, args.iterations, seed=0)),
    ]
    if not args.json:
        print(f"numpy {np.__version__}, pandas {pd.__version__}; best/mean of {args.repeats}")
        print(f"{'case':<62} {'best s':>8} {'mean s':>8} {'peak MiB':>9}")
    for case, rows, label, function in cases:
        best, mean, peak = timed(function, args.repeats)
        if args.json:
            print(json.dumps({"bench": "bootstrap_speed", "configuration": label, "case": case, "rows": rows,
                              "iterations": args.iterations, "repeats": args.repeats, "seconds": round(best, 4),
                              "mean_seconds": round(mean, 4), "peak_mib": round(peak, 1)}), flush=True)
        else:
            print(f"{label:<62} {best:>8.3f} {mean:>8.3f} {peak:>9.1f}")


if __name__ == "__main__":
    main()
