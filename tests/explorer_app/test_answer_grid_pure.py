"""explorer_app.grid (cells from the database's counts) and explorer_app.comparison (two runs'
answers matched, their changes counted, rates before and after with Newcomb's paired
interval): hand-checked cases with the arithmetic beside them, and hypothesis for the
rules that hold for every input."""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer_app import comparison, grid
from explorer_app.comparison import Answer, match, paired_difference


# --- grid ---------------------------------------------------------------------------------------

def test_a_cell_counts_labels_and_shows_the_top_one_with_its_share():
    counts = [grid.CountRow("q1", "m1", "B", "done", 2, 17), grid.CountRow("q1", "m1", "", "failed", 1, 12),
              grid.CountRow("q1", "m2", "A", "done", 1, 30), grid.CountRow("q2", "m1", "", "pending", 3, 40)]
    cells = grid.cells(counts)
    cell = cells[("q1", "m1")]
    assert (cell.n, dict(cell.counts)) == (3, {"B": 2, "failed": 1})
    assert cell.top == "B" and cell.share == pytest.approx(2 / 3) and cell.shown == "B 2/3"
    assert cell.first_id == 12 and cell.answer_id is None  # three answers: the list opens, not one
    assert cell.title == "B 2, failed 1 of 3 answers"
    single = cells[("q1", "m2")]
    assert (single.shown, single.answer_id, single.category, single.colour) == ("A", 30, "option", "#1f5fa8")
    waiting = cells[("q2", "m1")]
    assert (waiting.top, waiting.shown, waiting.category, waiting.light) == ("open", "… 3/3", "open", True)


def test_a_tie_goes_to_the_first_label_in_order():
    cell = grid.cells([grid.CountRow(1, 1, "R", "done", 1, 5), grid.CountRow(1, 1, "C", "done", 1, 6)])[(1, 1)]
    assert cell.top == "C"  # C before R in LABEL_ORDER; share 1/2
    assert cell.shown == "C 1/2"


def test_labels_of_answers_without_a_code():
    assert [grid.label_of("", s) for s in ("done", "failed", "cancelled", "pending", "running")] == [
        "uncoded", "failed", "cancelled", "open", "open"]
    assert grid.label_of("X", "done") == "X" and grid.category_of("X") == "invalid"


def test_the_option_colours_are_the_products_palette():
    from analysis_app.panels import PALETTE
    assert grid.PALETTE == PALETTE
    assert grid.colour_of("A") == PALETTE[0] and grid.colour_of("C") == PALETTE[2]
    assert grid.colour_of("R") not in PALETTE and grid.colour_of("failed") not in PALETTE


def test_light_colours_take_dark_text():
    # #edae49 (D): luminance 0.2126·0.846 + 0.7152·0.423 + 0.0722·0.066 ≈ 0.49 > 0.4 → light
    assert grid.is_light("#edae49") and grid.is_light("#ffffff")
    # #1f5fa8 (A): ≈ 0.2126·0.014 + 0.7152·0.115 + 0.0722·0.392 ≈ 0.11 → dark
    assert not grid.is_light("#1f5fa8")


def test_pages():
    assert [grid.pages(n, 50) for n in (0, 1, 50, 51, 1000)] == [1, 1, 1, 2, 20]


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from(["A", "B", "R", ""]),
                          st.sampled_from(["done", "failed", "pending"]), st.integers(1, 5)), max_size=30))
def test_a_cells_counts_sum_to_its_answers(groups):
    rows = [grid.CountRow(r, m, c, s, n, i) for i, (r, m, c, s, n) in enumerate(groups)]
    for (row, model), cell in grid.cells(rows).items():
        assert sum(cell.counts.values()) == cell.n == sum(g.n for g in rows if (g.row, g.model) == (row, model))
        assert cell.counts[cell.top] == max(cell.counts.values())
        assert 0 < cell.share <= 1


# --- comparison: matching and changes ----------------------------------------------------------------

def _a(i, q, m, code, condition=1, repeat=0):
    return Answer(i, q, m, condition, repeat, code)


