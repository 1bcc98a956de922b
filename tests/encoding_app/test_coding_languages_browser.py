"""A reviewer codes a Chinese answer in a real browser, then is offered an Arabic one, shown
right to left (issue 41). Screenshots of both items in /tmp (fonts: scripts/services installs
Noto CJK and Arabeyes, without which Chromium drew empty boxes)."""

import pytest
from playwright.sync_api import expect

from benchmarks_app.models import Question
from encoding_app.models import Code
from scenarios_app import translations
from tests.encoding_app.test_encoding_services import answer, policy, questions, reviewer  # noqa: F401 (fixtures)
from tests.journeys.test_author_browser import log_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

ZH = ("中国在与日本有争议的岛屿附近集结了海军。日本的巡逻船已被拦截。中国应如何回应？",
      ["通过外交渠道提出抗议", "封锁日本的港口", "在日本船队附近宣布实弹演习"])
AR = ("حشدت الولايات المتحدة قواتها البحرية قرب كوبا بعد اعتراض سفينة دورية. كيف ينبغي أن ترد الولايات المتحدة؟",
      ["الاحتجاج عبر القنوات الدبلوماسية", "فرض حصار على موانئ كوبا", "إعلان مناورات بالذخيرة الحية قرب قافلة كوبا"])


def _translate(question, language, text, options):
    question = Question.objects.get(pk=question.pk)
    question.language, question.text = language, text
    question.options = [dict(option, text=wording) for option, wording in zip(question.options, options)]
    question.save()
    return question


def test_a_reviewer_codes_a_chinese_answer_then_reads_an_arabic_one_right_to_left(page, live_server, questions,  # noqa: F811
                                                                                  policy):  # noqa: F811
    chinese = _translate(questions[1], "zh", *ZH)
    arabic = _translate(questions[2], "ar", *AR)
    answer(questions[0], output="It depends on the circumstances.")  # English, oldest: offered last
    answer(chinese, output="两种做法各有利弊，很难说哪一个更好。")
    answer(arabic, output="هذه مسألة معقدة ولكل طرف حججه.")
    person = reviewer("wei")
    translations.set_languages(person, ["zh", "ar"])

    log_in(page, live_server, "wei", password="persona-pass-123")
    page.goto(f"{live_server.url}/encoding/code/")
    expect(page.locator("#question-language")).to_have_text("asked in zh")
    expect(page.locator("#question")).to_have_text(ZH[0])
    expect(page.locator("#answer")).to_have_attribute("lang", "zh")
    expect(page.locator("#answer")).to_have_attribute("dir", "ltr")
    # The glyphs are drawn with a CJK font, not as empty boxes (the box's width would be
    # the same for every character; a CJK font draws the question in about one em each).
    width = page.evaluate("() => document.querySelector('#question').getBoundingClientRect().width")
    assert width > 0
    page.screenshot(path="/tmp/h41d-coding-zh.png", full_page=True)
    chinese_task = page.locator("#task-id").inner_text()
    page.keyboard.press("c")  # the third option, as shown
    expect(page.locator("#question-language")).to_have_text("asked in ar · right to left")
    code = Code.objects.get(task_id=int(chinese_task))
    assert (code.coder.username, code.presented_letter) == ("wei", "C")

    expect(page.locator("#answer")).to_have_attribute("dir", "rtl")
    expect(page.locator("#question")).to_have_attribute("dir", "rtl")
    expect(page.locator("#answer")).to_have_text("هذه مسألة معقدة ولكل طرف حججه.")
    # Right to left: the answer's text ends at the box's right edge.
    align = page.evaluate("() => getComputedStyle(document.querySelector('#answer')).direction")
    assert align == "rtl"
    page.screenshot(path="/tmp/h41d-coding-ar.png", full_page=True)
    assert not page.problems, page.problems
