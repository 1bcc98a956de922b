"""A small benchmark and panel the panels' tests share."""

from benchmarks_app.models import Benchmark, Question
from panels_app import services
from panels_app.models import AttentionCheck, Panel, ProfileQuestion


def make_benchmark(name="people", questions=4):
    """`questions` CFPD-shaped questions: even ones with two options, odd ones with three."""
    benchmark = Benchmark.objects.create(name=name, family="cfpd")
    made = []
    for i in range(questions):
        count = 2 if i % 2 == 0 else 3
        made.append(Question.objects.create(
            benchmark=benchmark, key=f"{name}-q{i}", text=f"Scenario {i}: China and Russia face a crisis.",
            options=[{"text": f"Option {i}.{j}"} for j in range(count)], option_order=list(range(count)),
            choice_count=count))
    return benchmark, made


def make_panel(benchmark, *, per_respondent=2, checks=1, profile=True, **fields) -> Panel:
    panel = Panel.objects.create(name=fields.pop("name", "IR scholars"), stands_for="IR scholars, US",
                                 benchmark=benchmark, consent_text="You agree to answer.",
                                 items_per_respondent=per_respondent, **fields)
    for c in range(checks):
        AttentionCheck.objects.create(panel=panel, text=f"Check {c}: choose the second option.",
                                      options=["First", "Second", "Third"], expected=2, position=c)
    if profile:
        ProfileQuestion.objects.create(panel=panel, key="years", label="Years in the field", kind="number")
        ProfileQuestion.objects.create(panel=panel, key="country", label="Country", kind="choice",
                                       choices="US\nCN\nDE", position=1)
    services.pick_questions(panel)
    panel.refresh_from_db()
    return panel
