"""The demo's translations (issue 41): `translate_demo` drafts a few demo scenarios in
Chinese with a model through the same path an author's request takes (here the fake
OpenAI-compatible server, its replies set per prompt; the bundled model's own run is
scripts/demo's), approves the drafts the slot check passed as the demo's author (whose
profile then lists zh), labels them as machine drafts, says which were refused and goes on;
and plain `load_demo` makes none of it."""

import io

import pytest
from django.core.management import call_command

from analysis_app import translation_quality
from benchmarks_app.models import Question
from runs_app import queueing
from runs_app.models import LLMModel
from scenarios_app import demo_translations, translations
from scenarios_app.models import ActorNameTranslation, Scenario, ScenarioTranslation
from tests.fakes.fixtures import fake, server  # noqa: F401

pytestmark = pytest.mark.django_db

WAR, OUTPOSTS, DETENTIONS = demo_translations.DEMO_SCENARIOS
# The drafts the fake model writes: the demo's own translations (every slot kept), except
# OUTPOSTS' template, which loses [Actor A] (a small model's kind of slip): refused, named,
# and the demo goes on with its own translation of that scenario.
DRAFTS = {key: {f: pair[1] for f, pair in fields.items()}
          for key, fields in demo_translations.fixture_translations("zh").items()}
DRAFTS[OUTPOSTS] = {**DRAFTS[OUTPOSTS], "template": DRAFTS[OUTPOSTS]["template"].replace("[Actor A]", "他们")}


@pytest.fixture(autouse=True)
def quick_bertscore(monkeypatch):
    """BERTScore stood in by chrF / 100, as in test_translation_drafts.py (the bundled
    encoder's own scores are tested in tests/analysis_app/test_translation_quality.py)."""
    monkeypatch.setattr(translation_quality, "bertscore_f1", lambda sources, backs: [
        translation_quality.chrf(s, b) / 100 for s, b in zip(sources, backs)])


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    sent = []
    monkeypatch.setattr(queueing, "publish", lambda task, args, **kwargs: sent.append((task, args)))
    return sent


@pytest.fixture
def demo(django_user_model):
    call_command("load_demo", stdout=io.StringIO())
    return django_user_model.objects.create_superuser("admin", "admin@example.org", "x")


@pytest.fixture
def served(fake):
    """The fake server's replies: each source text → its draft; each draft → its source
    (a faithful back-translation: chrF 100)."""
    replies = []
    for key, fields in DRAFTS.items():
        source = translations.source_fields(Scenario.objects.get(benchmark__name="demo", key=key, is_current=True))
        replies += [[source[f], text] for f, text in fields.items()]
        replies += [[text, source[f]] for f, text in fields.items()]
    fake.configure(replies=replies)
    return LLMModel.objects.create(name="served", litellm_model="openai/fake", api_base=fake.base_url,
                                   answer_mode="generate", timeout_seconds=10)


def command(*args):
    out = io.StringIO()
    call_command("translate_demo", "--model", "served", *args, stdout=out)
    return out.getvalue()


def test_load_demo_alone_makes_no_translation(demo):
    assert not Question.objects.exclude(language="en").exists()
    assert not ScenarioTranslation.objects.exists() and not ActorNameTranslation.objects.exists()


def test_it_drafts_approves_and_labels_and_says_what_it_refused(demo, served, fake):
    source_count = Question.objects.filter(language="en").count()
    out = command()
    # The refused draft is said, with its slot and field, and the demo's own translation
    # (written by a person) is used instead, labelled so; the command goes on (exit 0).
    assert f"{OUTPOSTS} [zh]: refused: The draft loses or adds a slot or an option" in out
    assert "template: [Actor A] is missing (2 in the source, 0 in the translation)" in out
    assert (f"{OUTPOSTS} [zh]: fixture: the demo's own translation, written by a person (person: demo fixture), "
            "approved by admin") in out
    assert "zh: 3 of 3 scenario(s) approved in zh (" in out
    assert "2 machine draft(s) by served, 1 the demo's own translation(s) written by a person" in out, out
    assert "admin's profile now lists zh" in out
    assert translations.languages_of(demo) == ["zh"]
    approved = {t.scenario.key: t for t in ScenarioTranslation.objects.select_related("scenario", "approved_by")}
    assert set(approved) == {WAR, OUTPOSTS, DETENTIONS}
    assert all(t.usable and t.approved_by == demo for t in approved.values())
    for key in (WAR, DETENTIONS):
        translation = approved[key]
        assert translations.translated_fields(translation) == DRAFTS[key]
        # Labelled a machine draft: the model, its prompt, the back-translation model.
        assert translation.provenance.startswith("model:served draft:") and translation.model_name == "served"
        assert translation.back_model_name == "served" and "into Chinese (zh)" in translation.prompt
        assert all(score["chrf"] == 100 and not score["drifted"] for score in translation.scores.values())
        assert f"{key} [zh]: approved: a machine draft (model:served draft:" in out
    fixture = approved[OUTPOSTS]
    assert (fixture.provenance, fixture.model_name, fixture.scores) == ("person: demo fixture", "", {})
    assert fixture.template.startswith("[Actor A]和[Actor B]的军队在一条从未完全划定的边界沿线")
    assert translations.translated_fields(fixture) != DRAFTS[OUTPOSTS]
    # Every source question of the three scenarios has its Chinese question (every actor of
    # their dyads is named in the fixture); the source's questions are untouched.
    for key in (WAR, OUTPOSTS, DETENTIONS):
        source = set(Question.objects.filter(cfpd__scenario__key=key, language="en").values_list("key", flat=True))
        zh = set(Question.objects.filter(cfpd__scenario__key=key, language="zh").values_list("key", flat=True))
        assert source and zh == {f"{k}@zh" for k in source}
    assert Question.objects.filter(language="en").count() == source_count
    war_cn_us = Question.objects.get(key__endswith=".CN-US.full@zh", cfpd__scenario__key=WAR)
    assert war_cn_us.text.startswith("美国与一个同中国接壤的小国签有共同防御条约。")
    names = ActorNameTranslation.objects.get(actor__code="CN", language="zh")
    assert (names.name, names.provenance) == ("中国", "demo fixture")
    # Again: every approved translation is kept, no model asked.
    asked = fake.stats()["total_requests"]
    again = command()
    assert f"{WAR} [zh]: approved before, kept (model:served draft:" in again
    assert f"{OUTPOSTS} [zh]: approved before, kept (person: demo fixture)" in again
    assert "2 machine draft(s) by served, 1 the demo's own translation(s)" in again
    assert fake.stats()["total_requests"] == asked


