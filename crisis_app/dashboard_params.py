"""The crisis inconsistency page's query parameters, read once for the page, its CSVs and
the API; a bad one raises kit.params.BadParameter naming it.

benchmark (a free-form benchmark; default the one scored last), scorer (one: charts of
two scorers do not share a scale; default the first present, BERTScore first), model
(repeated), move (1 or 2; empty for both), continuation (repeated), run (repeated),
group (the group score whose divergent pairs are shown; default the most inconsistent),
iterations and seed (the bootstrap over runs), adjust (the contrasts' correction: bh for
Benjamini–Hochberg, the default, or holm).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis_app.params import adjustment
from kit.params import BadParameter, integer, integers, optional_integer, text, texts

from .queries import CrisisFilter

LABELS = {"benchmark": "Benchmark", "scorer": "Scorer", "model": "Models", "move": "Move",
          "continuation": "Continuation", "run": "Runs", "group": "Group", "iterations": "Bootstrap iterations",
          "seed": "Seed", "adjust": "Correction"}
PARAMETERS = tuple(LABELS)

__all__ = ["BadParameter", "Options", "parse", "LABELS", "PARAMETERS"]


@dataclass(frozen=True)
class Options:
    group: int | None = None
    iterations: int = 1000
    seed: int = 0
    adjust: str = "bh"


def parse(query) -> tuple[CrisisFilter, Options]:
    """The filter (benchmark and scorer still unresolved when absent: views pick defaults)
    and the options. Names are checked against the database by queries.unknown_names."""
    scorer = text(query, "scorer", max_length=64)
    move = optional_integer(query, "move", minimum=1, maximum=2)
    filters = CrisisFilter(
        benchmark=text(query, "benchmark", max_length=64) or None, runs=integers(query, "run"),
        scorers=(scorer,) if scorer else (), models=texts(query, "model", max_length=80),
        moves=(move,) if move else (), continuations=texts(query, "continuation", max_length=64))
    options = Options(group=optional_integer(query, "group", minimum=1),
                      iterations=integer(query, "iterations", default=1000, minimum=100, maximum=10_000),
                      seed=integer(query, "seed", default=0, minimum=0, maximum=2**31 - 1),
                      adjust=adjustment(query))
    return filters, options
