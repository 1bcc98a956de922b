"""Progress and spending of many runs from one grouped query: the rows are the responses
grouped by (run, status), each with its count, cached count, token sums, cost and the cost
of calls not answered from the cache. No Django here: rows in, plain values out.

The figures equal `services.progress` and `execution.spent` for each run (the API's tests
check it): SQL's SUM skips NULLs and is NULL only when every value is, and a sum of the
per-status sums is the sum over the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

SPENT = ("done", "failed")  # what counts against a budget (execution.spent)


@dataclass
class RunState:
    pending: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    cancelled: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: Decimal | None = None  # US$, None when no answer has a price (as SQL's SUM)
    spent_usd: Decimal = field(default_factory=Decimal)
    spent_units: int = 0

    @property
    def total(self) -> int:
        return self.pending + self.running + self.done + self.failed + self.cancelled


def fold(run_ids, rows) -> dict[int, RunState]:
    """One RunState per run id (runs without responses: all zero), from rows with keys
    run_id, status, n, cached, prompt, completion, priced (the sum of cost) and paid
    (the sum of cost over calls not answered from the cache)."""
    states = {run_id: RunState() for run_id in run_ids}
    for row in rows:
        state = states.setdefault(row["run_id"], RunState())
        status = row["status"]
        if status in ("pending", "running", "done", "failed", "cancelled"):
            setattr(state, status, getattr(state, status) + row["n"])
        state.cached += row["cached"] or 0
        state.prompt_tokens += row["prompt"] or 0
        state.completion_tokens += row["completion"] or 0
        if row["priced"] is not None:
            state.cost = (state.cost or Decimal(0)) + Decimal(str(row["priced"]))
        if status in SPENT:
            state.spent_units += row["n"]
            state.spent_usd += Decimal(str(row["paid"] or 0))
    return states
