"""Thirty scripted respondents through the real pages in one headless Chromium (issue 40's
Bar, oTree's bots in a real browser): ten browser contexts at a time, each moved one page per
round so the server serves them together; every third on a 360-px phone. One closes its
browser half-way and resumes on the same link in a fresh one; one fails the attention check;
a used link is refused; a respondent's browser reaches nothing else of the site; axe-core finds
no serious or critical violation on any kind of respondent page (on the desktop and the phone);
and the counts on the panel's page equal a hand count of what the script chose."""

from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import expect

from panels_app import services
from panels_app.models import Respondent
from tests.journeys.test_author_browser import log_in
from tests.panels_app.support import make_benchmark, make_panel
from tests.panels_app.test_respondent_browser import serious_violations

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

RESPONDENTS = 30
AT_ONCE = 10
ITEMS = 3  # questions per respondent, and one attention check: 4 item pages
FAILS = 4  # chooses "First" on the check (the expected answer is "Second")
RESUMES = 7  # closes the browser after two pages and comes back on the same link
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
AXED = (1, 3)  # every page of theirs through axe-core: one on the desktop, one on the phone


@dataclass
class Bot:
    number: int
    token: str
    context: object = None
    page: object = None
    pages_answered: int = 0
    resumed: bool = False
    finished: bool = False
    chosen: list = field(default_factory=list)  # (question's key, canonical letter)
    problems: list = field(default_factory=list)

    @property
    def phone(self) -> bool:
        return self.number % 3 == 0


def _open(browser, bot, base_url):
    bot.context = browser.new_context(viewport=PHONE if bot.phone else DESKTOP)
    bot.context.set_default_timeout(15_000)
    bot.context.set_default_navigation_timeout(45_000)
    bot.page = bot.context.new_page()
    bot.page.on("pageerror", lambda error: bot.problems.append(f"script error: {error}"))
    bot.page.on("response", lambda response: response.status >= 400
                and bot.problems.append(f"HTTP {response.status}: {response.url}"))
    bot.page.goto(f"{base_url}/p/{bot.token}/")


STATE = """() => {
  const scenario = document.querySelector("#scenario");
  const kind = document.querySelector("#agree") ? "consent"
    : document.querySelector("#profile-form") ? "profile"
    : scenario ? (scenario.innerText.includes("choose the second option") ? "check" : "item")
    : document.querySelector("h1") && document.querySelector("h1").innerText === "Thank you" ? "closing" : "unknown";
  return [kind, scenario ? scenario.innerText : "", document.querySelectorAll("label.option").length];
}"""


def _state(page) -> tuple[str, str, int]:
    """(the page's kind, its scenario's text, how many options): one round trip."""
    return tuple(page.evaluate(STATE))


def _kind(page) -> str:
    return _state(page)[0]


def _act(bot) -> str:
    """Fill this page as the bot's script says; the selector of the button that sends it."""
    page = bot.page
    kind, scenario, count = _state(page)
    if kind == "consent":
        return "#agree"
    if kind == "profile":
        page.fill("#profile-years", str(5 + bot.number))
        page.check(f"input[name=country][value={'US CN DE'.split()[bot.number % 3]}]")
        return "#profile-next"
    assert kind in ("item", "check"), f"respondent {bot.number}: unexpected page {page.url}"
    if kind == "check":
        page.click(f"label.option:has-text('{'First' if bot.number == FAILS else 'Second'}')")
    else:
        # "Scenario i: …" with options "Option i.j" in the order dealt: the script chooses
        # the canonical option j = (respondent + question) mod its option count, by its text.
        index = int(scenario.split(":")[0].split()[1])
        canonical = (bot.number + index) % count
        page.click(f"label.option:has-text('Option {index}.{canonical}')")
        bot.chosen.append((f"people-q{index}", "ABC"[canonical]))
    bot.pages_answered += 1
    return "#next"


def _round(bots):
    """Every bot sends its page at once; then each waits for its next page."""
    with ExitStack() as waiting:
        for bot in bots:
            button = _act(bot)
            waiting.enter_context(bot.page.expect_navigation())
            bot.page.click(button, no_wait_after=True)
    for bot in bots:
        if _kind(bot.page) == "closing":
            bot.finished = True


