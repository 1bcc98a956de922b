"""One table from the benches' JSON lines: bench | configuration | figure | unit.

Each bench script prints, with `--json`, one JSON object per measured configuration on its
own line; scripts/bench collects them in var/bench/latest.jsonl and prints them with this
module. No Django here. A record's row:

* configuration: its ``configuration`` if it has one, else its other plain values
  (``system=litellm processes=2 ...``, keys in the record's order), figures left out;
* figure: its ``ratio`` if it has one, else ``seconds``, else ``throughput`` (the first
  present, a number or null);
* unit: its ``unit`` if it has one (a record names what its headline figure is), else
  "ratio", "s" or "/s";
* a record with ``skipped`` shows "skipped" and the reason.

    .venv/bin/python bench/table.py var/bench/latest.jsonl
    ... | .venv/bin/python bench/table.py          # the lines on stdin
"""

from __future__ import annotations

import json
import sys

FIGURES = (("ratio", "ratio"), ("seconds", "s"), ("throughput", "/s"))
# What a record measured rather than how it was configured: left out of a built configuration.
MEASURED = {"bench", "unit", "skipped", "ratio", "seconds", "throughput", "ideal", "failed", "rss_mib",
            "cpu_ms_per_answer", "server_cpu_ms_per_answer", "max_in_flight", "steady_ratio", "wall_s", "launch_s",
            "overhead_ms", "worker_cpu_ms", "mean_seconds", "median_seconds", "p90_seconds", "max_seconds",
            "cpu_seconds", "peak_mib", "total_s", "samples_s", "inspect_stats_s"}
HEADER = ("bench", "configuration", "figure", "unit")


def number(value) -> str:
    """A figure as people read it: about three significant digits, thousands separated."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    if size >= 1 or size == 0:
        return f"{value:.2f}"
    return f"{value:.3g}"


def configuration(record: dict) -> str:
    if record.get("configuration") is not None:
        return str(record["configuration"])
    return " ".join(f"{key}={value}" for key, value in record.items()
                    if key not in MEASURED and isinstance(value, (str, int, float)) and not isinstance(value, bool))


def row(record: dict) -> tuple[str, str, str, str]:
    """The table's row of one record."""
    bench = str(record.get("bench", "?"))
    if record.get("skipped"):
        return bench, configuration(record), "skipped", str(record["skipped"])
    for key, unit in FIGURES:
        if key in record:
            return bench, configuration(record), number(record[key]), str(record.get("unit") or unit)
    return bench, configuration(record), "-", "no figure"


def format_table(records: list[dict]) -> str:
    """The records as one Markdown table, columns padded to line up."""
    rows = [HEADER] + [row(record) for record in records]
    widths = [max(len(cells[k]) for cells in rows) for k in range(len(HEADER))]
    right = {2}  # figures line up on the right

    def line(cells):
        return "| " + " | ".join(cell.rjust(w) if k in right else cell.ljust(w)
                                 for k, (cell, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" if k in right else "-" * (w + 2) for k, w in enumerate(widths)) + "|"
    return "\n".join([line(rows[0]), rule] + [line(cells) for cells in rows[1:]])


def read_records(lines) -> list[dict]:
    """The JSON objects among the lines; anything else (a bench's messages) is passed over."""
    records = []
    for text in lines:
        text = text.strip()
        if not text.startswith("{"):
            continue
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def main(argv: list[str]) -> None:
    if argv:
        lines = [line for path in argv for line in open(path, encoding="utf-8")]
    else:
        lines = sys.stdin.readlines()
    print(format_table(read_records(lines)))


if __name__ == "__main__":
    main(sys.argv[1:])
