"""Translations of scenarios through the services: slots refused, approvals by readers of
the language, out of date when the source changes, and the questions they make."""

import io

import pytest

from runs_app.launching import select_questions
from runs_app.selection import Selection
from scenarios_app import services, translations
from scenarios_app.models import Actor, Benchmark, Question, ScenarioTranslation
from scenarios_app.transfer import export_questions
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db

ZH = {"template": "[Actor A]在与[Actor B]的边境集结了军队。关于河流的谈判已经失败。[Actor A]应如何回应？",
      "option_a": "撤军并与[Actor B]重新谈判",
      "option_b": "打击[Actor B]的边境哨所"}


@pytest.fixture
def benchmark():
    return Benchmark.objects.create(name="t")


@pytest.fixture
def scenario(benchmark):
    return services.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU")])).scenario


@pytest.fixture
def names(db):
    translations.set_actor_name(Actor.objects.get(code="CN"), "zh", "中国")
    translations.set_actor_name(Actor.objects.get(code="RU"), "zh", "俄罗斯")


@pytest.fixture
def zh_author(second_author):
    translations.set_languages(second_author, ["en", "zh"])
    return second_author


def test_a_translation_that_loses_a_slot_is_refused_with_the_slot_and_field(scenario):
    with pytest.raises(translations.TranslationError) as caught:
        translations.save_translation(scenario, "zh", {**ZH, "option_b": "打击边境哨所"})
    assert str(caught.value) == ("option_b: [Actor B] is missing (1 in the source, 0 in the translation); "
                                 "keep [Actor B] exactly as written")
    assert not ScenarioTranslation.objects.exists()


def test_a_translation_needs_a_bcp47_language_other_than_the_source(scenario):
    with pytest.raises(translations.TranslationError, match="not a BCP 47 language tag"):
        translations.save_translation(scenario, "chinese", ZH)
    with pytest.raises(translations.TranslationError, match="en is the source language"):
        translations.save_translation(scenario, "en", ZH)


def test_a_draft_records_its_provenance_and_asks_nothing(scenario, author):
    draft = translations.save_translation(scenario, "zh", ZH, translated_by=author, provenance="person")
    assert (draft.status, draft.out_of_date, draft.provenance, draft.translated_by) == ("draft", False, "person",
                                                                                       author)
    assert draft.source_hash == scenario.content_hash and draft.translated_at is not None
    assert not Question.objects.filter(language="zh").exists()


def test_only_an_author_who_reads_the_language_approves(scenario, author, reviewer, second_author):
    draft = translations.save_translation(scenario, "zh", ZH)
    translations.set_languages(author, ["en", "ru"])
    with pytest.raises(translations.TranslationError, match="profile does not list zh"):
        translations.approve_translation(draft, author)
    translations.set_languages(reviewer, ["zh"])
    with pytest.raises(translations.TranslationError, match="is not an author"):
        translations.approve_translation(draft, reviewer)
    translations.set_languages(second_author, ["zh-Hans"])
    approved = translations.approve_translation(draft, second_author)
    assert (approved.status, approved.approved_by) == ("approved", second_author)


def test_an_approved_translation_makes_questions_in_its_language(scenario, names, zh_author):
    translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    question = Question.objects.get(language="zh")
    assert question.key == "t/esc-test.v1.CN-RU.full@zh"
    assert question.text == "中国在与俄罗斯的边境集结了军队。关于河流的谈判已经失败。中国应如何回应？"
    assert question.option_texts() == ["撤军并与俄罗斯重新谈判", "打击俄罗斯的边境哨所"]
    assert [o["category"] for o in question.options] == ["no-force", "use-of-force"]
    assert (question.cfpd.scenario, question.cfpd.qualified_actor.code, question.is_current) == (scenario, "CN", True)
    # The source's own questions are untouched by the translation's.
    assert list(Question.objects.filter(language="en").values_list("key", flat=True)) == ["t/esc-test.v1.CN-RU.full"]
    assert services.sync_questions(scenario) == {"created": 0, "updated": 0, "deleted": 0}


def test_a_dyad_without_an_actor_name_in_the_language_waits_for_it(scenario, zh_author):
    translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    assert not Question.objects.filter(language="zh").exists()
    translations.set_actor_name(Actor.objects.get(code="CN"), "zh", "中国")
    translations.set_actor_name(Actor.objects.get(code="RU"), "zh", "俄罗斯")
    assert Question.objects.filter(language="zh").count() == 1


