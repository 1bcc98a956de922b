"""Pivot of question counts for people to read: one row per (domain, choice count),
one column per focus actor, then every other qualified actor together. Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CountTable:
    columns: list[str]
    rows: list[tuple[str, int, list[int], int]]  # domain, choice count, cells, row total
    totals: list[int]
    total: int


def pivot_counts(rows, focus: list[str]) -> CountTable:
    """`rows` carry .domain, .choice_count, .qualified_actor and .questions."""
    columns = list(focus) + ["other"]
    cells: dict[tuple[str, int], list[int]] = {}
    for row in rows:
        line = cells.setdefault((row.domain, row.choice_count), [0] * len(columns))
        column = columns.index(row.qualified_actor) if row.qualified_actor in focus else len(focus)
        line[column] += row.questions
    table_rows = [(domain, count, line, sum(line)) for (domain, count), line in cells.items()]
    totals = [sum(line[i] for *_, line, _ in table_rows) for i in range(len(columns))]
    return CountTable(columns, table_rows, totals, sum(totals))


def format_counts(table: CountTable) -> str:
    """The table as fixed-width text, for `benchmark_stats`."""
    header = ["domain", "choices"] + table.columns + ["total"]
    lines = [[domain, str(count)] + [str(c) for c in cells] + [str(total)] for domain, count, cells, total in table.rows]
    lines.append(["all", ""] + [str(t) for t in table.totals] + [str(table.total)])
    widths = [max(len(row[i]) for row in [header] + lines) for i in range(len(header))]
    render = lambda row: "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)  # noqa: E731
                                   for i, (cell, w) in enumerate(zip(row, widths)))
    return "\n".join([render(header)] + [render(row) for row in lines])
