"""A model's draft of a translation (issue 41): asked off the request thread through the
gateway (here of the fake OpenAI-compatible server, its replies set per prompt), refused
when it loses a slot, back-translated and scored, flagged where it drifted, and asked of
no model until an author who reads the language approves it."""

import pytest

from analysis_app import translation_quality
from runs_app import queueing
from runs_app.models import LLMModel
from scenarios_app import drafting, services, tasks, translations
from scenarios_app.models import Actor, Benchmark, Question, ScenarioTranslation, TranslationDraft
from tests.factories import TEMPLATE_2, escalation_spec
from tests.fakes.fixtures import fake, server  # noqa: F401

pytestmark = pytest.mark.django_db

OPTION_A, OPTION_B = "Withdraw and reopen talks with [Actor B]", "Strike [Actor B]'s border posts"
ZH = {"template": "[Actor A]在与[Actor B]的边境集结了军队。关于河流的谈判已经失败。[Actor A]应如何回应？",
      "option_a": "撤军并与[Actor B]重新谈判",
      "option_b": "打击[Actor B]的边境哨所"}
# The back-translations: the template and option A come back faithfully, option B as
# something else (its meaning reversed): it must be flagged as drifted.
BACK = {"template": ("[Actor A] has massed troops on the border with [Actor B]. Talks about the river have "
                     "failed. How should [Actor A] respond?"),
        "option_a": "Withdraw and reopen negotiations with [Actor B]",
        "option_b": "Send flowers and a letter of thanks to [Actor B]'s president"}


def replies(forward=ZH, back=BACK):
    """The fake's replies: each source text → its draft; each draft → its back-translation
    (a back-translation's prompt holds the draft, never the source)."""
    source = {"template": TEMPLATE_2, "option_a": OPTION_A, "option_b": OPTION_B}
    return [[source[f], forward[f]] for f in source] + [[forward[f], back[f]] for f in source]


@pytest.fixture(autouse=True)
def quick_bertscore(monkeypatch):
    """BERTScore stood in by chrF / 100 (the bundled encoder's own scores are tested in
    tests/analysis_app/test_translation_quality.py; loading it here took minutes on a busy
    2-core machine)."""
    monkeypatch.setattr(translation_quality, "bertscore_f1", lambda sources, backs: [
        translation_quality.chrf(s, b) / 100 for s, b in zip(sources, backs)])


@pytest.fixture
def scenario():
    return services.save_spec(Benchmark.objects.create(name="t"), escalation_spec(dyads=[("CN", "RU")])).scenario


@pytest.fixture
def served(fake):
    return LLMModel.objects.create(name="served", litellm_model="openai/fake", api_base=fake.base_url,
                                   answer_mode="generate", timeout_seconds=10)


@pytest.fixture
def back_model(fake):
    return LLMModel.objects.create(name="served-back", litellm_model="openai/fake", api_base=fake.base_url,
                                   answer_mode="generate", timeout_seconds=10)


@pytest.fixture
def sent(monkeypatch):
    """The messages sent to the queue, instead of a broker: (task, args)."""
    messages = []
    monkeypatch.setattr(queueing, "publish", lambda task, args, **kwargs: messages.append((task, args)))
    return messages


def run_worker(sent):
    """What a worker does with each draft's message."""
    while sent:
        task, args = sent.pop(0)
        assert task == drafting.TASK == tasks.translation_draft.name
        tasks.translation_draft(*args)


