"""This room's answers through the neutral hook (`analysis_app.people`, registered in
`apps.py`): the panels labelled as people, only kept answers (failed attention checks left
out), and a model's profile naming its closest panels."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from analysis_app import people
from panels_app.models import Panel, PanelAnswer, Respondent
from panels_app.people_source import SOURCE
from tests.panels_app.support import make_benchmark
from tests.panels_app.test_reference_report import case  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db


def test_the_room_registers_its_source_and_gives_only_kept_answers():
    assert SOURCE in people._SOURCES
    benchmark, questions = make_benchmark()
    panel = Panel.objects.create(name="Scholars", stands_for="IR scholars, US", benchmark=benchmark,
                                 consent_text="Agree.")
    kept = Respondent.objects.create(panel=panel, token="kept")
    failed = Respondent.objects.create(panel=panel, token="failed", failed_checks=1)
    Respondent.objects.create(panel=panel, token="never")  # no answer: not counted
    now = timezone.now()
    PanelAnswer.objects.create(respondent=kept, position=0, question=questions[0], code="B", answered_at=now)
    PanelAnswer.objects.create(respondent=kept, position=1, question=questions[1], code="")  # shown, not answered
    PanelAnswer.objects.create(respondent=failed, position=0, question=questions[0], code="A", answered_at=now)
    (group,) = people.groups([benchmark.pk])
    assert (group.label, group.respondents, group.excluded) == ("People: Scholars (1 respondent)", 1, 1)
    assert people.answers() == [people.PersonAnswer(group.key, kept.pk, questions[0].pk, "B")]
    assert people.answers(question_ids=[questions[1].pk]) == []
    before = people.version()
    PanelAnswer.objects.create(respondent=kept, position=2, question=questions[2], code="A", answered_at=now)
    assert people.version() != before  # a new answer moves the cached figures' keys


def test_a_models_profile_names_its_closest_panels(case, client, analyst):  # noqa: F811
    client.force_login(analyst)
    html = client.get(reverse("model-profile", args=["hawk"])).content.decode()
    section = html.split('id="closest-panels"')[1].split("</section>")[0]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section))
    # hawk and Public: (1 + 0.442077 + 0 + 1) / 4 = 0.610519 (tests/panels_app/test_reference_report.py)
    assert "People: Public (2 respondents)" in text and "0.611" in text
    assert "/panels/models-and-people/?benchmark=people" in section
    # Scholars is a reference of shares: it names no respondent, so it is no column of people
    assert "Scholars" not in text
