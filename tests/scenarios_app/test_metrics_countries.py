import pytest

from scenarios_app.analysis.metrics.countries import country_rates, dyad_rates
from scenarios_app.analysis.metrics.tidy import empty_table, from_records

UOF, NOF, COOP = "Use of force", "No use of force", "Cooperative"
BASE = dict(model="m1", run=1, question_key="q", scenario="s1", domain="Escalation", choice_count=2, action="",
            qualified_actor="US", opposing_actor="CN", repeat=0, outcome="answer", category=None)


def rows(scenario, actor, opponent, *chosen, **fields):
    return [dict(fields, scenario=scenario, qualified_actor=actor, opposing_actor=opponent, category=c)
            for c in chosen]


TABLE = from_records(
    rows("s1", "US", "CN", UOF, NOF) + rows("s1", "US", "MX", NOF, NOF)   # US in s1: 1 of 4 -> 0.25
    + rows("s2", "US", "CN", UOF)                                        # US in s2: 1 of 1 -> 1.0
    + rows("s1", "CN", "US", NOF, NOF)                                   # CN in s1: 0 of 2 -> 0
    + rows("s3", "DE", "FR", UOF, UOF)                                   # DE is not a focus actor
    + rows("c1", "US", "CN", COOP, domain="Cooperation"),
    **BASE,
)


def only(frame, **keys):
    for column, value in keys.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, frame
    return frame.iloc[0]


def test_country_rates_are_normalised_over_the_scenarios_asked_for_that_actor():
    rates = country_rates(TABLE)
    us = only(rates, qualified_actor="US", category=UOF)
    # s1: 1/4 = 0.25; s2: 1/1 = 1.0; mean (0.25 + 1.0)/2 = 0.625 (pooled 2/5 = 0.4 would be wrong)
    assert us["rate"] == pytest.approx(0.625)
    assert (us["n_scenarios"], us["n_answers"]) == (2, 5)
    # CN never chose Use of force: 0 over its one scenario, still reported
    cn = only(rates, qualified_actor="CN", category=UOF)
    assert (cn["rate"], cn["n_scenarios"]) == (0, 1)


def test_only_the_focus_actors_by_default_and_any_list_on_request():
    assert set(country_rates(TABLE)["qualified_actor"]) == {"US", "CN"}
    de = only(country_rates(TABLE, actors=["DE"]), category=UOF)
    assert de["rate"] == pytest.approx(1.0)  # s3: 2 of 2
    assert set(country_rates(TABLE, actors=None)["qualified_actor"]) == {"US", "CN", "DE"}


def test_category_sets_come_from_the_whole_table():
    # CN alone never chose Use of force; inferred from CN's rows only, it would vanish
    cn_only = country_rates(TABLE, actors=["CN"])
    assert set(cn_only["category"]) == {UOF, NOF}
    assert only(cn_only, category=NOF)["rate"] == pytest.approx(1.0)  # 2 of 2


def test_the_dyad_table_gives_one_cell_per_qualified_and_opposing_actor():
    dyads = dyad_rates(TABLE, UOF)
    # (US, CN): s1 1 of 2 = 0.5, s2 1 of 1 = 1.0 -> 0.75 over 2 scenarios, 3 answers
    us_cn = only(dyads, qualified_actor="US", opposing_actor="CN")
    assert (us_cn["rate"], us_cn["n_scenarios"], us_cn["n_answers"]) == (pytest.approx(0.75), 2, 3)
    assert only(dyads, qualified_actor="US", opposing_actor="MX")["rate"] == 0  # s1: 0 of 2
    assert only(dyads, qualified_actor="DE", opposing_actor="FR")["rate"] == pytest.approx(1.0)  # 2 of 2
    # the cooperation scenario has no Use of force option, so no cell
    assert set(dyads["domain"]) == {"Escalation"}
    assert len(dyads) == 4


def test_empty_tables_give_empty_results():
    assert country_rates(empty_table()).empty
    assert dyad_rates(empty_table(), UOF).empty
    assert dyad_rates(TABLE, "Balancing").empty


def test_dyad_cells_count_weighted_answers():
    table = from_records(rows("s1", "US", "CN", UOF, n=3) + rows("s1", "US", "CN", NOF, n=1)
                         + rows("s2", "US", "CN", NOF, n=4), **BASE)
    cell = only(dyad_rates(table, UOF), qualified_actor="US", opposing_actor="CN")
    # s1: 3 of 3 + 1 = 0.75; s2: 0 of 4 = 0; mean 0.375 over 2 scenarios and 3 + 1 + 4 = 8 answers
    assert (cell["rate"], cell["n_scenarios"], cell["n_answers"]) == (pytest.approx(0.375), 2, 8)