def test_a_draft_not_in_the_language_is_not_approved(demo, fake):
    """What the bundled Gemma 3 270M (a base model) does: it continues in English. The
    slots survive, so the slot check passes; the demo's author does not approve it."""
    source = translations.source_fields(Scenario.objects.get(benchmark__name="demo", key=WAR, is_current=True))
    fake.configure(replies=[[text, text] for text in source.values()])  # the English, back
    LLMModel.objects.create(name="served", litellm_model="openai/fake", api_base=fake.base_url,
                            answer_mode="generate", timeout_seconds=10)
    out = command("--scenarios", WAR)
    assert (f"{WAR} [zh]: not approved: served's draft passed the slot check but is not written in Chinese (0% of "
            "its letters in the language's script; the demo's author approves 50% or more)") in out
    assert f"{WAR} [zh]: fixture: the demo's own translation" in out
    assert "0 machine draft(s) by served, 1 the demo's own translation(s)" in out
    assert ScenarioTranslation.objects.get().provenance == "person: demo fixture"


def test_drafts_limits_what_the_model_is_asked_and_the_rest_take_the_demos_own(demo, served, fake):
    # --drafts 1: the model drafts WAR only (its template and options there and back: 2 × 3
    # fields = 6 requests); OUTPOSTS and DETENTIONS take the demo's own translations unasked.
    out = command("--drafts", "1")
    assert f"{WAR} [zh]: approved: a machine draft (model:served draft:" in out
    for key in (OUTPOSTS, DETENTIONS):
        assert f"{key} [zh]: not drafted: the model drafts 1 scenario(s) here (--drafts)" in out
        assert f"{key} [zh]: fixture: the demo's own translation" in out
    assert "zh: 3 of 3 scenario(s) approved in zh (" in out
    assert "1 machine draft(s) by served, 2 the demo's own translation(s)" in out
    drafted = len(translations.source_fields(Scenario.objects.get(benchmark__name="demo", key=WAR, is_current=True)))
    assert fake.stats()["total_requests"] == 2 * drafted


def test_a_failing_model_is_said_and_the_fixture_used(demo, served, fake):
    fake.configure(fault_rate=1.0, fault_kinds=["400"])
    out = command("--scenarios", WAR)
    assert f"{WAR} [zh]: failed: CallFailed: served: " in out
    assert "zh: 1 of 1 scenario(s) approved in zh" in out and "0 machine draft(s) by served" in out


def test_the_demos_own_translations_are_of_the_demos_text_and_keep_every_slot(demo):
    fixtures = demo_translations.fixture_translations("zh")
    assert set(fixtures) == set(demo_translations.DEMO_SCENARIOS)
    for key, fields in fixtures.items():
        scenario = Scenario.objects.get(benchmark__name="demo", key=key, is_current=True)
        assert {f: pair[0] for f, pair in fields.items()} == translations.source_fields(scenario)
        assert translations.problems_of(scenario, {f: pair[1] for f, pair in fields.items()}) == []
        assert all(demo_translations.script_share(pair[1], "zh") > 0.9 for pair in fields.values())
    # Every actor of their dyads has a name in the fixture.
    codes = {code for s in Scenario.objects.filter(benchmark__name="demo", key__in=fixtures, is_current=True)
             for d in s.dyads.select_related("actor_a", "actor_b") for code in (d.actor_a.code, d.actor_b.code)}
    assert codes <= set(demo_translations.actor_names("zh"))


def test_script_share():
    # 应 与 谈 判 (Han) and n o w: 4 of 7 letters; the slots are not letters of the text.
    assert demo_translations.script_share("[Actor A]应与[Actor B]谈判 now", "zh") == pytest.approx(4 / 7)
    # روسيا (5 Arabic letters) and "and" (3): 5 of 8.
    assert demo_translations.script_share("روسيا and", "ar") == pytest.approx(5 / 8)
    assert demo_translations.script_share("[Actor A] should talk", "ru") == 0.0
    assert demo_translations.script_share("anything", "es") is None  # Latin: English cannot be told apart
    assert demo_translations.script_share("[Actor A]", "zh") == 0.0


def test_it_cannot_start_without_the_demo_an_author_or_the_model(db, django_user_model):
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="no author to approve the translations: run create_admin first"):
        command()
    django_user_model.objects.create_superuser("admin", "admin@example.org", "x")
    with pytest.raises(CommandError, match="no registered model 'served'"):
        command()
    LLMModel.objects.create(name="served", litellm_model="openai/fake", answer_mode="generate")
    with pytest.raises(CommandError, match=f"benchmark 'demo' has no scenario {WAR}, .*: run load_demo first"):
        command()