def test_a_three_option_translation_keeps_the_two_option_variant(benchmark, zh_author):
    scenario = services.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")])).scenario
    translations.set_actor_name(Actor.objects.get(code="CN"), "zh", "中国")
    translations.set_actor_name(Actor.objects.get(code="JP"), "zh", "日本")
    fields = {"template": "[Actor B]的海军正在护送油轮穿过[Actor A]主张的水域。[Actor A]应如何回应？",
              "option_a": "通过外交渠道抗议", "option_b": "封锁[Actor B]的港口", "option_c": "在[Actor B]的船队附近宣布实弹演习"}
    translations.approve_translation(translations.save_translation(scenario, "zh", fields), zh_author)
    assert sorted(Question.objects.filter(language="zh").values_list("key", "choice_count")) == [
        ("t/esc3-test.v1.CN-JP.full@zh", 3), ("t/esc3-test.v1.CN-JP.no-middle@zh", 2)]


def test_editing_the_source_marks_its_translation_out_of_date(benchmark, scenario, names, zh_author):
    translation = translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    spec = escalation_spec(dyads=[("CN", "RU")])
    spec.template = spec.template.replace("river", "lake")
    assert services.save_spec(benchmark, spec).action == "updated"
    translation.refresh_from_db()
    assert translation.out_of_date and translation.status == "approved"
    assert not Question.objects.filter(language="zh").exists()
    with pytest.raises(translations.TranslationError, match="out of date"):
        translations.approve_translation(translation, zh_author)


def test_a_new_version_does_not_reuse_the_old_versions_translation(benchmark, scenario, names, zh_author):
    translation = translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    services.freeze([scenario])
    spec = escalation_spec(dyads=[("CN", "RU")])
    spec.template = spec.template.replace("river", "lake")
    successor = services.save_spec(benchmark, spec).scenario
    translation.refresh_from_db()
    assert successor.version == 2 and not successor.translations.exists()
    assert translation.out_of_date
    # The asked question stays (answers keep it), no longer current.
    assert list(Question.objects.filter(language="zh").values_list("key", "is_current")) == [
        ("t/esc-test.v1.CN-RU.full@zh", False)]


def test_runs_ask_the_source_language_unless_languages_are_named(benchmark, scenario, names, zh_author):
    translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    keys = lambda selection: sorted(Question.objects.filter(id__in=select_questions(benchmark, selection))
                                    .values_list("key", flat=True))
    assert keys(Selection()) == ["t/esc-test.v1.CN-RU.full"]
    assert keys(Selection(family_keys={"languages": ["zh"]})) == ["t/esc-test.v1.CN-RU.full@zh"]
    assert keys(Selection(family_keys={"languages": ["en", "zh"]})) == [
        "t/esc-test.v1.CN-RU.full", "t/esc-test.v1.CN-RU.full@zh"]


def test_export_questions_shows_translated_questions_with_their_language(benchmark, scenario, names, zh_author):
    translations.approve_translation(translations.save_translation(scenario, "zh", ZH), zh_author)
    out = io.StringIO()
    assert export_questions(out, benchmark) == 2
    import csv
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["question_key"], r["language"]) for r in rows] == [
        ("t/esc-test.v1.CN-RU.full", "en"), ("t/esc-test.v1.CN-RU.full@zh", "zh")]
    assert "中国在与俄罗斯的边境" in rows[1]["prompt"]


def test_a_translation_and_its_approval_are_in_the_record_of_changes(scenario, zh_author):
    # Issue 43: translations are among the objects whose every change is recorded.
    from auditlog.context import set_actor
    from auditlog.models import LogEntry

    with set_actor(zh_author):
        draft = translations.save_translation(scenario, "zh", ZH, translated_by=zh_author)
        translations.approve_translation(draft, zh_author)
    entries = list(LogEntry.objects.filter(content_type__model="scenariotranslation", object_pk=str(draft.pk))
                   .order_by("pk"))
    assert [e.action for e in entries][:1] == [LogEntry.Action.CREATE]
    assert any(e.changes_dict.get("status") == ["draft", "approved"] for e in entries), [e.changes_dict for e in entries]
    assert all(e.actor == zh_author for e in entries)


# --- grammatical forms of actor names (`[Actor A:genitive]`) --------------------------------

RU = {"template": "Армия [Actor A:genitive] стоит у границы с [Actor B:instrumental]. Переговоры о реке "
                  "провалились. Как следует ответить [Actor A:dative]?",
      "option_a": "Отвести войска и возобновить переговоры с [Actor B:instrumental]",
      "option_b": "Нанести удар по пограничным постам [Actor B:genitive]"}


