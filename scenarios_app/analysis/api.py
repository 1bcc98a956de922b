"""The CFPD dashboard's figures in the REST API: GET /api/analysis/cfpd/ with the dashboard's query
parameters (run, model, domain, choices, actor, focus, iterations, seed, category,
heatmap_model, adjust, and panel to pick panels)."""

import math

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis_app.permissions import can_read
from kit.api_schema import errors, query

from . import dashboard, params


def _records(table):
    return [{key: (None if isinstance(value, float) and math.isnan(value) else value)
             for key, value in row.items()} for row in table.to_dict(orient="records")]


class AnalysisView(APIView):
    permission_classes = [can_read("scenarios_app.view_cfpd_dashboard")]

    @extend_schema(
        parameters=[query("run", "integer", many=True), query("model", many=True), query("domain", many=True),
                    query("choices", "integer", many=True, minimum=2, maximum=3), query("actor", many=True),
                    query("focus", "flag", description="Complete dyads only: 1, on, true or yes."),
                    query("iterations", "integer", minimum=100, maximum=params.MAX_ITERATIONS),
                    query("seed", "integer", minimum=0, maximum=params.MAX_SEED), query("category"),
                    query("heatmap_model"), query("panel", many=True, max_length=40),
                    query("adjust", max_length=8, description="The contrasts' correction: bh (Benjamini–Hochberg, "
                                                              "default) or holm.")],
        responses={200: dict, **errors(400)},
        description="Coverage and every panel's table for the filters. A bad parameter is a 400 naming it: "
                    "{\"seed\": [\"seed must be between 0 and ...\"]}.")
    def get(self, request):
        try:
            filters, options = params.parse(request.query_params)
            wanted = params.panels(request.query_params)
        except params.BadParameter as error:  # 400 {"iterations": ["iterations must be between ..."]}, as DRF's fields
            raise ValidationError({error.field: [str(error)]}) from None
        board = dashboard.build_cached(filters, **options)
        return Response({
            "coverage": board.coverage, "iterations": board.iterations, "seed": board.seed,
            "category": board.category, "seconds": round(board.seconds, 3),
            "panels": {key: {"title": panel.title, "note": panel.note, "rows": _records(panel.table)}
                       for key, panel in board.panels.items() if not wanted or key in wanted},
        })
