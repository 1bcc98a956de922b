"""runs_app.sampling_check: samples above temperature 0 identical question after question
are named as a server that ignores the temperature; anything short of that is not."""

from hypothesis import given
from hypothesis import strategies as st

from runs_app.sampling_check import MIN_GROUPS, SampleGroup, ignored_temperature


def groups(model, temperature, *distinct, samples=3):
    return [SampleGroup(model, temperature, samples, d) for d in distinct]


def test_every_group_alike_at_temperature_1_is_named_with_its_counts():
    found = ignored_temperature(groups("tserve", 1.0, 1, 1, 1, 1))
    assert len(found) == 1
    assert found[0].startswith("tserve: at temperature 1, each of the 4 questions checked got 3 identical answers")


def test_one_group_that_varies_or_too_few_groups_or_temperature_0_says_nothing():
    assert ignored_temperature(groups("m", 1.0, 1, 1, 2, 1)) == []  # one question's samples differ
    assert ignored_temperature(groups("m", 1.0, 1, 1)) == []  # 2 < MIN_GROUPS = 3 questions
    assert ignored_temperature(groups("m", 0.0, 1, 1, 1, 1)) == []  # greedy was asked for
    assert ignored_temperature(groups("m", None, 1, 1, 1)) == []  # temperature unknown
    assert ignored_temperature(groups("m", 1.0, 1, 1, 1, samples=1)) == []  # one sample per question: no repeat


def test_models_and_temperatures_are_judged_apart():
    found = ignored_temperature(groups("a", 1.0, 1, 1, 1) + groups("a", 0.7, 2, 1, 1) + groups("b", 0.7, 1, 1, 1)
                                + [SampleGroup("b", 0.7, 5, 1)])
    # a at 1.0: all alike; a at 0.7: one group differs; b at 0.7: 4 groups alike, 3 or 5 samples each.
    assert [w.split(":")[0] for w in found] == ["a", "b"]
    assert "each of the 4 questions checked got 3 or more identical answers" in found[1]


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([0.0, 0.5, 1.0]),
                          st.integers(1, 5), st.integers(1, 5)), max_size=30))
def test_a_warning_only_where_every_group_of_its_model_and_temperature_is_alike(rows):
    found = ignored_temperature([SampleGroup(m, t, s, min(d, s)) for m, t, s, d in rows])
    for warning in found:
        model, temperature = warning.split(":")[0], float(warning.split("temperature ")[1].split(",")[0])
        mine = [(s, min(d, s)) for m, t, s, d in rows if m == model and t == temperature and s >= 2]
        assert temperature > 0 and len(mine) >= MIN_GROUPS and all(d == 1 for _, d in mine)
