"""Prompted perspective (issue 40, GlobalOpinionQA's cross-national prompting): the condition
"answer as someone from <country>" for any benchmark, the family's own instructions kept after
the sentence, made once, and what a bad country gets."""

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app import families
from benchmarks_app.models import Actor, Benchmark, Condition, Question
from benchmarks_app.services import PerspectiveInvalid, perspective_condition, render_messages

pytestmark = pytest.mark.django_db


def test_a_perspective_puts_the_sentence_before_the_familys_prompt():
    condition = perspective_condition("Germany", "cfpd")
    assert condition.name == "perspective-germany-cfpd" and condition.label == "Answer as someone from Germany"
    assert condition.kind == Condition.Kind.STRATEGY
    assert condition.system_prompt == "Answer as someone from Germany would.\n\n" + families.family("cfpd").system_prompt
    assert perspective_condition("Germany", "cfpd") == condition  # made once
    benchmark = Benchmark.objects.create(name="persp", family="cfpd")
    question = Question.objects.create(benchmark=benchmark, key="p-q0", text="Scenario: a crisis.",
                                       options=[{"text": "Talk"}, {"text": "Fight"}], option_order=[0, 1],
                                       choice_count=2)
    system = [m["content"] for m in render_messages(question, [0, 1], condition) if m["role"] == "system"]
    assert system and system[0].startswith("Answer as someone from Germany would.")


def test_an_actors_code_gives_its_prompt_name():
    Actor.objects.update_or_create(code="KR", defaults={"name": "Republic of Korea", "prompt_name": "South Korea"})
    assert perspective_condition("kr").label == "Answer as someone from South Korea"


@pytest.mark.parametrize("country", ["", "x", "{country}", "a" * 81, None])
def test_a_bad_country_is_named(country):
    with pytest.raises(PerspectiveInvalid, match="country: "):
        perspective_condition(country)


def test_the_command(capsys):
    call_command("add_perspective", "--country", "Brazil")
    assert "run_benchmark --conditions perspective-brazil" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no benchmark family 'nope'"):
        call_command("add_perspective", "--country", "Brazil", "--family", "nope")


# The console's button (issue 40: "an author can add to any benchmark").

def test_an_author_adds_a_perspective_from_the_conditions_page(client, author):
    client.force_login(author)
    listing = client.get("/admin/benchmarks_app/condition/")
    assert listing.status_code == 200
    assert 'id="add-perspective"' in listing.content.decode()
    form = client.get("/admin/benchmarks_app/condition/perspective/")
    assert form.status_code == 200 and "Answer as someone from &lt;country&gt; would." in form.content.decode()
    Actor.objects.update_or_create(code="DE", defaults={"name": "Germany", "prompt_name": "Germany"})
    made = client.post("/admin/benchmarks_app/condition/perspective/", {"country": "DE", "family": "cfpd"})
    condition = Condition.objects.get(name="perspective-germany-cfpd")
    assert made.status_code == 302 and made["Location"] == f"/admin/benchmarks_app/condition/{condition.pk}/change/"
    assert condition.system_prompt.startswith("Answer as someone from Germany would.\n\n")
    # The same country again finds it, no second condition.
    again = client.post("/admin/benchmarks_app/condition/perspective/", {"country": "de", "family": "cfpd"})
    assert again.status_code == 302 and Condition.objects.filter(name__startswith="perspective-germany").count() == 1


@pytest.mark.parametrize("data", [{"country": "{country}"}, {"country": "x"}, {"country": "DE", "family": "nope"},
                                  {"country": "a" * 81}, {}])
def test_a_bad_perspective_form_says_why_and_adds_nothing(client, author, data):
    client.force_login(author)
    before = Condition.objects.count()
    page = client.post("/admin/benchmarks_app/condition/perspective/", data)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="errornote"' in html or 'class="errorlist' in html
    assert Condition.objects.count() == before


def test_a_reviewer_gets_no_button_and_no_form(client, reviewer):
    client.force_login(reviewer)
    assert client.get("/admin/benchmarks_app/condition/perspective/").status_code in (302, 403)
    assert client.post("/admin/benchmarks_app/condition/perspective/", {"country": "DE"}).status_code in (302, 403)
    assert not Condition.objects.filter(name__startswith="perspective-").exists()
