"""The grid and two runs compared in the REST API: GET /api/answers/grid/ and
GET /api/answers/compare/, the same as the pages (same filters, same pages of rows and
models, same 400s, same readers)."""

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api_schema import errors, query
from kit.params import BadParameter
from runs_app.models import Run

from . import grid_query, readers


class IsAnswerReader(permissions.BasePermission):
    """Analysts and operators; reviewers (for the benchmarks they code, checked per run)."""

    def has_permission(self, request, view):
        return readers.is_reader(request.user)


def _check_runs(user, run_ids):
    for run in Run.objects.filter(pk__in=run_ids).select_related("benchmark"):
        if not readers.may_read(user, run.benchmark_id):
            raise PermissionDenied(f"run {run.pk} is of benchmark {run.benchmark.name}, whose answers you do not "
                                   "code: reviewers read the answers of the benchmarks they code")


class GridCellSerializer(serializers.Serializer):
    model = serializers.CharField()
    n = serializers.IntegerField(help_text="Answers in the cell (repeats, runs).")
    top = serializers.CharField(help_text="The label most of its answers have: a code (A … J, R, X) or uncoded, "
                                          "failed, open, cancelled; a tie goes to the first in that order.")
    share = serializers.FloatField(help_text="The top label's share of the cell's answers.")
    category = serializers.CharField(help_text="option, refusal, invalid, uncoded, failed, open or cancelled.")
    colour = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Answers per label.")
    answer_id = serializers.IntegerField(allow_null=True, help_text="The answer's id when the cell holds one.")
    url = serializers.CharField(allow_blank=True, help_text="The answer's page, or the list of the cell's answers.")


class PeopleCellSerializer(serializers.Serializer):
    people = serializers.CharField(help_text='The panel\'s label: "People: <panel> (<n> respondents)".')
    n = serializers.IntegerField(help_text="Its people's kept answers to the question (failed attention checks "
                                           "left out).")
    top = serializers.CharField(help_text="The code most of them chose.")
    share = serializers.FloatField()
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Answers per code.")


class AnswerGridRowSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    question = serializers.CharField()
    condition = serializers.CharField(allow_blank=True, help_text="Empty when rows are questions.")
    cells = GridCellSerializer(many=True, help_text="The cells that hold answers, in the order of `models`.")
    people_cells = PeopleCellSerializer(many=True, help_text="The panels of people's cells that hold answers, in "
                                                             "the order of `people`: people's answers, never a "
                                                             "model's.")


class AnswerGridSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    runs = serializers.ListField(child=serializers.IntegerField())
    rows_by = serializers.ChoiceField(choices=[grid_query.BY_QUESTION, grid_query.BY_CONDITION])
    models = serializers.ListField(child=serializers.CharField(), help_text="This page's models (columns).")
    people = serializers.ListField(child=serializers.CharField(),
                                   help_text="The benchmark's panels of people (columns after the models), each "
                                             "labelled as people; empty with people=hide.")
    rows = AnswerGridRowSerializer(many=True)
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    total_rows = serializers.IntegerField()
    model_page = serializers.IntegerField()
    model_pages = serializers.IntegerField()
    total_models = serializers.IntegerField()


def grid_payload(built) -> dict:
    return {"benchmark": built.benchmark.name, "runs": [r.pk for r in built.runs], "rows_by": built.by,
            "models": [m.name for m in built.models], "people": [g.label for g in built.people], "page": built.page, "pages": built.pages,
            "total_rows": built.total_rows, "model_page": built.model_page, "model_pages": built.model_pages,
            "total_models": built.total_models,
            "rows": [{"question_id": row.question_id, "question": row.key, "condition": row.condition,
                      "cells": [{"model": model.name, "n": cell.n, "top": cell.top, "share": cell.share,
                                 "category": cell.category, "colour": cell.colour, "counts": dict(cell.counts),
                                 "answer_id": cell.answer_id, "url": url}
                                for model, cell, url in row.cells if cell is not None],
                      "people_cells": [{"people": group.label, "n": cell.n, "top": cell.top, "share": cell.share,
                                        "counts": dict(cell.counts)}
                                       for group, cell in row.people_cells if cell is not None]}
                     for row in built.rows]}


class AnswerGridView(APIView):
    permission_classes = [IsAnswerReader]

    @extend_schema(
        parameters=[
            query("run", "integer", many=True, description="One run, or several runs of one benchmark (at most 20)."),
            query("model", many=True, max_length=80, description="Only these models (names)."),
            query("condition", many=True, max_length=64, description="Only answers under these conditions (names)."),
            query("status", many=True, description="Only answers in these states: "
                                                   + ", ".join(grid_query.STATUSES) + "."),
            query("code", many=True, description="Only answers with these codes: A … J, R, X, or none (no code)."),
            query("rows", description="question, or condition (question × condition); by default condition when "
                                      "the answers have several conditions."),
            query("people", description="show (the default): the benchmark's panels of people as columns after the "
                                        "models, labelled as people; hide: models only."),
            query("page", "integer", maximum=10**6, description=f"Page of {grid_query.ROWS_PER_PAGE} rows."),
            query("model_page", "integer", maximum=10**6,
                  description=f"Page of {grid_query.MODELS_PER_PAGE} models (columns)."),
        ],
        responses={200: AnswerGridSerializer, **errors(400)},
        description="The models × questions grid of one run or several runs of one benchmark: one page of rows "
                    "(questions, or question × condition) and models, each cell the code its answers have most, "
                    "its share and every label's count, counted in the database. 400: no run, an unknown run, "
                    "model or condition, runs of different benchmarks, a judge run, a bad value. 403: a reviewer "
                    "asking for a benchmark they do not code.")
    def get(self, request):
        try:
            f = grid_query.read_grid_filter(request.query_params)
            _check_runs(request.user, f.runs)
            built = grid_query.build_grid(f)
        except BadParameter as error:
            raise ValidationError({error.field: [error.reason]}) from None
        return Response(AnswerGridSerializer(grid_payload(built)).data)


