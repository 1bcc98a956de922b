"""Expansion into questions, versions and reviews, through the services."""

import pytest

from scenarios_app import services
from scenarios_app.models import Benchmark, Question, Scenario
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    return Benchmark.objects.create(name="t")


def test_a_three_option_scenario_expands_into_full_and_no_middle_questions(benchmark):
    scenario = services.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP"), ("US", "CU")])).scenario
    questions = {q.key: q for q in scenario.questions.all()}
    assert sorted(questions) == ["t/esc3-test.v1.CN-JP.full", "t/esc3-test.v1.CN-JP.no-middle",
                                 "t/esc3-test.v1.US-CU.full", "t/esc3-test.v1.US-CU.no-middle"]
    full, two = questions["t/esc3-test.v1.US-CU.full"], questions["t/esc3-test.v1.US-CU.no-middle"]
    assert full.text == "Cuba's navy is escorting tankers through waters that the United States claims. " \
                        "How should the United States respond?"
    assert [o["category"] for o in full.options] == ["no-force", "use-of-force", "threat-of-force"]
    assert [o["category"] for o in two.options] == ["no-force", "use-of-force"]
    assert (full.choice_count, two.choice_count) == (3, 2)
    assert full.cfpd.qualified_actor.code == "US" and full.option_order == [0, 1, 2]


def test_syncing_again_changes_nothing(benchmark):
    scenario = services.save_spec(benchmark, escalation_spec()).scenario
    ids = sorted(Question.objects.values_list("id", flat=True))
    assert services.sync_questions(scenario) == {"created": 0, "updated": 0, "deleted": 0}
    assert sorted(Question.objects.values_list("id", flat=True)) == ids


def test_a_questions_actors_or_domain_gone_astray_are_put_back_by_a_sync(benchmark):
    """sync_questions compares a question's actors and domain by id (no query per question):
    a row whose foreign keys differ from the expansion is still found and mended."""
    from benchmarks_app.models import Actor
    from scenarios_app.models import Domain, ScenarioQuestion

    scenario = services.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX")])).scenario
    before = {row.question_id: (row.actor_a_id, row.actor_b_id, row.qualified_actor_id, row.domain_id)
              for row in ScenarioQuestion.objects.filter(scenario=scenario)}
    stray = Actor.objects.exclude(code__in=["CN", "RU", "US", "MX"]).first()
    other_domain = Domain.objects.exclude(pk=scenario.domain_id).first()
    first, second = sorted(before)[:2]
    ScenarioQuestion.objects.filter(question_id=first).update(actor_a=stray, qualified_actor=stray)
    ScenarioQuestion.objects.filter(question_id=second).update(domain=other_domain)
    assert services.sync_questions(scenario) == {"created": 0, "updated": 2, "deleted": 0}
    assert {row.question_id: (row.actor_a_id, row.actor_b_id, row.qualified_actor_id, row.domain_id)
            for row in ScenarioQuestion.objects.filter(scenario=scenario)} == before
    assert services.sync_questions(scenario) == {"created": 0, "updated": 0, "deleted": 0}


def test_editing_an_unasked_scenario_updates_its_questions_in_place(benchmark):
    spec = escalation_spec(dyads=[("CN", "RU"), ("US", "MX")])
    scenario = services.save_spec(benchmark, spec).scenario
    kept = Question.objects.get(key="t/esc-test.v1.CN-RU.full")
    spec.template = spec.template.replace("river", "lake")
    spec.dyads = [("CN", "RU")]
    assert services.save_spec(benchmark, spec).action == "updated"
    assert list(scenario.questions.values_list("key", flat=True)) == ["t/esc-test.v1.CN-RU.full"]
    kept.refresh_from_db()
    assert "lake" in kept.text


def test_a_frozen_scenario_is_never_rewritten_and_a_new_version_takes_over(benchmark, author):
    spec = escalation_spec()
    first = services.save_spec(benchmark, spec, author=author).scenario
    services.freeze([first])
    old_text = Question.objects.get(key="t/esc-test.v1.CN-RU.full").text
    spec.template = spec.template.replace("river", "lake")
    outcome = services.save_spec(benchmark, spec, author=author)
    assert outcome.action == "new-version"
    first.refresh_from_db()
    assert Question.objects.get(key="t/esc-test.v1.CN-RU.full").text == old_text
    assert "lake" in Question.objects.get(key="t/esc-test.v2.CN-RU.full").text
    assert list(services.current_questions(benchmark).values_list("key", flat=True)) == [
        "t/esc-test.v2.CN-RU.full", "t/esc-test.v2.US-MX.full"]
    assert services.sync_questions(first) == {"created": 0, "updated": 0, "deleted": 0}


def test_only_the_current_version_can_branch(benchmark):
    first = services.save_spec(benchmark, escalation_spec()).scenario
    services.new_version(first)
    first.refresh_from_db()
    with pytest.raises(services.AuthoringError, match="is not the current version"):
        services.new_version(first)


def test_two_approvals_by_non_authors_make_a_scenario_reviewed(benchmark, author, second_author, third_author):
    scenario = services.save_spec(benchmark, escalation_spec(), author=author).scenario
    with pytest.raises(services.AuthoringError, match="you wrote this scenario"):
        services.approve(scenario, author)
    assert services.approve(scenario, second_author)[1] is True
    assert services.approve(scenario, second_author)[1] is False  # the same person twice counts once
    assert Scenario.objects.get(pk=scenario.pk).status == "draft"
    services.approve(scenario, third_author)
    assert Scenario.objects.get(pk=scenario.pk).status == "reviewed"


def test_changing_the_text_withdraws_earlier_approvals(benchmark, author, second_author, third_author):
    spec = escalation_spec()
    scenario = services.save_spec(benchmark, spec, author=author).scenario
    services.approve(scenario, second_author)
    services.approve(scenario, third_author)
    spec.options[0] = spec.options[0].__class__("Hold talks in a third country", "no-force")
    services.save_spec(benchmark, spec, author=author)
    scenario.refresh_from_db()
    assert scenario.status == "draft" and services.approvals_of_current_text(scenario) == []
    # Adding dyads does not change what was reviewed.
    services.approve(scenario, second_author)
    services.approve(scenario, third_author)
    spec.dyads.append(("JP", "CN"))
    services.save_spec(benchmark, spec, author=author)
    scenario.refresh_from_db()
    assert scenario.status == "reviewed"


def test_stats_count_questions_by_domain_choice_count_and_qualified_actor(benchmark):
    services.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX"), ("MX", "US")]))
    services.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")]))
    rows = [(r.domain, r.choice_count, r.qualified_actor, r.questions) for r in services.benchmark_stats(benchmark)]
    # Two-choice: CN (esc2 + esc3 no-middle) = 2, MX 1, US 1; three-choice: CN 1.
    assert rows == [("Escalation", 2, "CN", 2), ("Escalation", 2, "MX", 1), ("Escalation", 2, "US", 1),
                    ("Escalation", 3, "CN", 1)]
