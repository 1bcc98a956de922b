"""runs_app.page_progress: a page's progress folded from (run, status) groups."""

from decimal import Decimal

from runs_app.page_progress import RunState, fold


def row(run_id, status, n, cached=0, prompt=None, completion=None, priced=None, paid=None):
    return {"run_id": run_id, "status": status, "n": n, "cached": cached, "prompt": prompt,
            "completion": completion, "priced": priced, "paid": paid}


def test_it_folds_the_groups_of_each_run():
    states = fold([1, 2, 3], [
        row(1, "done", 4, cached=1, prompt=400, completion=4, priced=Decimal("0.40"), paid=Decimal("0.30")),
        row(1, "failed", 1, priced=None, paid=None),
        row(1, "pending", 3),
        row(1, "cancelled", 2, priced=Decimal("0.05"), paid=Decimal("0.05")),
        row(2, "running", 5),
    ])
    one = states[1]
    # 4 done + 1 failed + 3 pending + 2 cancelled = 10.
    assert (one.total, one.done, one.failed, one.pending, one.cancelled) == (10, 4, 1, 3, 2)
    # cost: 0.40 + 0.05 (every status); spent: done and failed only, not cached: 0.30 US$, 4 + 1 units.
    assert one.cost == Decimal("0.45") and one.spent_usd == Decimal("0.30") and one.spent_units == 5
    assert (one.cached, one.prompt_tokens, one.completion_tokens) == (1, 400, 4)
    assert states[2].total == 5 and states[2].running == 5 and states[2].cost is None
    assert states[3] == RunState() and states[3].total == 0  # a run without answers


def test_a_run_whose_answers_have_no_price_has_no_cost():
    assert fold([7], [row(7, "done", 2), row(7, "failed", 1)])[7].cost is None
