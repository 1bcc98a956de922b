"""The crisis-inconsistency figures in the REST API: GET /api/analysis/crisis/ with the
page's query parameters (benchmark, scorer, model, move, continuation, run, group,
iterations, seed)."""

import math

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis_app.permissions import can_read
from kit.api_schema import errors, query

from . import contrasts as contrast_metrics
from . import dashboard, dashboard_params, instrument_state, queries


def _records(table):
    """Rows as JSON (NaN, such as the sd of one run, is null)."""
    if table is None:
        return []

    def value(v):
        return None if isinstance(v, float) and math.isnan(v) else v
    return [{key: value(v) for key, v in row.items()} for row in table.to_dict(orient="records")]


def _side_by_side(board):
    pairs = []
    for side in board.side_by_side:
        pairs.append({"kind": side.kind, "pair": side.pair.pair, "i": side.pair.first, "j": side.pair.second,
                      "inconsistency": side.pair.value, "answers": [
                          {"sample": a["sample"], "response": a["response"],
                           "text": None if a["missing"] else a["span"].before + a["span"].scored + a["span"].after,
                           "scored": None if a["missing"] or not a["span"].section_found else a["span"].scored}
                          for a in side.answers]})
    return pairs


class CrisisView(APIView):
    permission_classes = [can_read("crisis_app.view_crisis_dashboard")]

    @extend_schema(
        parameters=[query("benchmark", max_length=64), query("scorer", max_length=64),
                    query("model", many=True, max_length=80), query("move", "integer", minimum=1, maximum=2),
                    query("continuation", many=True, max_length=64), query("run", "integer", many=True),
                    query("group", "integer"), query("iterations", "integer", minimum=100, maximum=10_000),
                    query("seed", "integer", minimum=0, maximum=2**31 - 1),
                    query("adjust", max_length=8, description="The contrasts' correction: bh (Benjamini–Hochberg, "
                                                              "default) or holm.")],
        responses={200: dict, **errors(400)},
        description="Free-form crisis inconsistency of one scorer: the summary rows (mean over runs of each run's "
                    "mean over pairs, sd, 95% bootstrap CI over runs), the boxes per model and temperature, the "
                    "temperature curve of the level-0 variants and the level-1/level-2 ablation bands, and one "
                    "group's most and least divergent pairs (default: the most inconsistent group), and the "
                    "paired contrasts between temperatures and between models by question (contrasts: estimate in "
                    "inconsistency units, cluster-bootstrap interval, Miller's clustered SE, sign-flip p, adjusted "
                    "p; contrasts_method names the methods). not_results is set (a sentence) when the scorer failed a check "
                    "(self-check, configuration or validation): its figures are then not results. A bad "
                    "parameter, or a name that does not exist, is a 400 naming it.")
    def get(self, request):
        try:
            filters, options = dashboard_params.parse(request.query_params)
            filters, scorers = dashboard.resolve(filters)
            if options.group is not None and not queries.group_in_benchmark(options.group, filters.benchmark):
                raise dashboard_params.BadParameter(
                    "group", f"is no scored group of benchmark {filters.benchmark!r}: {options.group}")
        except dashboard_params.BadParameter as error:
            raise ValidationError({error.field: [str(error)]}) from None
        board = dashboard.build(filters, options)
        group = board.group
        return Response({
            "benchmark": filters.benchmark, "scorer": board.scorer, "scorers": scorers, "groups": board.groups,
            "runs": board.runs, "iterations": options.iterations, "seed": options.seed,
            # Set when the scorer failed a check: these figures are not results (instrument_state).
            "not_results": instrument_state.notices([board.scorer]).get(board.scorer) if board.scorer else None,
            "summary": _records(board.summary), "boxes": _records(board.boxes), "curve": _records(board.curve),
            "bands": _records(board.bands), "per_run": _records(board.per_run),
            "contrasts": _records(board.contrasts),
            "contrasts_method": contrast_metrics.method_note(options.adjust, options.iterations,
                                                             dashboard.PAGE_PATTERNS),
            "divergent": None if group is None else {
                "group": group.score.pk, "title": group.title, "mean": group.score.mean,
                "n_samples": group.score.n_samples, "pairs": _side_by_side(board)}})
