"""Every state change of a panel, on the database: questions picked with the launch's
selection, links made and withdrawn, the open link's cap, consent dealing a balanced block
with the Latin square's option orders, the profile, answers (bad option, double submit, out
of order), attention checks excluding a respondent, and the panel's results."""

from collections import Counter

import pytest

from benchmarks_app.models import Question
from benchmarks_app.services import render_messages
from panels_app import results, services
from panels_app.models import PanelAnswer, Respondent
from runs_app.models import LLMModel, Response, Run
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    return make_benchmark()[0]


def test_questions_are_picked_with_the_launchs_selection_and_the_seed_recorded(benchmark):
    panel = make_panel(benchmark, selection={"sample": 2, "seed": 9})
    picked = sorted(panel.panel_questions.values_list("question_id", flat=True))
    from runs_app.launching import select_questions
    from runs_app.selection import Selection
    assert picked == select_questions(benchmark, Selection(sample=2, seed=9))
    assert panel.selection["seed"] == 9 and panel.selection["sample"] == 2
    panel.selection = {"choice_counts": [3]}
    panel.save()
    services.pick_questions(panel)
    assert {q.choice_count for q in Question.objects.filter(pk__in=panel.panel_questions.values("question_id"))} == {3}


def test_a_selection_naming_nothing_is_refused_with_its_key(benchmark):
    panel = make_panel(benchmark)
    panel.selection = {"sample": "many", "colour": ["red"]}
    with pytest.raises(services.PanelError, match=r"sample: must be a whole number.*colour"):
        services.read_selection(panel)
    panel.selection = {"domains": ["no-such-domain"]}
    with pytest.raises(services.PanelError, match="unknown domain"):
        services.read_selection(panel)


def test_links_are_single_use_tokens_of_128_bits(benchmark):
    panel = make_panel(benchmark)
    made = services.create_invitations(panel, 50)
    tokens = {r.token for r in made}
    assert len(tokens) == 50 and {len(t) for t in tokens} == {22}  # 16 bytes in URL-safe base64
    for bad in (0, -1, services.MAX_LINKS + 1, "5", True):
        with pytest.raises(services.PanelError, match="count"):
            services.create_invitations(panel, bad)


def test_consent_deals_a_block_with_checks_and_the_prompt_as_models_see_it(benchmark):
    panel = make_panel(benchmark, per_respondent=2, checks=1)
    respondent = services.create_invitations(panel, 1)[0]
    services.consent(respondent)
    services.consent(respondent)  # a second press deals nothing more
    pages = list(respondent.answers.select_related("question", "attention_check"))
    # 2 items and 1 check after item ⌊1·2/2⌋ = 1
    assert [p.question_id is not None for p in pages] == [True, False, True]
    for page in pages:
        if page.question_id:
            assert sorted(page.option_order) == list(range(len(page.question.options)))
            assert page.messages == render_messages(page.question, page.option_order, None)
    assert Respondent.objects.get(pk=respondent.pk).number == 0


def test_each_respondent_of_a_question_sees_the_next_rotation_of_its_options(benchmark):
    panel = make_panel(benchmark, per_respondent=1, checks=0, selection={"choice_counts": [3]})
    assert panel.panel_questions.count() == 2  # q1 and q3 have three options
    orders: dict[int, list] = {}
    for respondent in services.create_invitations(panel, 6):
        services.consent(respondent)
        page = respondent.answers.get()
        orders.setdefault(page.question_id, []).append(page.option_order)
    for dealt in orders.values():
        assert len(dealt) == 3
        # over 3 respondents, every option once at every position (a Latin square)
        assert all(sorted(order[p] for order in dealt) == [0, 1, 2] for p in range(3))


def test_answers_are_read_as_untrusted_input(benchmark):
    panel = make_panel(benchmark, per_respondent=2, checks=1, profile=False)
    respondent = services.create_invitations(panel, 1)[0]
    services.consent(respondent)
    first = services.current_page(respondent)
    with pytest.raises(services.AnswerInvalid, match=r"choose one of the options \(A to"):
        services.answer_item(respondent, first.position, "Z")
    with pytest.raises(services.AnswerInvalid, match="choose one of the options"):
        services.answer_item(respondent, first.position, None)
    with pytest.raises(services.AnswerInvalid, match="in order"):
        services.answer_item(respondent, first.position + 2, "A")
    with pytest.raises(services.AnswerInvalid, match="does not exist"):
        services.answer_item(respondent, "x", "A")
    with pytest.raises(services.AnswerInvalid, match="at most 2,000"):
        services.answer_item(respondent, first.position, "A", "w" * 2001)
    saved = services.answer_item(respondent, first.position, "B", "  because  ")
    again = services.answer_item(respondent, first.position, "A", "changed my mind")  # a double submit
    assert again.pk == saved.pk
    stored = PanelAnswer.objects.get(pk=saved.pk)
    assert (stored.chosen_letter, stored.reason) == ("B", "because")
    # the code is the canonical option's letter: B shows option order[1]
    assert stored.code == "ABCDEFGHIJ"[stored.option_order[1]]
    assert stored.seconds is not None and stored.seconds >= 0
    assert PanelAnswer.objects.filter(respondent=respondent, answered_at__isnull=False).count() == 1


