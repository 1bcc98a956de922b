"""The territorial-disputes figures in the REST API: GET /api/analysis/territories/ with the
page's query parameters (benchmark, run, model, strategy, region, claimant, language,
unknown, iterations, seed)."""

import math

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis_app.permissions import can_read
from benchmarks_app.models import Benchmark
from kit.api_schema import errors, query

from . import contrasts, dashboard_params
from .family import NAME as FAMILY
from .report import PAGE_PATTERNS, build


def _records(table):
    """Rows as JSON: NaN is null; ΔCS is +inf when Non-control is 0 (the paper's "approaches
    infinity"), which JSON cannot hold: the string "Infinity" (delta_cs_abs stays a number)."""
    def value(v):
        if isinstance(v, float) and math.isnan(v):
            return None
        if isinstance(v, float) and math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    return [{key: value(v) for key, v in row.items()} for row in table.to_dict(orient="records")]


class TerritoriesView(APIView):
    permission_classes = [can_read("territories_app.view_territories_dashboard")]

    @extend_schema(
        parameters=[query("benchmark", max_length=64), query("run", "integer", many=True),
                    *(query(name, many=True) for name in ("model", "strategy", "region", "claimant", "language")),
                    query("unknown", "flag", description="Unknown controllers only: 1, on, true or yes."),
                    query("iterations", "integer", minimum=100, maximum=10_000),
                    query("seed", "integer", minimum=0, maximum=2**31 - 1),
                    query("adjust", max_length=8, description="The contrasts' correction: bh (Benjamini–Hochberg, default) "
                                                "or holm.")],
        responses={200: dict, **errors(400)},
        description="The concurrence scores per model and strategy (percent, with 95% bootstrap intervals over "
                    "territories), the per-territory case view and the paired contrasts clustered by territory "
                    "(contrasts: Control vs Non-control within territory per model and strategy, model vs model on shared "
                    "territories; estimate in points, cluster-bootstrap interval, Miller's clustered SE, sign-flip "
                    "p, adjusted p; contrasts_method names the methods). A bad parameter, or a benchmark that is no "
                    "BorderLines benchmark, is a 400 naming it.")
    def get(self, request):
        try:
            filters, options = dashboard_params.parse(request.query_params)
        except dashboard_params.BadParameter as error:
            raise ValidationError({error.field: [str(error)]}) from None
        if not Benchmark.objects.filter(name=filters.benchmark, family=FAMILY).exists():
            raise ValidationError({"benchmark": [
                f"no BorderLines benchmark named {filters.benchmark!r}; import one with "
                "python manage.py import_borderlines DIR"]})
        report = build(filters, **options)
        return Response({"benchmark": filters.benchmark, "answers": report.answers, "unresolved": report.unresolved,
                         "refusals": report.refusals, "invalid": report.invalid,
                         "territories": len(report.territories), "iterations": options["iterations"],
                         "seed": options["seed"], "scores": _records(report.scores),
                         "cases": _records(report.cases), "contrasts": _records(report.contrasts),
                         "contrasts_method": contrasts.method_note(options["adjust"], options["iterations"],
                                                                   PAGE_PATTERNS)})
