"""The crisis-simulation console: an author adds and edits a simulation with its
continuations and variants in one form; its questions follow the edit; a variant that
cannot be rendered is refused with the fix and nothing is saved; the preview shows every
variant's conversation, escaped; other roles cannot author."""

import json

import re

import pytest
from django.urls import reverse

from benchmarks_app.models import Benchmark, Question
from crisis_app import services
from crisis_app.models import Continuation, CrisisQuestion, GroupScore, Scorer, Simulation, Variant
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

ADD = reverse("admin:crisis_app_simulation_add")
MAP = {"{PLAYER}": "Finland", "{ADVERSARY}": "Russia"}


@pytest.fixture
def benchmark():
    return Benchmark.objects.create(name="crisis-authoring", family="freeform", title="Crisis")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def simulation_form(benchmark, variants, continuations=None, ranked_options=(), simulation=None, **texts):
    """The add/change form's POST: the simulation's fields, then both inline formsets."""
    data = {"benchmark": benchmark.pk, "key": "strait-test", "title": "A strait <crisis>",
            "role": "You advise the President of {PLAYER}.",
            "background": "{PLAYER} and {ADVERSARY} share a strait.",
            "move1_incident": "{ADVERSARY} closed the strait last night.",
            "answer_format": "RECOMMENDATIONS: …\nREASONING: …",
            "scored_section": "RECOMMENDATIONS", "section_end": "REASONING",
            "ranked_options": json.dumps(list(ranked_options)), "_continue": "Save"}
    data.update(texts)
    continuations = continuations if continuations is not None else [
        {"name": "status_quo", "text": "{ADVERSARY} reopened it. What now?"},
        {"name": "revisionist", "text": "{ADVERSARY} mined it. What now?"}]
    for prefix, rows, fields in (("continuations", continuations, ["id", "name", "label", "position", "text"]),
                                 ("variants", variants, ["id", "name", "label", "position", "level", "ablation",
                                                         "answer_kind", "replacements", "text_overrides"])):
        initial = sum(1 for row in rows if row.get("id"))
        data.update({f"{prefix}-TOTAL_FORMS": str(len(rows)), f"{prefix}-INITIAL_FORMS": str(initial),
                     f"{prefix}-MIN_NUM_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "1000"})
        for n, row in enumerate(rows):
            row = {"position": str(n), "label": "", "level": "0", "ablation": "", "answer_kind": "free",
                   "replacements": json.dumps(MAP), "text_overrides": "{}", "explicit": "on", **row}
            for name in fields + ["explicit", "DELETE"]:
                if name in row and (name != "explicit" or prefix == "variants"):
                    data[f"{prefix}-{n}-{name}"] = row[name]
            if simulation is not None:
                data[f"{prefix}-{n}-simulation"] = str(simulation.pk)
    return data


def test_an_author_adds_a_simulation_and_its_questions_are_created(client, author, benchmark):
    login(client, author)
    data = simulation_form(benchmark, [{"name": "explicit"}, {"name": "anonymised", "explicit": "",
                                                               "replacements": json.dumps(
                                                                   {"{PLAYER}": "Azure", "{ADVERSARY}": "Crimson"})}])
    response = client.post(ADD, data, follow=True)
    assert response.redirect_chain, response.content.decode()[:3000]
    simulation = Simulation.objects.get(key="strait-test")
    assert [v.name for v in simulation.variants.all()] == ["explicit", "anonymised"]
    assert not Variant.objects.get(name="anonymised").explicit
    # 2 variants x (move 1 + 2 continuations) = 6 questions
    assert CrisisQuestion.objects.filter(variant__simulation=simulation).count() == 6
    move1 = Question.objects.get(key="crisis-authoring/crisis:strait-test:anonymised:m1")
    assert move1.text.startswith("Azure and Crimson share a strait.") and move1.crisis.system_text == \
        "You advise the President of Azure."
    assert "Questions synced: 6 created, 0 updated, 0 retired, 0 unchanged." in response.content.decode()


def test_editing_a_text_updates_its_unasked_questions_in_place(client, author, benchmark):
    login(client, author)
    client.post(ADD, simulation_form(benchmark, [{"name": "explicit"}]))
    simulation = Simulation.objects.get(key="strait-test")
    before = set(Question.objects.filter(crisis__variant__simulation=simulation).values_list("pk", flat=True))
    continuations = [{"id": str(c.pk), "name": c.name, "text": c.text} for c in simulation.continuations.all()]
    variant = simulation.variants.get()
    data = simulation_form(benchmark, [{"id": str(variant.pk), "name": "explicit"}], continuations,
                           simulation=simulation, move1_incident="{ADVERSARY} seized a ferry.")
    response = client.post(reverse("admin:crisis_app_simulation_change", args=[simulation.pk]), data, follow=True)
    page = response.content.decode()
    assert "Questions synced: 0 created, 1 updated, 0 retired, 2 unchanged." in page, page[:3000]
    after = set(Question.objects.filter(crisis__variant__simulation=simulation).values_list("pk", flat=True))
    assert after == before  # no run asked them yet: same rows, new text
    assert "Russia seized a ferry." in Question.objects.get(key__endswith="strait-test:explicit:m1").text


def test_a_placeholder_without_a_value_is_refused_with_the_fix_and_nothing_is_saved(client, author, benchmark):
    login(client, author)
    # The new continuation (same submission) uses {ALLY}, which the variant's map lacks.
    data = simulation_form(benchmark, [{"name": "explicit"}], [
        {"name": "status_quo", "text": "{ALLY} asks for help. What now?"}])
    page = client.post(ADD, data).content.decode()
    assert "no value for {ALLY} (used in the texts): add it to the map" in page
    assert not Simulation.objects.exists() and not Continuation.objects.exists() and not Question.objects.exists()


def test_an_override_of_a_text_that_does_not_exist_is_refused(client, author, benchmark):
    login(client, author)
    data = simulation_form(benchmark, [{"name": "explicit", "text_overrides": json.dumps(
        {"continuation:escalation": "{PLAYER} …"})}])
    page = client.post(ADD, data).content.decode()
    assert "no text named continuation:escalation; the texts are" in page
    assert not Simulation.objects.exists()


def test_a_ranked_variant_without_ranked_options_is_refused(client, author, benchmark):
    login(client, author)
    page = client.post(ADD, simulation_form(benchmark, [{"name": "ranked", "answer_kind": "ranked"}])).content.decode()
    assert "a ranked variant needs the simulation&#x27;s ranked options (at least 2)" in page
    assert not Simulation.objects.exists()
    data = simulation_form(benchmark, [{"name": "ranked", "answer_kind": "ranked"}],
                           ranked_options=["Blockade the port.", "Negotiate."])
    assert client.post(ADD, data).status_code == 302
    assert "A) Blockade the port." in Question.objects.get(key__endswith="strait-test:ranked:m1").text


@pytest.mark.parametrize("field, value, message", [
    ("ranked_options", '{"a": 1}', "Write the ranked options as a list of texts"),
    ("ranked_options", "[not json", "Enter a valid JSON."),
    ("variants-0-replacements", '["Finland"]', "write the map as {&quot;{PLAYER}&quot;: &quot;Finland&quot;"),
    ("variants-0-text_overrides", '{"background": 3}', "write the overrides as {&quot;background&quot;"),
])
def test_bad_json_shapes_are_refused_with_the_shape_to_write(client, author, benchmark, field, value, message):
    login(client, author)
    data = simulation_form(benchmark, [{"name": "explicit"}])
    data[field] = value
    page = client.post(ADD, data).content.decode()
    assert message in page
    assert not Simulation.objects.exists()


def test_a_variant_whose_questions_exist_cannot_be_deleted(client, author, benchmark):
    login(client, author)
    client.post(ADD, simulation_form(benchmark, [{"name": "explicit"}, {"name": "second"}]))
    simulation = Simulation.objects.get(key="strait-test")
    continuations = [{"id": str(c.pk), "name": c.name, "text": c.text} for c in simulation.continuations.all()]
    variants = [{"id": str(v.pk), "name": v.name} for v in simulation.variants.all()]
    variants[1]["DELETE"] = "on"
    page = client.post(reverse("admin:crisis_app_simulation_change", args=[simulation.pk]),
                       simulation_form(benchmark, variants, continuations, simulation=simulation)).content.decode()
    # Django lists the protected questions in the order the database returns them (on
    # PostgreSQL not always m1 first): the refusal, then each question named, in any order.
    [refusal] = [item for item in re.findall(r"<li>(.*?)</li>", page, re.S) if item.startswith("Deleting variant")]
    assert refusal.startswith("Deleting variant strait-test:second would require deleting the following protected "
                              "related objects: ")
    named = set(re.split(r", | and ", refusal.split("objects: ", 1)[1]))
    assert "crisis question crisis-authoring/crisis:strait-test:second:m1" in named
    assert simulation.variants.count() == 2


def test_the_preview_shows_every_variant_escaped_and_errors_in_place_of_a_broken_one(client, author):
    simulation = services.load_sample("crisis-sample")
    # A variant broken outside the form (say, by a bulk update) is shown as an error, not a crash.
    Variant.objects.filter(simulation=simulation, name="paraphrase").update(replacements={"{PLAYER}": "Finland"})
    Variant.objects.filter(simulation=simulation, name="explicit").update(
        replacements={**Variant.objects.get(simulation=simulation, name="explicit").replacements,
                      "{PLAYER}": "<b>Finland</b>"})
    login(client, author)
    change = client.get(reverse("admin:crisis_app_simulation_change", args=[simulation.pk])).content.decode()
    url = reverse("admin:crisis_app_simulation_preview", args=[simulation.pk])
    assert url in change
    page = client.get(url).content.decode()
    for variant in simulation.variants.all():
        assert f'id="variant-{variant.name}"' in page
    assert page.count("[the model&#x27;s move-1 answer]") == 6 * 2  # 6 renderable variants x 2 continuations
    assert "Cannot be rendered: replacements: no value for {ADVERSARY}, {ALLY}, {NATION_NOTES}" in page
    assert "&lt;b&gt;Finland&lt;/b&gt;" in page and "<b>Finland</b>" not in page
    assert "Level 2 (Level 2: meaningful change) · ablation: swapped ally adversary · explicit nations" in page
    assert "anonymised nations" in page and "A) Board the ship" in page
    assert "Move 2: revisionist" in page


def test_scores_and_scorers_are_read_only_and_other_roles_cannot_author(client, author, analyst, benchmark):
    Scorer.objects.create(name="minilm", kind="bertscore", config={"num_layers": 4})
    login(client, author)
    assert client.get(reverse("admin:crisis_app_scorer_changelist")).status_code == 200
    assert client.get(reverse("admin:crisis_app_groupscore_changelist")).status_code == 200
    assert client.get(reverse("admin:crisis_app_scorer_add")).status_code == 403
    assert GroupScore.objects.count() == 0
    client.logout()
    login(client, analyst)
    response = client.post(ADD, simulation_form(benchmark, [{"name": "explicit"}]))
    assert response.status_code == 403  # the analyst opens the console but may not add a simulation
    assert not Simulation.objects.exists()
