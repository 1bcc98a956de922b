"""The territorial-disputes page's query parameters, read once for the page, its CSVs and
the API; a bad one raises kit.params.BadParameter naming it."""

from __future__ import annotations

from kit.params import BadParameter, flag, integer, integers, text, texts

from analysis_app.params import adjustment, check_known

from .report_frames import BorderlinesFilter

LABELS = {"benchmark": "Benchmark", "run": "Runs", "model": "Models", "strategy": "Strategies", "region": "Region",
          "claimant": "Claimant", "language": "Language", "unknown": "Unknown only",
          "iterations": "Bootstrap iterations", "seed": "Seed", "adjust": "Correction"}

__all__ = ["BadParameter", "parse", "LABELS"]


def parse(query) -> tuple[BorderlinesFilter, dict]:
    filters = BorderlinesFilter(
        benchmark=text(query, "benchmark", default="borderlines", max_length=64) or "borderlines",
        runs=integers(query, "run"), models=texts(query, "model"), strategies=texts(query, "strategy"),
        regions=texts(query, "region"), claimants=texts(query, "claimant"), languages=texts(query, "language"),
        unknown_only=flag(query, "unknown"))
    options = {"iterations": integer(query, "iterations", default=1000, minimum=100, maximum=10_000),
               "seed": integer(query, "seed", default=0, minimum=0, maximum=2**31 - 1),
               "adjust": adjustment(query)}
    check_known(filters.runs, filters.models)  # "run 999 does not exist", not an empty page
    return filters, options