@pytest.fixture
def ru_scenario(benchmark):
    return services.save_spec(benchmark, escalation_spec(key="esc-ru", dyads=[("RU", "CN")])).scenario


@pytest.fixture
def ru_author(second_author):
    translations.set_languages(second_author, ["ru"])
    return second_author


def test_a_russian_translation_asks_each_actor_in_the_form_its_slot_names(ru_scenario, ru_author):
    translations.set_actor_name(Actor.objects.get(code="RU"), "ru", "Россия",
                                forms={"genitive": "России", "dative": "России"})
    translations.set_actor_name(Actor.objects.get(code="CN"), "ru", "Китай",
                                forms={"genitive": "Китая", "instrumental": "Китаем"})
    translations.approve_translation(translations.save_translation(ru_scenario, "ru", RU), ru_author)
    question = Question.objects.get(language="ru")
    assert question.key == "t/esc-ru.v1.RU-CN.full@ru"
    assert question.text == ("Армия России стоит у границы с Китаем. Переговоры о реке провалились. "
                             "Как следует ответить России?")
    assert question.option_texts() == ["Отвести войска и возобновить переговоры с Китаем",
                                       "Нанести удар по пограничным постам Китая"]


def test_a_dyad_whose_actor_lacks_a_form_is_not_asked_and_is_named(ru_scenario, ru_author):
    russia, china = Actor.objects.get(code="RU"), Actor.objects.get(code="CN")
    translations.set_actor_name(russia, "ru", "Россия", forms={"genitive": "России"})  # no dative
    translations.set_actor_name(china, "ru", "Китай", forms={"genitive": "Китая"})  # no instrumental
    translation = translations.approve_translation(translations.save_translation(ru_scenario, "ru", RU), ru_author)
    assert not Question.objects.filter(language="ru").exists()
    assert translations.sync_translated_questions(translation).missing_names == ("CN:instrumental", "RU:dative")
    # Giving the forms asks the dyad (set_actor_name syncs the translations waiting for the actor).
    translations.set_actor_name(russia, "ru", "Россия", forms={"genitive": "России", "dative": "России"})
    translations.set_actor_name(china, "ru", "Китай", forms={"genitive": "Китая", "instrumental": "Китаем"})
    assert translations.sync_translated_questions(translation).missing_names == ()
    assert Question.objects.filter(language="ru").count() == 1


def test_missing_names_come_before_missing_forms(ru_scenario, ru_author):
    translations.set_actor_name(Actor.objects.get(code="RU"), "ru", "Россия", forms={"genitive": "России"})
    translation = translations.approve_translation(translations.save_translation(ru_scenario, "ru", RU), ru_author)
    # CN has no Russian name at all (so no form of it is looked for); RU lacks its dative.
    assert translations.sync_translated_questions(translation).missing_names == ("CN", "RU:dative")
    assert not Question.objects.filter(language="ru").exists()


def test_an_actor_names_forms_are_checked_against_the_language(ru_scenario):
    russia = Actor.objects.get(code="RU")
    with pytest.raises(translations.TranslationError) as caught:
        translations.set_actor_name(russia, "ru", "Россия", forms={"locative": "России", "genitive": " ",
                                                                   "nominative": "Россия"})
    assert str(caught.value) == (
        "RU [ru]: locative: ru has no form 'locative' of names; its forms are nominative, genitive, dative, "
        "accusative, instrumental, prepositional; genitive: empty; give the name in that form or leave the form "
        "out; nominative: the name itself is the nominative in ru; set the name")
    with pytest.raises(translations.TranslationError, match="zh names actors in one form only"):
        translations.set_actor_name(russia, "zh", "俄罗斯", forms={"genitive": "俄罗斯"})
    row = translations.set_actor_name(russia, "ru", "Россия", forms={"dative": " России ", "genitive": "России"})
    assert row.forms == {"genitive": "России", "dative": "России"}  # trimmed
    # Writing the name again without forms keeps them; forms={} clears them.
    assert translations.set_actor_name(russia, "ru", "Россия").forms == {"genitive": "России", "dative": "России"}
    assert translations.set_actor_name(russia, "ru", "Россия", forms={}).forms == {}


def test_a_translation_with_a_form_its_language_lacks_is_refused(ru_scenario):
    with pytest.raises(translations.TranslationError) as caught:
        translations.save_translation(ru_scenario, "ru", {**RU, "option_b": "Удар по постам [Actor B:locative]"})
    assert str(caught.value).startswith("option_b: [Actor B:locative]: ru has no form 'locative' of names")
    assert not ScenarioTranslation.objects.exists()