RUN_A = [_a(1, "q0", "m1", "A"), _a(2, "q0", "m2", "A"), _a(3, "q1", "m1", "B"), _a(4, "q1", "m2", "B"),
         _a(5, "q1", "m2", "B", repeat=1), _a(6, "q2", "m1", ""), _a(7, "q2", "m2", "A")]
RUN_B = [_a(11, "q0", "m1", "A"), _a(12, "q0", "m2", "B"), _a(13, "q1", "m1", "R"), _a(14, "q1", "m2", "B"),
         _a(15, "q1", "m2", "A", repeat=1), _a(16, "q2", "m1", "A"), _a(17, "q3", "m1", "A")]


def test_answers_match_by_question_model_condition_and_repeat():
    matching = match(RUN_A, RUN_B)
    assert [(p.a.id, p.b.id) for p in matching.pairs] == [(1, 11), (2, 12), (3, 13), (4, 14), (5, 15), (6, 16)]
    assert (matching.only_a, matching.only_b, matching.ambiguous) == (1, 1, 0)  # q2/m2 in A; q3 in B
    # changes: 2 A→B, 3 B→R, 5 B→A, 6 —→A; 1 and 4 kept their code
    assert comparison.change_counts(matching.pairs) == Counter({("A", "B"): 1, ("B", "R"): 1, ("B", "A"): 1,
                                                                ("", "A"): 1})
    by_model = comparison.change_counts_by(matching.pairs, "model")
    assert by_model == {"m1": Counter({("B", "R"): 1, ("", "A"): 1}),
                        "m2": Counter({("A", "B"): 1, ("B", "A"): 1})}
    by_question = comparison.change_counts_by(matching.pairs, "question")
    assert by_question["q0"] == Counter({("A", "B"): 1}) and sum(by_question["q1"].values()) == 2
    assert comparison.sorted_changes(Counter({("B", "R"): 1, ("A", "B"): 2, ("", "A"): 1})) == [
        ("A", "B", 2), ("B", "R", 1), ("", "A", 1)]  # most first, then code order ("" last)


def test_a_condition_that_differs_matches_nothing_unless_ignored():
    other = [Answer(a.id, a.question, a.model, 2, a.repeat, a.code) for a in RUN_B]
    assert match(RUN_A, other).pairs == []
    assert len(match(RUN_A, other, ignore_condition=True).pairs) == 6


def test_ignoring_the_condition_leaves_out_keys_asked_under_several():
    a = [_a(1, "q", "m", "A", condition=1), _a(2, "q", "m", "B", condition=2), _a(3, "r", "m", "A")]
    b = [_a(11, "q", "m", "A", condition=3), _a(13, "r", "m", "B", condition=3)]
    matching = match(a, b, ignore_condition=True)
    # (q, m, 0) is asked twice in A (conditions 1 and 2): both answers left out; r pairs
    assert [(p.a.id, p.b.id) for p in matching.pairs] == [(3, 13)]
    assert (matching.ambiguous, matching.only_a, matching.only_b) == (2, 0, 1)


# --- comparison: rates and Newcomb's paired interval ----------------------------------------------

def test_newcombs_paired_interval_by_hand():
    # 10 pairs: 5 with the code in both runs, 3 after only, 1 before only, 1 in neither.
    # after = 8/10 = 0.8, before = 6/10 = 0.6, difference 0.2.
    # Wilson 95% of 8/10: [0.4902, 0.9433]; of 6/10: [0.3127, 0.8318].
    # phi = (5·1 − 3·1) / √(8·2·6·4) = 2/√384 = 0.10206.
    # δ = √(0.3098² − 2·0.10206·0.3098·0.2318 + 0.2318²) = √(0.09600 − 0.01466 + 0.05374) = √0.13508 = 0.36753
    # ε = √(0.1433² − 2·0.10206·0.1433·0.2873 + 0.2873²) = √(0.02054 − 0.00840 + 0.08256) = √0.09470 = 0.30773
    difference, low, high = paired_difference(5, 3, 1, 1)
    assert difference == pytest.approx(0.2)
    assert low == pytest.approx(0.2 - 0.36753, abs=2e-4) and high == pytest.approx(0.2 + 0.30773, abs=2e-4)