class CodeChangeSerializer(serializers.Serializer):
    before = serializers.CharField(allow_blank=True, help_text="The code in run A; empty for none.")
    after = serializers.CharField(allow_blank=True, help_text="The code in run B; empty for none.")
    n = serializers.IntegerField()


class ModelCodeChangesSerializer(serializers.Serializer):
    model = serializers.CharField()
    matched = serializers.IntegerField()
    changed = serializers.IntegerField()
    changes = CodeChangeSerializer(many=True)


class QuestionCodeChangesSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    question = serializers.CharField()
    matched = serializers.IntegerField()
    changed = serializers.IntegerField()
    changes = CodeChangeSerializer(many=True)


class CodeRateSerializer(serializers.Serializer):
    code = serializers.CharField(allow_blank=True)
    before = serializers.FloatField()
    after = serializers.FloatField()
    difference = serializers.FloatField(help_text="after − before.")
    ci_low = serializers.FloatField()
    ci_high = serializers.FloatField()
    n = serializers.IntegerField(help_text="Matched pairs.")


class ComparedAnswerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    condition = serializers.CharField()
    code = serializers.CharField(allow_blank=True)
    code_source = serializers.CharField(allow_blank=True)
    status = serializers.CharField()
    output = serializers.CharField(allow_blank=True, help_text="The raw output, as the model wrote it.")
    url = serializers.CharField(allow_blank=True)


class ChangedAnswerPairSerializer(serializers.Serializer):
    question_id = serializers.IntegerField()
    question = serializers.CharField()
    model = serializers.CharField()
    repeat = serializers.IntegerField()
    a = ComparedAnswerSerializer()
    b = ComparedAnswerSerializer()


class RunComparisonSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    run_a = serializers.IntegerField()
    run_b = serializers.IntegerField()
    ignore_condition = serializers.BooleanField()
    matched = serializers.IntegerField()
    changed = serializers.IntegerField()
    only_a = serializers.IntegerField()
    only_b = serializers.IntegerField()
    ambiguous = serializers.IntegerField(help_text="Answers left out when the condition is ignored: their run "
                                                   "asked the question of the model under several conditions.")
    interval = serializers.CharField()
    changes = CodeChangeSerializer(many=True)
    by_model = ModelCodeChangesSerializer(many=True)
    by_question = QuestionCodeChangesSerializer(many=True, help_text="The 50 questions with most changes.")
    rates = CodeRateSerializer(many=True)
    changed_answers = ChangedAnswerPairSerializer(many=True, help_text="This page of the changed answers.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()


INTERVAL = "Newcomb (1998) hybrid score interval for a paired difference of proportions (method 10), 95%"


def _changes(listed):
    return [{"before": a, "after": b, "n": n} for a, b, n in listed]


def comparison_payload(c) -> dict:
    return {"benchmark": c.benchmark.name, "run_a": c.run_a.pk, "run_b": c.run_b.pk,
            "ignore_condition": c.ignore_condition, "matched": c.matched, "changed": c.changed_total,
            "only_a": c.only_a, "only_b": c.only_b, "ambiguous": c.ambiguous,
            "interval": INTERVAL, "changes": _changes(c.changes),
            "by_model": [{"model": name, "matched": matched, "changed": changed, "changes": _changes(listed)}
                         for name, matched, changed, listed in c.by_model],
            "by_question": [{"question": key, "question_id": qid, "matched": matched, "changed": changed,
                             "changes": _changes(listed)} for key, qid, matched, changed, listed in c.by_question],
            "rates": [{"code": r.code, "before": r.before, "after": r.after, "difference": r.difference,
                       "ci_low": r.low, "ci_high": r.high, "n": r.n} for r in c.rates],
            "changed_answers": [{key: value for key, value in row.items() if key not in ("question_text", "sides")}
                                for row in c.changed],
            "page": c.page, "pages": c.pages}


class AnswerCompareView(APIView):
    permission_classes = [IsAnswerReader]

    @extend_schema(
        parameters=[
            query("a", "integer", description="Run A (before)."),
            query("b", "integer", description="Run B (after): a run of the same benchmark."),
            query("ignore_condition", "flag", description="1: match answers by question, model and repeat, "
                                                          "whatever their condition."),
            query("model", many=True, max_length=80, description="Only these models' answers."),
            query("page", "integer", maximum=10**6,
                  description=f"Page of {grid_query.CHANGED_PER_PAGE} changed answers."),
        ],
        responses={200: RunComparisonSerializer, **errors(400)},
        description="Two runs of one benchmark compared answer by answer (matched by question, model, condition "
                    "and repeat, or without the condition): each change of code, overall, per model and per "
                    "question, the share of each code before and after with the difference's 95% interval "
                    "(Newcomb's paired hybrid score interval), and a page of the changed answers side by side. "
                    "400: a run missing, unknown, a judge run, the same run twice, runs of different benchmarks. "
                    "403: a reviewer asking for a benchmark they do not code.")
    def get(self, request):
        try:
            f = grid_query.read_compare_filter(request.query_params)
            _check_runs(request.user, [f.a, f.b])
            compared = grid_query.compare(f)
        except BadParameter as error:
            raise ValidationError({error.field: [error.reason]}) from None
        return Response(RunComparisonSerializer(comparison_payload(compared)).data)
