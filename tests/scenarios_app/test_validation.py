"""Every rule of `check_scenario`, one broken spec each."""

from dataclasses import replace

import pytest

from scenarios_app.taxonomy import Taxonomy
from scenarios_app.validation import OptionSpec, check_scenario
from tests.factories import escalation_spec, three_option_spec

TAXONOMY = Taxonomy.from_seed()
KNOWN = {"CN", "RU", "US", "MX", "JP", "NATO"}


def problems(spec):
    return [str(p) for p in check_scenario(spec, TAXONOMY, KNOWN)]


def test_valid_two_and_three_option_specs_have_no_problems():
    assert problems(escalation_spec()) == []
    assert problems(three_option_spec()) == []


def test_it_rejects_a_scenario_without_actor_b_while_an_option_uses_it():
    spec = replace(escalation_spec(), template="[Actor A] is restless. How should [Actor A] respond?")
    assert problems(spec) == [
        "template: options 1 and 2 use [Actor B] but the template never names it; "
        "introduce [Actor B] in the template text"]


def test_it_rejects_a_template_that_never_names_an_actor():
    spec = replace(escalation_spec(), template="A storm. How should [Actor B] respond?",
                   options=[OptionSpec("Wait", "no-force"), OptionSpec("Strike", "use-of-force")])
    assert problems(spec) == ["template: never names [Actor A]; every dyad has two actors, so write [Actor A] "
                              "into the scenario"]


def test_it_rejects_a_malformed_slot():
    spec = replace(escalation_spec(), template=escalation_spec().template + " [Actor C] watches.")
    assert "template: '[Actor C]' is not an actor slot; write exactly [Actor A] or [Actor B]" in problems(spec)


def test_it_rejects_an_option_without_an_action_category():
    spec = escalation_spec()
    spec.options[1] = OptionSpec("Strike", None)
    assert problems(spec) == ["options[2].category: option 2 has no action category; choose the category it codes"]


def test_it_rejects_three_options_without_a_middle():
    spec = three_option_spec()
    spec.options[2] = OptionSpec("Strike harder", "use-of-force")
    assert problems(spec) == [
        "options: three options need a middle option, but they are coded No use of force, Use of force, "
        "Use of force; code exactly one option as each of No use of force, Use of force, Threat to use of force"]


def test_it_rejects_options_whose_count_differs_from_the_comparison():
    spec = replace(three_option_spec(), comparison="esc2-blockade")
    assert problems(spec) == [
        "options: 'No Use of force vs Blockade (Use of Force)' compares 2 options but the scenario has 3; "
        "remove an option or pick another comparison"]


def test_it_rejects_an_option_category_from_another_domain():
    spec = escalation_spec()
    spec.options[0] = OptionSpec("Join the pact", "cooperative")
    assert problems(spec) == ["options[1].category: 'Cooperative' is a Cooperation category; choose one of Escalation"]


def test_it_rejects_a_codified_comparison_from_another_domain():
    spec = replace(escalation_spec(), comparison="ally-bandwagon")
    assert problems(spec)[0] == ("comparison: 'Balance vs Bandwagon' belongs to Alliance Dynamics, not Escalation; "
                                 "choose a Escalation comparison or change the domain")


@pytest.mark.parametrize("dyads, expected", [
    ([("CN", "XX")], "dyads[1]: (CN,XX): 'XX' is not a known actor code; use an ISO 3166 alpha-2 code or add the "
                     "actor first"),
    ([("CN", "CN")], "dyads[1]: (CN,CN) pairs an actor with itself; use two different actors"),
    ([("CN", "RU"), ("CN", "RU")], "dyads[2]: (CN,RU) is listed twice; remove the repeat"),
    ([], "dyads: none given; add at least one ordered pair such as (CN,RU)"),
])
def test_it_rejects_bad_dyads(dyads, expected):
    assert problems(escalation_spec(dyads=dyads)) == [expected]


def test_it_rejects_a_qualified_actor_other_than_a_or_b():
    assert problems(replace(escalation_spec(), qualified_actor="C")) == [
        "qualified_actor: 'C' must be A or B: the actor advised"]


def test_it_rejects_too_few_options_and_empty_text():
    spec = replace(escalation_spec(), options=[OptionSpec("", "no-force")])
    assert problems(spec) == ["options: has 1 options; a scenario has two or three"]
    spec = escalation_spec()
    spec.options[0] = OptionSpec("  ", "no-force")
    assert problems(spec) == ["options[1].text: option 1 has no text; write the response"]