def test_newcombs_interval_at_the_edges():
    # No pair has the code: 0 − 0, each arm the Wilson upper bound of 0/10, z²/(n + z²) = 3.8415/13.8415 = 0.27753.
    assert paired_difference(0, 0, 0, 10) == pytest.approx((0.0, -0.27753, 0.27753), abs=1e-5)
    # Every pair lost it: 0 − 1 = −1; phi 0 (a margin is empty); the upper arm √(0.27753² + 0.27753²) = 0.39249.
    assert paired_difference(0, 0, 10, 0) == pytest.approx((-1.0, -1.0, -1 + 0.39249), abs=1e-5)
    with pytest.raises(ValueError):
        paired_difference(0, 0, 0, 0)


def test_rates_before_and_after():
    rates = {r.code: r for r in comparison.rates(match(RUN_A, RUN_B).pairs)}
    assert list(rates) == ["A", "B", "R", ""]  # code order, "" (no code) last
    # A before: pairs 1, 2 = 2/6; after: 1, 5, 6 = 3/6; 2×2: both 1 (pair 1), after only 2 (5, 6), before only 1 (2)
    a = rates["A"]
    assert (a.before, a.after, a.difference, a.n) == (pytest.approx(2 / 6), pytest.approx(3 / 6),
                                                      pytest.approx(1 / 6), 6)
    assert (a.difference, a.low, a.high) == pytest.approx(paired_difference(1, 2, 1, 2))
    assert not a.excludes_zero
    assert rates[""].before == pytest.approx(1 / 6) and rates[""].after == 0


answers = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2), st.integers(0, 1), st.integers(0, 1),
                             st.sampled_from(["A", "B", "C", "R", ""])), max_size=40)


def _run(rows, offset):
    seen, found = set(), []
    for i, (q, m, c, r, code) in enumerate(rows):
        if (q, m, c, r) not in seen:  # a run holds one answer per unit (the unique constraint)
            seen.add((q, m, c, r))
            found.append(Answer(offset + i, q, m, c, r, code))
    return found


@settings(max_examples=150)
@given(answers, answers, st.booleans())
def test_changes_sum_to_the_changed_pairs_and_every_answer_is_accounted_for(rows_a, rows_b, ignore):
    run_a, run_b = _run(rows_a, 0), _run(rows_b, 1000)
    matching = match(run_a, run_b, ignore)
    changed = [p for p in matching.pairs if p.a.code != p.b.code]
    assert sum(comparison.change_counts(matching.pairs).values()) == len(changed) == len(matching.changed)
    for by in ("model", "question"):
        per = comparison.change_counts_by(matching.pairs, by)
        assert sum(sum(c.values()) for c in per.values()) == len(changed)
    assert len(matching.pairs) * 2 + matching.only_a + matching.only_b + matching.ambiguous == len(run_a) + len(run_b)
    assert all(a != b for (a, b) in comparison.change_counts(matching.pairs))


@settings(max_examples=150)
@given(answers, answers)
def test_rates_sum_to_one_and_each_interval_holds_its_difference(rows_a, rows_b):
    pairs = match(_run(rows_a, 0), _run(rows_b, 1000)).pairs
    rates = comparison.rates(pairs)
    if not pairs:
        assert rates == []
        return
    assert math.isclose(sum(r.before for r in rates), 1) and math.isclose(sum(r.after for r in rates), 1)
    for r in rates:
        assert -1 <= r.low <= r.difference + 1e-12 and r.difference - 1e-12 <= r.high <= 1
        assert r.difference == pytest.approx(r.after - r.before)


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_swapping_the_runs_mirrors_the_interval(both, after, before, neither):
    if both + after + before + neither == 0:
        return
    d, low, high = paired_difference(both, after, before, neither)
    d2, low2, high2 = paired_difference(both, before, after, neither)
    assert d2 == pytest.approx(-d) and low2 == pytest.approx(-high) and high2 == pytest.approx(-low)


def test_percentages_as_the_comparison_prints_them():
    from explorer_app.templatetags.explorer_grid import percent, signed_percent
    assert (percent(1 / 3), percent(None)) == ("33.3 %", "—")
    assert (signed_percent(0.125), signed_percent(-0.0004), signed_percent(-0.25)) == ("+12.5 pp", "0.0 pp",
                                                                                       "−25.0 pp")
