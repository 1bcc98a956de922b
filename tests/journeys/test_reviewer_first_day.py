"""A team's first day at the coding page, in a real browser: ten keys pressed while every
save takes a second and a half are all stored, in the order pressed, with the queue shown
meanwhile; `?` lists every key; the overview's tables stay inside their cards at 1,366 px."""

import time
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from django.utils import timezone

from accounts.services import create_user_with_role
from encoding_app import reports, services
from encoding_app.models import Code, CodingPolicy, ReviewTask
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.journeys.test_author_browser import log_in
from tests.conftest import PASSWORD
from tests.factories import three_option_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SLOW_SAVE_S = 1.5
DYADS = [("CN", "JP"), ("US", "CU"), ("RU", "GB"), ("IN", "PK")]
# Ten keys: letters, refusal, invalid and digits (1, 2, 3 are the options A, B, C here:
# the answers were shown in the author's order).
KEYS = ["a", "b", "c", "r", "x", "1", "2", "3", "a", "b"]
STORED = ["A", "B", "C", "R", "X", "A", "B", "C", "A", "B"]


@pytest.fixture
def queue():
    """Twelve answers the automatic encoder leaves to reviewers (two letters named each),
    from a model with a long name, as a real team's are."""
    CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
    benchmark = Benchmark.objects.create(name="first-day")
    authoring.save_spec(benchmark, three_option_spec(key="escalation-naval-blockade-three-options", dyads=DYADS))
    model = LLMModel.objects.create(name="openrouter/meta-llama/llama-3.1-70b-instruct-turbo",
                                    litellm_model="openai/x")
    run = Run.objects.create(benchmark=benchmark)
    for repeat in range(3):
        for question in benchmark.questions.filter(cfpd__variant="full").order_by("key"):
            response = Response.objects.create(
                run=run, question=question, model=model, status="done", repeat=repeat, option_order=[0, 1, 2],
                raw_output=f"A or B, repeat {repeat}: both have merit, and a joint commission might too.")
            responses_answered.send(sender=Response, response_ids=[response.pk])
    assert ReviewTask.objects.filter(status="open").count() == 12
    return run


@pytest.fixture
def slow_saves(monkeypatch):
    """Every save takes SLOW_SAVE_S on the server: the live server's thread calls the
    patched service (the view looks it up on the module at each request)."""
    submit = services.submit_code

    def slow_submit(*args, **kwargs):
        time.sleep(SLOW_SAVE_S)
        return submit(*args, **kwargs)

    monkeypatch.setattr(services, "submit_code", slow_submit)


def test_ten_keys_pressed_during_slow_saves_are_all_stored_in_order(page, live_server, queue, slow_saves,
                                                                     screenshots):
    create_user_with_role("rita", PASSWORD, role="reviewers")
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    progress, state = page.locator("#progress"), page.locator("#queue-state")
    expect(progress).to_contain_text("0 coded by you · 12 left for you")
    first_task = int(page.locator("#task-id").text_content())
    for key in KEYS:  # as fast as the keyboard goes: all ten within the first save
        page.keyboard.press(key)
    expect(state).to_contain_text("saving…")
    expect(state).to_contain_text("keys queued")
    queued = int(state.get_attribute("data-queued"))
    assert queued >= 8, state.text_content()  # the first key is saving; the others wait
    page.screenshot(path=str(screenshots / "coding-queue.png"), full_page=True)

    expect(progress).to_contain_text("10 coded by you · 2 left for you", timeout=10 * SLOW_SAVE_S * 1000 + 15_000)
    expect(state).to_have_text("")
    codes = list(Code.objects.filter(coder__username="rita").order_by("created_at", "id")
                 .values_list("presented_letter", "code", "task_id"))
    assert [letter for letter, _, _ in codes] == STORED
    assert [code for _, code, _ in codes] == STORED  # shown in the author's order: canonical = presented
    tasks = [task for _, _, task in codes]
    assert tasks == sorted(tasks) and tasks[0] == first_task and len(set(tasks)) == 10  # one item per key
    assert Response.objects.filter(run=queue, code="X").count() == 1
    assert page.problems == []


def test_question_mark_lists_every_key(page, live_server, queue, screenshots):
    create_user_with_role("rita", PASSWORD, role="reviewers")
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/code/")
    expect(page.locator("#progress")).to_contain_text("0 coded by you · 12 left for you")
    overlay = page.locator("#shortcuts")
    expect(overlay).to_be_hidden()
    page.keyboard.press("?")
    expect(overlay).to_be_visible()
    keys = overlay.locator("th kbd").all_text_contents()
    for key in ["A", "J", "1", "9", "0", "R", "X", "S", "U", "N", "?"]:
        assert key in keys, key
    page.screenshot(path=str(screenshots / "coding-shortcuts.png"), full_page=False)
    page.keyboard.press("a")  # behind the overlay a key does nothing
    page.keyboard.press("Escape")
    expect(overlay).to_be_hidden()
    assert not Code.objects.exists()
    page.keyboard.press("x")  # the invalid code, from the keyboard
    expect(page.locator("#progress")).to_contain_text("1 coded by you · 11 left for you")
    assert list(Code.objects.values_list("code", flat=True)) == ["X"]
    assert page.problems == []


def test_the_overview_tables_stay_in_their_cards_at_1366_px(page, live_server, queue, screenshots):
    CodingPolicy.objects.filter(pk=1).update(double_coding_share=1)  # every first code goes to a second reviewer
    rita = create_user_with_role("rita", PASSWORD, role="reviewers")[0]
    sam = create_user_with_role("sam", PASSWORD, role="reviewers")[0]
    for code in "XAB":  # some items done, one held: every column of the items table has text
        services.submit_code(services.next_task(rita).pk, rita, code)
    seconds = ReviewTask.objects.filter(purpose="second").order_by("id")[:2]
    for task, code in zip(seconds, "XB"):  # two blind second codes: agreement over two answers
        ReviewTask.objects.filter(pk=task.pk).update(leased_by=sam, lease_expires_at=timezone.now() + timedelta(hours=1))
        services.submit_code(task.pk, sam, code)
    services.next_task(rita)
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}/encoding/")
    overflow = page.evaluate("""() => [...document.querySelectorAll('.panel table')].map(table => {
        const card = table.closest('.panel').getBoundingClientRect();
        const box = table.getBoundingClientRect();
        return {table: table.className, right: box.right, card: card.right, width: table.scrollWidth,
                shown: table.parentElement.clientWidth};
      }).filter(t => t.right > t.card + 0.5 || t.width > t.shown + 0.5)""")
    assert overflow == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path=str(screenshots / "coding-overview-1366.png"), full_page=True)
    assert reports.agreement().overall.n == 2  # and statsmodels is imported before the page asks (seconds under load)
    page.goto(f"{live_server.url}/encoding/agreement/", timeout=60_000)
    expect(page.locator(".few-warning").first).to_contain_text("Only 2 answers: below 30")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path=str(screenshots / "coding-agreement-1366.png"), full_page=True)
    assert page.problems == []
