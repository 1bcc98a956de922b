"""The demo's panel of scripted respondents (panels_app.demo, `load_demo_panel`, a step of
scripts/demo): made on the demo benchmark, deterministic, one bot excluded by the attention
check, and labelled as scripted on every page where it appears."""

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from panels_app import demo, results
from panels_app.models import PanelAnswer, Panel
from runs_app.models import LLMModel, Response, Run

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def scripted(db):
    call_command("load_demo", stdout=open("/dev/null", "w"))
    call_command("load_demo_panel", stdout=open("/dev/null", "w"))
    return Panel.objects.get(name=demo.NAME)


def _answers(panel):
    return list(PanelAnswer.objects.filter(respondent__panel=panel).order_by("respondent__number", "position")
                .values_list("respondent__number", "position", "question__key", "code"))


def test_the_demo_seeds_a_scripted_panel_deterministically(scripted):
    assert "scripted" in scripted.name.lower() and "scripted" in scripted.stands_for.lower()
    found = results.panel_results(scripted)
    # 12 bots each dealt 20 items and one check: 11 pass, the last fails and is excluded
    assert (found.links, found.finished, found.excluded) == (12, 12, 1)
    assert found.kept_answers == 11 * 20
    assert found.alpha is not None and found.ceiling is not None
    first = _answers(scripted)
    call_command("load_demo_panel", stdout=open("/dev/null", "w"))  # made before: kept as it is
    assert _answers(Panel.objects.get(name=demo.NAME)) == first
    PanelAnswer.objects.filter(respondent__panel=scripted).delete()  # they hold its checks (PROTECT)
    scripted.delete()
    call_command("load_demo_panel", stdout=open("/dev/null", "w"))  # again from nothing: the same answers
    assert _answers(Panel.objects.get(name=demo.NAME)) == first


def test_the_scripted_label_shows_on_every_page_of_the_panel(scripted, client, analyst):
    model = LLMModel.objects.create(name="demo-model", litellm_model="openai/demo-model")
    run = Run.objects.create(benchmark=scripted.benchmark, status="done")
    for n, link in enumerate(scripted.panel_questions.all()):
        Response.objects.create(run=run, question_id=link.question_id, model=model, repeat=0, status="done",
                                code="AB"[n % 2])
    client.force_login(analyst)
    listed = _text(client.get("/panels/").content.decode())
    assert "Scripted demo bots (not people)" in listed
    page = _text(client.get(f"/panels/{scripted.pk}/").content.decode())
    assert "Scripted demo bots (not people) · people" in page and "Stands for nobody: scripted respondents" in page
    people = client.get("/panels/models-and-people/", {"benchmark": "demo"}).content.decode()
    assert "Scripted demo bots (not people): ceiling" in _text(people)  # the ranking's caption
    assert 'data-panel="Scripted demo bots (not people)"' in people
    assert '"Scripted demo bots (not people)"' in people  # the heat map's panel axis


def test_scripts_demo_runs_the_seeding():
    assert "manage load_demo_panel --benchmark demo" in (ROOT / "scripts" / "demo").read_text()