def test_thirty_scripted_respondents(page, live_server, analyst, settings):
    # thirty people from one address within a minute: the per-address limit is not under test here
    settings.PANEL_RATE_PER_ADDRESS = 10_000
    panel = make_panel(make_benchmark(questions=6)[0], per_respondent=ITEMS, checks=1)
    tokens = [r.token for r in services.create_invitations(panel, RESPONDENTS)]
    browser = page.context.browser
    base = live_server.url
    bots = [Bot(number, token) for number, token in enumerate(tokens)]
    axe_found: dict[str, list[str]] = {}

    def axe(bot, name):
        axe_found[f"{name} ({'360 px' if bot.phone else 'desktop'})"] = serious_violations(bot.page)

    for start in range(0, RESPONDENTS, AT_ONCE):
        batch = bots[start:start + AT_ONCE]
        for bot in batch:
            _open(browser, bot, base)
        while active := [bot for bot in batch if not bot.finished]:
            for bot in active:
                if start == 0 and bot.number in AXED:
                    kind = _kind(bot.page)
                    axe(bot, kind if kind in ("consent", "profile") else f"{kind} {bot.pages_answered}")
                if bot.number == RESUMES and bot.pages_answered == 2 and not bot.resumed:
                    # two of its four item pages sent: closes the browser, comes back later
                    bot.context.close()
                    _open(browser, bot, base)
                    expect(bot.page.locator("#progress span")).to_have_text("3 of 4")
                    bot.resumed = True
            _round(active)
        for bot in batch:
            if bot.number in AXED:
                axe(bot, "closing")
            # the used link is refused
            refused = bot.page.goto(f"{base}/p/{bot.token}/")
            assert refused.status == 410
            expect(bot.page.locator("h1")).to_have_text("This link has been used")
            if bot.number in AXED:
                axe(bot, "used link")
            bot.problems = [p for p in bot.problems if not p.startswith("HTTP 410")]
            if bot.number == 0:
                # the respondent's browser (its cookies) opens nothing else of the site
                for address in ("/", "/runs/", "/answers/", f"/panels/{panel.pk}/", "/panels/models-and-people/",
                                "/admin/", "/api/runs/"):
                    answer = bot.page.goto(base + address)
                    assert answer.status in (401, 403) or "/login/" in bot.page.url, address
                bot.problems = [p for p in bot.problems if " 401: " not in p and " 403: " not in p]
            bot.context.close()

    assert {name: found for name, found in axe_found.items() if found} == {}
    assert len(axe_found) == 2 * (2 + 4 + 2)  # consent, profile, 4 items, closing, used link; twice
    assert [(bot.number, bot.problems) for bot in bots if bot.problems] == []
    assert next(bot for bot in bots if bot.number == RESUMES).resumed

    # the hand count: what the script chose, the failing respondent left out
    stored = Respondent.objects.filter(panel=panel)
    assert stored.filter(finished_at__isnull=False).count() == RESPONDENTS
    assert list(stored.filter(failed_checks__gt=0).values_list("token", flat=True)) == [tokens[FAILS]]
    counted = Counter(choice for bot in bots if bot.number != FAILS for choice in bot.chosen)
    assert sum(counted.values()) == (RESPONDENTS - 1) * ITEMS  # 29 × 3 = 87

    log_in(page, live_server, analyst.username)
    page.goto(f"{base}/panels/{panel.pk}/")
    shown = {kind: page.locator(f'[data-count="{kind}"]').inner_text()
             for kind in ("links", "withdrawn", "consented", "finished", "excluded", "kept")}
    assert shown == {"links": "30", "withdrawn": "0", "consented": "30", "finished": "30", "excluded": "1",
                     "kept": "87"}
    on_page = Counter()
    for row in page.locator("#panel-questions tbody tr").all():
        key = row.get_attribute("data-question")
        for option in row.locator("[data-option]").all():
            n = int(option.inner_text().rsplit(":", 1)[1])
            if n:
                on_page[(key, option.get_attribute("data-option"))] = n
    assert on_page == counted
    assert page.problems == []
