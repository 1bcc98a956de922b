"""A model's answers under a prompted perspective are a row of their own beside its default
answers (never pooled), on the alignment rows and on Models and people: the case of
test_reference_report.py, by hand."""

import re

import pytest

from benchmarks_app.services import perspective_condition
from panels_app import results
from runs_app.models import LLMModel, Response, Run
from tests.panels_app.test_reference_report import case  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

# Public's answers: q0 A A, q1 A B, q2 B B, q3 C C. Under the perspective hawk answers exactly
# so (q1 over two repeats: A, B): every distribution equal, similarity 1 on each, mean 1.
AS_PUBLIC = {"people-q0": "A", "people-q1": "AB", "people-q2": "B", "people-q3": "C"}


def test_each_condition_is_its_own_row(case, client, analyst):  # noqa: F811
    condition = perspective_condition("Germany")
    hawk = LLMModel.objects.get(name="hawk")
    run = Run.objects.create(benchmark=case, status="done")
    for question in case.questions.all():
        for repeat, code in enumerate(AS_PUBLIC[question.key]):
            Response.objects.create(run=run, question=question, model=hawk, condition=condition, repeat=repeat,
                                    status="done", code=code, option_order=list(range(question.choice_count)))
    rows = {(r.model, r.panel): r for r in results.alignment_rows(case) if not r.domain and r.choice_count is None}
    label = "hawk [perspective-germany]"
    assert rows[(label, "Public")].similarity == pytest.approx(1.0)
    # the default row as before: (1 + 0.442077 + 0 + 1) / 4 = 0.610519 (test_reference_report.py)
    assert rows[("hawk", "Public")].similarity == pytest.approx(0.610519, abs=1e-6)
    assert {r.model for r in results.alignment_rows(case, model="hawk")} == {"hawk", label}
    client.force_login(analyst)
    html = client.get("/panels/models-and-people/", {"benchmark": "people"}).content.decode()
    public = html.split('data-panel="Public"')[1].split("</table>")[0]
    ranked = re.findall(r'<tr data-model="([^"]+)">', public)
    assert ranked == [label, "hawk"]  # the perspective closer (1.000) than the default (0.611)
