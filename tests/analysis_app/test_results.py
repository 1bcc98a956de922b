"""The headline-figure shape, a model's standing among the others, and the difference of
two models' figures with its MOVER interval (analysis_app/results.py): hand-checked
numbers, and the rules that must hold for every input (hypothesis)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis_app.results import (FIELDS, Figure, difference, differences, mover_interval, rank_of, standings)


def fig(model, estimate, low=None, high=None, metric="rate", direction="higher", n=10, condition="", unit="share"):
    return Figure(benchmark="demo", family="cfpd", model=model, metric=metric, label=metric.title(),
                  estimate=estimate, ci_low=low, ci_high=high, n=n, unit=unit, direction=direction,
                  condition=condition, runs=(3, 1, 3))


def test_a_figure_keeps_its_fields_in_one_shape_and_comes_back_from_json():
    figure = fig("hawk", 0.5, 0.4, 0.6)
    record = figure.to_dict()
    assert tuple(record) == FIELDS
    assert record["runs"] == [1, 3]  # sorted, each run once
    assert Figure.from_dict(record) == figure
    assert figure.key == ("demo", "cfpd", "rate", "")


def test_a_missing_or_infinite_number_is_none_and_a_bad_direction_is_refused():
    assert fig("a", float("nan")).estimate is None
    assert fig("a", 1.0, float("-inf"), float("inf")).ci_low is None  # ΔCS of a Non-control CS of 0
    assert not fig("a", 1.0).has_interval
    with pytest.raises(ValueError, match="direction"):
        fig("a", 1.0, direction="up")
    with pytest.raises(ValueError, match="unit"):
        fig("a", 1.0, unit="points")


def test_rank_counts_the_models_ahead_and_ties_share_the_best_rank():
    # 0.5 among 0.7, 0.5, 0.2: one model (0.7) is higher, so rank 1 + 1 = 2 of 4; the tie
    # at 0.5 does not push it down. Spread of the others: min 0.2, median 0.5, max 0.7.
    standing = rank_of(0.5, [0.7, 0.5, 0.2])
    assert (standing.rank, standing.of, standing.others) == (2, 4, 3)
    assert (standing.others_min, standing.others_median, standing.others_max) == (0.2, 0.5, 0.7)
    # Lower first (inconsistency): 0.2 is below 0.5, so 1 + 1 = 2 of 4.
    assert rank_of(0.5, [0.7, 0.5, 0.2], "lower").rank == 2
    # The median of an even count is the mean of the middle two: (0.2 + 0.6) / 2 = 0.4.
    assert rank_of(0.1, [0.9, 0.6, 0.2, 0.1]).others_median == pytest.approx(0.4)


def test_a_model_alone_ranks_first_of_one_and_a_missing_estimate_has_no_rank():
    alone = rank_of(0.3, [])
    assert (alone.rank, alone.of, alone.others_min, alone.others_median) == (1, 1, None, None)
    assert rank_of(0.3, [None, 0.1]).of == 2  # a model without an estimate is not ranked
    missing = rank_of(None, [0.1, 0.4])
    assert (missing.rank, missing.of, missing.others_max) == (None, 2, 0.4)


def test_standings_rank_each_key_among_the_models_with_a_figure_of_it():
    figures = [fig("hawk", 0.8), fig("dove", 0.2), fig("owl", 0.5),
               fig("hawk", 0.1, metric="refusals", direction="lower"), fig("dove", 0.3, metric="refusals",
                                                                            direction="lower"),
               fig("owl", 0.9, metric="other")]
    found = standings("hawk", figures)
    assert set(found) == {("demo", "cfpd", "rate", ""), ("demo", "cfpd", "refusals", "")}
    rate = found[("demo", "cfpd", "rate", "")]
    assert (rate.rank, rate.of, rate.others_min, rate.others_median, rate.others_max) == (1, 3, 0.2, 0.35, 0.5)
    # (0.2 + 0.5) / 2 = 0.35
    refusals = found[("demo", "cfpd", "refusals", "")]
    assert (refusals.rank, refusals.of) == (1, 2)  # 0.1 is the lowest, and lower ranks first


def test_the_difference_of_two_figures_has_its_mover_interval():
    # a = 0.6 [0.5, 0.75], b = 0.4 [0.3, 0.45]; d = 0.2
    # low  = 0.2 - sqrt((0.6 - 0.5)^2 + (0.45 - 0.4)^2) = 0.2 - sqrt(0.0125) = 0.2 - 0.1118034 = 0.0881966
    # high = 0.2 + sqrt((0.75 - 0.6)^2 + (0.4 - 0.3)^2) = 0.2 + sqrt(0.0325) = 0.2 + 0.1802776 = 0.3802776
    found = difference(fig("hawk", 0.6, 0.5, 0.75, n=12), fig("dove", 0.4, 0.3, 0.45, n=9))
    assert found.difference == pytest.approx(0.2)
    assert found.ci_low == pytest.approx(0.0881966, abs=1e-7)
    assert found.ci_high == pytest.approx(0.3802776, abs=1e-7)
    assert (found.model_a, found.model_b, found.n_a, found.n_b) == ("hawk", "dove", 12, 9)
    assert found.excludes_zero


def test_symmetric_intervals_give_the_normal_approximation():
    # a = 50 ± 3, b = 40 ± 4: 10 ± sqrt(3^2 + 4^2) = 10 ± 5, so [5, 15].
    assert mover_interval(50, 47, 53, 40, 36, 44) == (10, 5, 15)


def test_a_difference_without_intervals_has_none_and_figures_of_different_things_are_refused():
    found = difference(fig("hawk", 0.6), fig("dove", 0.4, 0.3, 0.5))
    assert found.difference == pytest.approx(0.2) and found.ci_low is None and not found.excludes_zero
    assert difference(fig("hawk", None), fig("dove", 0.4)).difference is None
    with pytest.raises(ValueError, match="different things"):
        difference(fig("hawk", 0.6), fig("dove", 0.4, metric="other"))


def test_a_figure_over_one_unit_has_no_interval_to_difference_and_no_star():
    # One run per model (the demo's crisis part): each bootstrap over one run is [x, x].
    # MOVER on those would give 0.670 - 0.668 = +0.002 [+0.002, +0.002], "leaving out 0".
    one, other = fig("hawk", 0.670, 0.670, 0.670, n=1), fig("dove", 0.668, 0.668, 0.668, n=1)
    assert not one.has_interval and fig("hawk", 0.670, 0.670, 0.670, n=2).has_interval
    found = difference(one, other)
    assert found.difference == pytest.approx(0.002) and found.ci_low is None and found.ci_high is None
    assert not found.excludes_zero
    # One side over one unit is enough: a = 0.5 [0.4, 0.6] (n = 10) against b = 0 [0, 0] (n = 1).
    assert difference(fig("hawk", 0.5, 0.4, 0.6), fig("dove", 0.0, 0.0, 0.0, n=1)).ci_low is None
    assert one.ci_low == 0.670 and one.to_dict()["ci_high"] == 0.670  # published as the dashboard gives it


def test_differences_set_every_other_model_against_the_first_on_the_keys_both_have():
    figures = [fig("hawk", 0.8, 0.7, 0.9), fig("dove", 0.2, 0.1, 0.3), fig("owl", 0.5, 0.4, 0.6),
               fig("hawk", 0.4, metric="other"), fig("owl", 0.1, metric="other")]
    found = differences(figures, ["hawk", "dove", "owl"])
    assert [(d.metric, d.model_b) for d in found] == [("rate", "dove"), ("rate", "owl"), ("other", "owl")]
    assert [round(d.difference, 6) for d in found] == [0.6, 0.3, 0.3]  # 0.8-0.2, 0.8-0.5, 0.4-0.1
    with pytest.raises(ValueError, match="two models"):
        differences(figures, ["hawk"])


finite = st.floats(min_value=-100, max_value=100, allow_nan=False)
arm = st.floats(min_value=0, max_value=50, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(a=finite, a_down=arm, a_up=arm, b=finite, b_down=arm, b_up=arm)
def test_the_interval_holds_the_difference_and_turns_over_when_the_models_swap(a, a_down, a_up, b, b_down, b_up):
    d, low, high = mover_interval(a, a - a_down, a + a_up, b, b - b_down, b + b_up)
    assert low <= d + 1e-9 and d <= high + 1e-9
    # Each arm is at least as long as either model's own arm on that side, never longer than both added.
    assert d - low >= max(a_down, b_up) - 1e-9 and d - low <= a_down + b_up + 1e-9
    swapped = mover_interval(b, b - b_down, b + b_up, a, a - a_down, a + a_up)
    assert swapped[0] == pytest.approx(-d, abs=1e-9)
    assert swapped[1] == pytest.approx(-high, abs=1e-9) and swapped[2] == pytest.approx(-low, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)),
                       min_size=1, max_size=12))
def test_ranks_run_from_one_and_reversing_the_direction_ranks_the_negated_values_alike(values):
    ranked = [v for v in values if v is not None]
    ranks = [rank_of(v, values[:i] + values[i + 1:]).rank for i, v in enumerate(values) if v is not None]
    if ranked:
        assert min(ranks) == 1 and max(ranks) <= len(ranked)
        # The highest estimate ranks 1; a model is ahead of every model with a larger rank.
        assert ranks[ranked.index(max(ranked))] == 1
    negated = [None if v is None else -v for v in values]
    lower = [rank_of(v, negated[:i] + negated[i + 1:], "lower").rank for i, v in enumerate(negated)
             if v is not None]
    assert lower == ranks
    for i, v in enumerate(values):
        standing = rank_of(v, values[:i] + values[i + 1:])
        others = [o for j, o in enumerate(values) if j != i and o is not None]
        if others:
            assert standing.others_min <= standing.others_median <= standing.others_max
            assert math.isclose(standing.others_min, min(others)) and math.isclose(standing.others_max, max(others))
