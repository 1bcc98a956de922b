"""The coding page and answers in other languages (issue 41): a reviewer's languages (their
profile's) steer which items they are offered first, and each item carries its language and
writing direction (right to left for Arabic), which the page sets on the answer."""

import pytest
from django.urls import reverse

from benchmarks_app.language_codes import direction, reader_first
from benchmarks_app.models import Question
from encoding_app import services
from scenarios_app import translations
from tests.conftest import PASSWORD
from tests.encoding_app.test_encoding_services import answer, policy, questions, reviewer  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

ZH_TEXT = "中国在与日本的边境集结了军队。中国应如何回应？"
AR_TEXT = "حشدت الولايات المتحدة قواتها على حدود كوبا. كيف ينبغي أن ترد الولايات المتحدة؟"


@pytest.fixture
def three_languages(questions, policy):  # noqa: F811
    """Three answers nobody can read (each goes to the queue), oldest first: English,
    Chinese, Arabic."""
    english, chinese, arabic = questions
    Question.objects.filter(pk=chinese.pk).update(language="zh", text=ZH_TEXT)
    Question.objects.filter(pk=arabic.pk).update(language="ar", text=AR_TEXT)
    answer(english, output="It depends on the circumstances.")
    answer(chinese, output="这个问题很复杂，双方都有道理。")
    answer(arabic, output="هذه مسألة معقدة ولكل طرف حججه.")


def test_directions_and_reader_subtags():
    assert [direction(code) for code in ("ar", "fa", "he", "zh", "en", "ru", "az-Arab", "nonsense!")] == \
        ["rtl", "rtl", "rtl", "ltr", "ltr", "ltr", "rtl", "ltr"]
    assert reader_first(["zh-Hant", "zh", "ar", "bad tag"]) == ["zh", "ar"]


def test_a_reviewer_is_offered_the_items_in_their_languages_first(three_languages):
    arabic_reader = reviewer("layla")
    translations.set_languages(arabic_reader, ["ar", "en"])
    # Arabic and English both read: of those the oldest (English), then Arabic, Chinese last.
    offered = []
    for _ in range(3):  # each coded R, which closes it (no double coding in this policy)
        task = services.next_task(arabic_reader)
        offered.append(task.response.question.language)
        services.submit_code(task.pk, arabic_reader, "R")
    assert offered == ["en", "ar", "zh"]


def test_a_reviewer_with_no_languages_listed_gets_the_oldest_first(three_languages):
    assert services.next_task(reviewer("sam")).response.question.language == "en"


def test_a_chinese_reader_gets_the_chinese_answer_first(three_languages):
    chinese_reader = reviewer("wei")
    translations.set_languages(chinese_reader, ["zh-Hans"])
    assert services.next_task(chinese_reader).response.question.language == "zh"


def test_the_item_carries_its_language_and_direction(client, three_languages):
    arabic_reader = reviewer("layla")
    translations.set_languages(arabic_reader, ["ar"])
    assert client.login(username="layla", password="persona-pass-123")
    item = client.get(reverse("encoding-next")).json()["item"]
    assert (item["language"], item["direction"], item["question"]) == ("ar", "rtl", AR_TEXT)
    page = client.get(reverse("encoding-workspace")).content.decode()
    assert 'id="question-language"' in page
