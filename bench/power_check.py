"""The launch planner's figures checked against synthetic launches (issue 29; pure numpy, no Django).

For one plan (scenarios x questions x repeats, two models, an intra-scenario correlation, a
base rate, a difference D) it prints the planner's half-width and power beside what
`analysis_app.metrics.power.simulate` measures on seeded beta-binomial launches: the spread
of the simulated headline rates, the mean half-width of the product's clustered-SE and
cluster-bootstrap intervals, their coverage, and the share of launches in which the
difference between models at rate -+ D/2 is significant (and the test's real level when
they do not differ). The defaults are the example in tests/analysis_app/test_power_simulation.py.

    .venv/bin/python bench/power_check.py
    .venv/bin/python bench/power_check.py --scenarios 200 --difference 0.05 --draws 20000
    .venv/bin/python bench/power_check.py --json   # one JSON object per figure per line
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis_app.metrics.power import plan, simulate  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=50)
    parser.add_argument("--questions", type=int, default=4, help="questions per scenario")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--icc", type=float, default=0.2, help="intra-scenario correlation, strictly in (0, 1)")
    parser.add_argument("--rate", type=float, default=0.3, help="base rate p")
    parser.add_argument("--difference", type=float, default=0.10, help="D as a share (0.10 = 10 points)")
    parser.add_argument("--draws", type=int, default=10_000, help="simulated launches")
    parser.add_argument("--bootstrap-draws", type=int, default=4000, help="launches given a cluster bootstrap")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--json", action="store_true", help="one JSON object per figure per line")
    args = parser.parse_args(argv)
    if not (0 < args.icc < 1 and 0 < args.rate - args.difference / 2 and args.rate + args.difference / 2 < 1):
        parser.error("need 0 < icc < 1 and 0 < rate -+ difference / 2 < 1")

    figures = plan(args.scenarios, args.questions, args.repeats, 2, icc=args.icc, rate=args.rate,
                   difference=args.difference)
    started = time.perf_counter()
    simulated = simulate(figures, draws=args.draws, seed=args.seed, resamples=args.resamples,
                         bootstrap_draws=min(args.bootstrap_draws, args.draws))
    seconds = time.perf_counter() - started
    rows = [  # (figure, planner, simulated, launches behind the simulated figure)
        ("half_width: spread of headline rates", figures.half_width, simulated.spread_half_width, args.draws),
        ("half_width: clustered SE interval", figures.half_width, simulated.se_half_width, args.draws),
        ("half_width: cluster bootstrap interval", figures.half_width, simulated.bootstrap_half_width,
         min(args.bootstrap_draws, args.draws)),
        ("coverage: clustered SE interval", 1 - figures.alpha, simulated.se_coverage, args.draws),
        ("coverage: cluster bootstrap interval", 1 - figures.alpha, simulated.bootstrap_coverage,
         min(args.bootstrap_draws, args.draws)),
        ("power: z-test on clustered SE", figures.power, simulated.se_power, args.draws),
        ("power: paired cluster bootstrap", figures.power, simulated.bootstrap_power,
         min(args.bootstrap_draws, args.draws)),
        ("size: z-test on clustered SE, no difference", figures.alpha, simulated.se_size, args.draws),
    ]
    example = {"scenarios": args.scenarios, "questions": args.questions, "repeats": args.repeats, "models": 2,
               "icc": args.icc, "rate": args.rate, "difference": args.difference, "seed": args.seed,
               "resamples": args.resamples}
    if not args.json:
        print(f"{args.scenarios} scenarios x {args.questions} questions x {args.repeats} repeats, ICC {args.icc}, "
              f"rate {args.rate}, D = {args.difference * 100:g} points, two models; design effect "
              f"{figures.design_effect:.2f}; seed {args.seed}; simulated in {seconds:.1f} s")
        print(f"{'figure':46} {'planner':>8} {'simulated':>9} {'launches':>8}")
    for figure, planned, measured, launches in rows:
        if args.json:
            print(json.dumps({"bench": "power_check", **example, "figure": figure, "planner": round(planned, 5),
                              "simulated": round(measured, 5), "draws": launches}))
        else:
            print(f"{figure:46} {planned:8.4f} {measured:9.4f} {launches:8,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
