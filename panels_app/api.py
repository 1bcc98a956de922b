"""GET /api/panels/alignment/?benchmark=B[&panel=P][&model=M]: the rows reference_report
writes (each model's similarity to each panel of B, overall, per domain and per choice count,
with the interval and the panel's ceiling), for analysts (`panels_app.view_panel_results`)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis_app.permissions import can_read
from kit.api_schema import errors, query

from . import results

PARAMETERS = ("benchmark", "panel", "model")


class AlignmentRowSerializer(serializers.Serializer):
    model = serializers.CharField()
    panel = serializers.CharField()
    domain = serializers.CharField(allow_blank=True, help_text="Empty on the overall row and the choice-count rows.")
    choice_count = serializers.IntegerField(allow_null=True,
                                            help_text="Null on the overall row and the domain rows.")
    similarity = serializers.FloatField(allow_null=True, help_text="Mean over the questions both answered of 1 − "
                                                                   "Jensen–Shannon distance (base 2).")
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    n_questions = serializers.IntegerField()
    ceiling = serializers.FloatField(allow_null=True, help_text="The panel's mean similarity between random halves "
                                                                "of its respondents (null for a reference of shares).")


class AlignmentSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    rows = AlignmentRowSerializer(many=True)


class AlignmentView(APIView):
    permission_classes = [can_read(results.RESULTS_PERMISSION)]

    @extend_schema(
        parameters=[query("benchmark", description="The benchmark whose panels are compared (required)."),
                    query("panel", description="Only this panel."), query("model", description="Only this model.")],
        responses={200: AlignmentSerializer, **errors(400)},
        description="Each model's similarity to each panel of the benchmark (people's answers, invited or a "
                    "published reference): the overall row (domain empty, choice_count null), then one per domain "
                    "and one per choice count, with the 95% cluster bootstrap interval and the panel's ceiling. The "
                    "same rows as `reference_report`. 400: no benchmark, or a benchmark, panel or model that does "
                    "not exist.")
    def get(self, request):
        given = {}
        for key in PARAMETERS:
            values = request.query_params.getlist(key)
            if len(values) > 1:
                raise ValidationError({key: ["give it once"]})
            given[key] = values[0] if values else None
        try:
            benchmark, panel, model = results.read_report_params(**given)
        except results.ReportInvalid as exc:
            raise ValidationError({key: [message] for key, message in exc.errors.items()}) from None
        rows = results.alignment_rows(benchmark, panel=panel, model=model)
        return Response(AlignmentSerializer({"benchmark": benchmark.name,
                                             "rows": [row.as_dict() for row in rows]}).data)