def test_the_last_answer_finishes_the_link(benchmark):
    panel = make_panel(benchmark, per_respondent=2, checks=1, profile=False)
    respondent = services.create_invitations(panel, 1)[0]
    services.consent(respondent)
    while (page := services.current_page(respondent)) is not None:
        services.answer_item(respondent, page.position, "B")  # "Second": the check passes
    respondent.refresh_from_db()
    assert respondent.finished_at is not None and not respondent.excluded
    assert services.stage(respondent) == "finished"
    with pytest.raises(services.AnswerInvalid, match="closed"):
        services.answer_item(respondent, 0, "A")


def test_the_profile_is_checked_and_saved(benchmark):
    panel = make_panel(benchmark)
    respondent = services.create_invitations(panel, 1)[0]
    services.consent(respondent)
    assert services.stage(Respondent.objects.get(pk=respondent.pk)) == "profile"
    assert services.save_profile(respondent, {"years": "many", "country": "FR"}) == {
        "years": "Years in the field: please give a whole number from 0 to 9999.",
        "country": "Country: please choose one of the choices."}
    assert services.save_profile(respondent, {"years": "12", "country": "CN"}) == {}
    respondent.refresh_from_db()
    assert respondent.profile == {"years": 12, "country": "CN"}
    assert services.stage(respondent) == "item"


def test_a_withdrawn_link_opens_nothing(benchmark):
    panel = make_panel(benchmark)
    respondent = services.create_invitations(panel, 1)[0]
    assert services.withdraw(respondent) is True
    assert services.withdraw(respondent) is False
    respondent.refresh_from_db()
    assert services.stage(respondent) == "withdrawn"
    services.consent(respondent)
    assert not respondent.answers.exists()


def test_the_open_link_admits_up_to_its_cap(benchmark):
    panel = make_panel(benchmark)
    token = services.open_link(panel, 2)
    assert services.join_open_link("x" * 22) is None
    first, second = services.join_open_link(token), services.join_open_link(token)
    assert first.via_open_link and first.token != second.token
    with pytest.raises(services.PanelFull):
        services.join_open_link(token)
    assert services.open_link(panel, 3) == token  # re-capped, the same link
    assert services.join_open_link(token) is not None


def _answer_all(respondent, letter_for_items="A", check_letter="B"):
    services.consent(respondent)
    while (page := services.current_page(respondent)) is not None:
        services.answer_item(respondent, page.position, check_letter if page.attention_check_id else letter_for_items)


def test_a_failed_attention_check_excludes_the_respondent_and_is_counted(benchmark):
    panel = make_panel(benchmark, per_respondent=4, checks=1, profile=False)
    kept, failed = services.create_invitations(panel, 2)
    _answer_all(kept)
    _answer_all(failed, check_letter="C")
    found = results.panel_results(panel)
    assert (found.links, found.consented, found.finished, found.excluded) == (2, 2, 2, 1)
    assert found.kept_answers == 4  # the kept respondent's four items; none of the other's
    assert set(results.people_by_question(panel)) == set(panel.panel_questions.values_list("question_id", flat=True))
    assert {rid for by in results.people_by_question(panel).values() for rid in by} == {kept.pk}


def test_the_panel_page_sets_each_model_beside_the_panel(benchmark):
    panel = make_panel(benchmark, per_respondent=1, checks=0, profile=False, selection={"sample": 1, "seed": 0})
    question = Question.objects.get(pk=panel.panel_questions.get().question_id)
    for n, respondent in enumerate(services.create_invitations(panel, 2)):
        services.consent(respondent)
        page = services.current_page(respondent)
        # answer the canonical option A, then B: the panel's distribution is (1/2, 1/2)
        wanted = "AB"[n]
        letter = "ABC"[page.option_order.index("ABC".index(wanted))]
        services.answer_item(respondent, page.position, letter)
    model = LLMModel.objects.create(name="hawk", litellm_model="openai/hawk")
    run = Run.objects.create(benchmark=benchmark, status="done")
    for repeat, code in enumerate(["A", "A", "B", "R"]):  # the refusal is left out: (2/3, 1/3)
        Response.objects.create(run=run, question=question, model=model, repeat=repeat, status="done", code=code,
                                option_order=list(range(question.choice_count)))
    found = results.panel_results(panel)
    assert Counter(c for _, _, c in found.questions[0].counts) == Counter({1: 2, 0: question.choice_count - 2})
    (row,) = found.models
    # M = (7/12, 5/12); KL(P‖M) = 2/3·log2(8/7) + 1/3·log2(4/5) = 0.128430 − 0.107309 = 0.021121;
    # KL(Q‖M) = 1/2·log2(6/7) + 1/2·log2(6/5) = −0.111196 + 0.131517 = 0.020321;
    # JSD = (0.021121 + 0.020321) / 2 = 0.020721; distance √0.020721 = 0.143947; similarity 0.856053
    assert row.model == "hawk" and row.n_questions == 1
    assert row.similarity == pytest.approx(0.856053, abs=1e-5)


def test_a_respondent_of_a_panel_with_nothing_to_ask_is_finished_at_consent(benchmark):
    panel = make_panel(benchmark, checks=0, profile=False)
    respondent = services.create_invitations(panel, 1)[0]
    panel.panel_questions.all().delete()  # as if the author emptied it after making the links
    assert services.consent(respondent).finished_at is not None
