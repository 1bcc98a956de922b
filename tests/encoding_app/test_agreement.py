"""Agreement statistics on small hand-checked tables (the arithmetic beside each value)."""

import pytest

from encoding_app.agreement import cohens_kappa, krippendorff_alpha, pair_agreement, percent_agreement, wilson_interval

# Ten answers, two coders: units 1-4 both A, unit 5 A/B, units 6-9 both B, unit 10 B/A.
FIRST = list("AAAAABBBBB")
SECOND = list("AAAABBBBBA")


def test_percent_agreement_counts_identical_codes():
    assert percent_agreement(FIRST, SECOND) == pytest.approx(0.8)  # 8 of 10 agree


def test_cohens_kappa_on_two_codes():
    # p_o = 8/10 = 0.8; marginals A 5/10 and 5/10, B 5/10 and 5/10 -> p_e = .25 + .25 = 0.5
    # kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6
    assert cohens_kappa(FIRST, SECOND) == pytest.approx(0.6)


def test_cohens_kappa_on_four_codes():
    first = list("AABBCCRA")
    second = list("ABBBCRRA")
    # agree on units 1,3,4,5,7,8 -> p_o = 6/8 = 0.75
    # first: A3 B2 C2 R1; second: A2 B3 C1 R2 -> p_e = (3*2 + 2*3 + 2*1 + 1*2) / 64 = 16/64 = 0.25
    # kappa = (0.75 - 0.25) / (1 - 0.25) = 2/3
    assert cohens_kappa(first, second) == pytest.approx(2 / 3)


def test_kappa_is_undefined_when_both_coders_use_one_code_only():
    assert cohens_kappa(list("AAA"), list("AAA")) is None
    assert percent_agreement(list("AAA"), list("AAA")) == 1.0


def test_perfect_agreement_with_two_codes_is_kappa_one():
    assert cohens_kappa(list("ABAB"), list("ABAB")) == pytest.approx(1.0)


def test_pair_agreement_bundles_the_figures():
    pair = pair_agreement(FIRST, SECOND)
    assert (pair.n, pair.agree) == (10, 8)
    assert pair.percent == pytest.approx(0.8) and pair.kappa == pytest.approx(0.6)


def test_no_units_no_statistics():
    assert percent_agreement([], []) is None and cohens_kappa([], []) is None
    assert krippendorff_alpha({}) is None


def test_unequal_lengths_are_refused():
    with pytest.raises(ValueError):
        cohens_kappa(list("AB"), list("A"))


def test_krippendorff_alpha_two_coders():
    units = {i: {"x": a, "y": b} for i, (a, b) in enumerate(zip(FIRST, SECOND))}
    # Coincidences: o_AA = 8, o_BB = 8, o_AB = o_BA = 2 (units 5 and 10); n_A = n_B = 10, n = 20
    # D_o = (2 + 2) / 20 = 0.2; D_e = (10*10 + 10*10) / (20 * 19) = 200/380
    # alpha = 1 - 0.2 / (200/380) = 1 - 0.38 = 0.62
    assert krippendorff_alpha(units) == pytest.approx(0.62)


def test_krippendorff_alpha_three_coders_with_a_gap():
    units = {
        1: {"x": "A", "y": "A", "z": "A"},
        2: {"x": "B", "y": "B", "z": "A"},
        3: {"x": "A", "y": "B"},            # z did not code unit 3
        4: {"x": "B", "y": "B", "z": "B"},
        5: {"x": "R"},                      # coded once: not pairable, left out
    }
    # Each unit of m values adds 1/(m-1) per ordered pair of its values:
    # u1 (A,A,A): o_AA += 6 * 1/2 = 3
    # u2 (B,B,A): o_BB += 2 * 1/2 = 1; o_BA += 2 * 1/2 = 1; o_AB += 1
    # u3 (A,B):   o_AB += 1; o_BA += 1
    # u4 (B,B,B): o_BB += 3
    # o_AA = 3, o_BB = 4, o_AB = o_BA = 2; n_A = 5, n_B = 6, n = 11
    # D_o = 4/11; D_e = (5*6 + 6*5) / (11*10) = 6/11; alpha = 1 - (4/11)/(6/11) = 1/3
    assert krippendorff_alpha(units) == pytest.approx(1 / 3)


def test_alpha_is_undefined_when_one_code_is_used_throughout():
    assert krippendorff_alpha({1: {"x": "A", "y": "A"}, 2: {"x": "A", "y": "A"}}) is None


def test_cohens_kappa_with_letters_past_c():
    first, second = list("AEJJ"), list("AEJE")
    # agree on units 1-3 -> p_o = 3/4; first A1 E1 J2, second A1 E2 J1
    # p_e = (1*1 + 1*2 + 2*1) / 16 = 5/16; kappa = (0.75 - 0.3125) / (1 - 0.3125) = 0.4375 / 0.6875 = 7/11
    assert cohens_kappa(first, second) == pytest.approx(7 / 11)


# Wilson score interval, z = 1.959964 (95%), z^2 = 3.841459:
#   centre = (p + z^2/2n) / (1 + z^2/n),  half = z * sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)

def test_wilson_interval_of_29_correct_of_30():
    # p = 29/30 = 0.966667; 1 + z^2/n = 1 + 3.841459/30 = 1.128049
    # centre = (0.966667 + 3.841459/60) / 1.128049 = (0.966667 + 0.064024) / 1.128049 = 0.913694
    # half = 1.959964 * sqrt(0.966667*0.033333/30 + 3.841459/3600) / 1.128049
    #      = 1.959964 * sqrt(0.00107407 + 0.00106707) / 1.128049 = 1.959964 * 0.046273 / 1.128049 = 0.080398
    low, high = wilson_interval(29, 30)
    assert low == pytest.approx(0.913694 - 0.080398, abs=1e-5)  # 0.833296
    assert high == pytest.approx(0.913694 + 0.080398, abs=1e-5)  # 0.994091


def test_wilson_interval_of_a_perfect_score_is_not_degenerate():
    # p = 1: centre = (1 + 0.064024) / 1.128049 = 0.943243
    # half = 1.959964 * sqrt(0 + 3.841459/3600) / 1.128049 = 1.959964 * 0.032666 / 1.128049 = 0.056757
    # low = 0.886486, so 30 of 30 right is still below a 0.97 threshold: it does not prove 97 %.
    low, high = wilson_interval(30, 30)
    assert low == pytest.approx(0.886486, abs=1e-5)
    assert high == pytest.approx(1.0)


def test_wilson_interval_of_none_correct_and_of_no_items():
    # p = 0, n = 10: 1 + z^2/n = 1.384146; centre = (3.841459/20) / 1.384146 = 0.138766 = half -> (0, 0.277533)
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-9) and high == pytest.approx(0.277533, abs=1e-5)
    assert wilson_interval(0, 0) is None