def request(scenario, served, back_model, author, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return drafting.request_draft(scenario, "zh", served, back_model, requested_by=author)


def test_a_draft_is_asked_by_a_worker_checked_scored_and_saved_with_its_provenance(
        scenario, served, back_model, author, fake, sent, django_capture_on_commit_callbacks):
    fake.configure(replies=replies())
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    # Nothing asked in the request: the draft waits for a worker.
    assert (draft.status, draft.total, fake.stats()["total_requests"]) == ("queued", 6, 0)
    assert sent == [(drafting.TASK, [draft.pk])]
    run_worker(sent)
    draft.refresh_from_db()
    assert (draft.status, draft.done, draft.reason) == ("done", 6, "")
    assert fake.stats()["total_requests"] == 6  # three fields there, three back
    translation = draft.translation
    assert translations.translated_fields(translation) == ZH
    assert (translation.status, translation.model_name, translation.back_model_name) == ("draft", "served",
                                                                                        "served-back")
    assert translation.provenance == f"model:served draft:{draft.pk}" and translation.translated_by == author
    assert translation.prompt == drafting.prompt_for(TEMPLATE_2, "en", "zh")
    assert "from English (en) into Chinese (zh)" in translation.prompt and TEMPLATE_2 in translation.prompt
    assert translation.back_translation == BACK
    scores = translation.scores
    assert set(scores) == {"template", "option_a", "option_b"}
    assert [scores[f]["drifted"] for f in ("template", "option_a", "option_b")] == [False, False, True]
    assert scores["template"]["chrf"] > 80 and scores["option_b"]["chrf"] < translation_quality.CHRF_THRESHOLD
    assert scores["option_b"]["bertscore_f1"] < scores["template"]["bertscore_f1"]
    # A model's draft is asked of no model until approved, like an upload.
    assert not Question.objects.filter(language="zh").exists()


def test_a_draft_that_loses_a_slot_is_refused_with_the_slot_and_where_and_not_saved(
        scenario, served, back_model, author, fake, sent, django_capture_on_commit_callbacks):
    lost = {**ZH, "option_b": "打击边境哨所"}  # [Actor B] dropped
    fake.configure(replies=replies(forward=lost))
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    run_worker(sent)
    draft.refresh_from_db()
    assert draft.status == "refused"
    assert draft.reason == ("The draft loses or adds a slot or an option, so it was not saved: option_b: "
                            "[Actor B] is missing (1 in the source, 0 in the translation); keep [Actor B] "
                            "exactly as written")
    assert draft.fields == lost and draft.translation is None  # what the model wrote is kept on the draft
    assert not ScenarioTranslation.objects.exists()
    assert fake.stats()["total_requests"] == 3  # not back-translated


def test_a_renamed_slot_is_refused_too(scenario, served, back_model, author, fake, sent,
                                       django_capture_on_commit_callbacks):
    renamed = {**ZH, "template": ZH["template"].replace("[Actor B]", "[行为者B]")}
    fake.configure(replies=replies(forward=renamed))
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    run_worker(sent)
    draft.refresh_from_db()
    assert draft.status == "refused"
    assert "template: [Actor B] is missing" in draft.reason and "template: [行为者B] is not in the source" in draft.reason


def test_a_model_that_fails_is_recorded_on_the_draft(scenario, served, back_model, author, fake, sent,
                                                    django_capture_on_commit_callbacks):
    fake.configure(fault_rate=1.0, fault_kinds=["400"])
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    run_worker(sent)
    draft.refresh_from_db()
    assert draft.status == "failed" and draft.reason.startswith("CallFailed: served: ")
    assert not ScenarioTranslation.objects.exists()


def test_a_message_sent_twice_runs_the_draft_once(scenario, served, back_model, author, fake, sent,
                                                  django_capture_on_commit_callbacks):
    fake.configure(replies=replies())
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    again = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    assert again.pk == draft.pk and len(sent) == 1  # a waiting draft is not doubled
    sent.append(sent[0])
    run_worker(sent)
    assert fake.stats()["total_requests"] == 6


def test_an_approved_draft_asks_its_questions(scenario, served, back_model, author, second_author, fake, sent,
                                              django_capture_on_commit_callbacks):
    fake.configure(replies=replies())
    request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    run_worker(sent)
    translations.set_actor_name(Actor.objects.get(code="CN"), "zh", "中国")
    translations.set_actor_name(Actor.objects.get(code="RU"), "zh", "俄罗斯")
    assert not Question.objects.filter(language="zh").exists()
    translations.set_languages(second_author, ["zh"])
    translations.approve_translation(ScenarioTranslation.objects.get(), second_author)
    assert Question.objects.get(language="zh").text.startswith("中国在与俄罗斯的边境")


def test_a_draft_needs_a_language_and_askable_models(scenario, served, back_model):
    with pytest.raises(drafting.DraftRefused, match="en is the source language"):
        drafting.request_draft(scenario, "en", served, back_model)
    external = LLMModel.objects.create(name="imported", is_external=True)
    with pytest.raises(drafting.DraftRefused, match="imported only holds imported answers"):
        drafting.request_draft(scenario, "zh", external, back_model)
    assert not TranslationDraft.objects.exists()


# -- the console's pages -------------------------------------------------------------------------

DRAFT_URL = "/admin/scenarios_app/scenariotranslation/draft/"


def signed_in(client, user):
    from tests.conftest import PASSWORD

    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_only_authors_may_ask_for_a_draft(client, reviewer, scenario):
    signed_in(client, reviewer)
    assert client.get(DRAFT_URL).status_code == 403
    assert client.post(DRAFT_URL, {}).status_code == 403
    assert not TranslationDraft.objects.exists()


def test_the_form_queues_a_draft_and_its_page_follows_it(client, author, scenario, served, back_model, fake, sent,
                                                         django_capture_on_commit_callbacks):
    translations.set_languages(author, ["en", "zh"])
    signed_in(client, author)
    page = client.get(DRAFT_URL + f"?scenario={scenario.pk}").content.decode()
    assert 'value="zh"' in page and "Draft with a model" in page
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(DRAFT_URL, {"scenario": scenario.pk, "language": "zh", "model": served.pk,
                                         "back_model": back_model.pk}, follow=True)
    draft = TranslationDraft.objects.get()
    assert answer.redirect_chain[-1][0] == f"/admin/scenarios_app/translationdraft/{draft.pk}/change/"
    page = answer.content.decode()
    assert "Waiting for a worker" in page and '<meta http-equiv="refresh"' in page
    assert fake.stats()["total_requests"] == 0 and sent == [(drafting.TASK, [draft.pk])]
    fake.configure(replies=replies())
    run_worker(sent)
    page = client.get(f"/admin/scenarios_app/translationdraft/{draft.pk}/change/").content.decode()
    assert "Done: saved as a draft translation" in page and '<meta http-equiv="refresh"' not in page
    assert page.count('<tr class="drifted">') == 1 and "⚠ drifted" in page
    listing = client.get("/admin/scenarios_app/scenariotranslation/").content.decode()
    assert "⚠ option_b" in listing and "Draft with a model" in listing


def test_a_bad_language_is_said_on_the_form_not_a_500(client, author, scenario, served, back_model, sent):
    signed_in(client, author)
    answer = client.post(DRAFT_URL, {"scenario": scenario.pk, "language": "chinese!", "model": served.pk,
                                     "back_model": back_model.pk})
    assert answer.status_code == 200
    assert "not a BCP 47 language tag" in answer.content.decode()
    assert not TranslationDraft.objects.exists() and not sent


def test_model_output_is_escaped_on_the_page(client, author, scenario, served, back_model, fake, sent,
                                             django_capture_on_commit_callbacks):
    fake.configure(replies=replies(back={**BACK, "option_a": "<script>alert(1)</script> [Actor B]"}))
    draft = request(scenario, served, back_model, author, django_capture_on_commit_callbacks)
    run_worker(sent)
    signed_in(client, author)
    page = client.get(f"/admin/scenarios_app/translationdraft/{draft.pk}/change/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
