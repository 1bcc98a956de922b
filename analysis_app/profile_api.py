"""A model's profile and the comparison of models in the REST API:
GET /api/profiles/{name}/ and GET /api/profiles/compare/?model=a&model=b, the same
figures as the pages (computed by the worker; `state` says whether they are ready). A
model is the group of rows that address it (`model_groups`): any row's name answers with
the group, named by its canonical row, each figure with its row (`model`) and `kind`."""

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api_schema import NO_NUL, errors, query
from . import headlines, profiles
from .permissions import CanReadDashboards
from .profile_views import BadComparison, compared_groups, group_or_404

STATES = ["current", "stale", "computing", "failed"]


class FigureSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    family = serializers.CharField()
    runs = serializers.ListField(child=serializers.IntegerField())
    model = serializers.CharField()
    condition = serializers.CharField(allow_blank=True)
    metric = serializers.CharField()
    label = serializers.CharField()
    estimate = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()
    unit = serializers.ChoiceField(choices=["share", "percent", "score"])
    direction = serializers.ChoiceField(choices=["higher", "lower"],
                                        help_text="The end ranked first: higher (rank 1 the highest) or lower.")
    withheld = serializers.CharField(allow_blank=True, help_text="Why this figure is not a result (its instrument "
                                                                 "failed a check; then it has no rank); empty for a "
                                                                 "result.")


class RankedFigureSerializer(FigureSerializer):
    kind = serializers.CharField(help_text="The row's answer mode (choice, rank, generate): figures are ranked among "
                                           "rows of the same mode.")
    rank = serializers.IntegerField(allow_null=True, help_text="1 first; ties share the best rank.")
    of = serializers.IntegerField(help_text="Rows of this kind ranked on this figure (this one included).")
    others_min = serializers.FloatField(allow_null=True)
    others_median = serializers.FloatField(allow_null=True)
    others_max = serializers.FloatField(allow_null=True)


class DashboardLinkSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    model = serializers.CharField(help_text="The row the dashboard is filtered to.")
    url = serializers.CharField()


class ProfileFamilySerializer(serializers.Serializer):
    family = serializers.CharField()
    label = serializers.CharField()
    error = serializers.CharField(allow_blank=True)
    has_answers = serializers.BooleanField()
    dashboards = DashboardLinkSerializer(many=True)
    figures = RankedFigureSerializer(many=True)


class ModelRowSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()


class ProfileSerializer(serializers.Serializer):
    model = serializers.CharField(help_text="The canonical name: the shortest name of the rows that address the model.")
    rows = ModelRowSerializer(many=True, help_text="Every registered row of the model (same litellm_model and "
                                                   "api_base), canonical first.")
    state = serializers.ChoiceField(choices=STATES)
    computed_at = serializers.DateTimeField(allow_null=True)
    families = ProfileFamilySerializer(many=True)


class DifferenceSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    family = serializers.CharField()
    metric = serializers.CharField()
    label = serializers.CharField()
    condition = serializers.CharField(allow_blank=True)
    unit = serializers.CharField()
    kind = serializers.CharField(help_text="The rows' kind: both figures come from rows of this kind.")
    model_a = serializers.CharField()
    model_b = serializers.CharField()
    estimate_a = serializers.FloatField(allow_null=True)
    estimate_b = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    n_a = serializers.IntegerField()
    n_b = serializers.IntegerField()


class ComparedFamilySerializer(serializers.Serializer):
    family = serializers.CharField()
    label = serializers.CharField()
    error = serializers.CharField(allow_blank=True)
    without_answers = serializers.ListField(child=serializers.CharField())
    figures = FigureSerializer(many=True)
    differences = DifferenceSerializer(many=True)


class ComparisonSerializer(serializers.Serializer):
    models = serializers.ListField(child=serializers.CharField())
    state = serializers.ChoiceField(choices=STATES)
    computed_at = serializers.DateTimeField(allow_null=True)
    families = ComparedFamilySerializer(many=True)


def profile_payload(shown, group, kinds) -> dict:
    return {"model": group.name, "rows": [{"name": n, "kind": kinds.get(n, "")} for n in group.names],
            "state": shown.state, "computed_at": shown.computed_at, "families": [
                {"family": s.family, "label": s.label, "error": s.error, "has_answers": not s.empty,
                 "dashboards": s.dashboards, "figures": [row.to_dict() for row in s.rows]}
                for s in profiles.profile(shown, group, kinds)]}


def comparison_payload(shown, groups, kinds) -> dict:
    return {"models": [g.name for g in groups], "state": shown.state, "computed_at": shown.computed_at, "families": [
        {"family": s.family, "label": s.label, "error": s.error, "without_answers": s.missing,
         "figures": [f.to_dict() for row in s.rows for f in row.figures if f is not None],
         "differences": [{**d.to_dict(), "kind": row.kind} for row in s.rows for d in row.differences
                         if d is not None]}
        for s in profiles.compare(shown, groups, kinds)]}


class ModelProfileView(APIView):
    permission_classes = [CanReadDashboards]

    @extend_schema(
        parameters=[OpenApiParameter("name", {"type": "string", "pattern": NO_NUL, "maxLength": 80},
                                    OpenApiParameter.PATH, description="The model's name.")],
        responses={200: ProfileSerializer, **errors(404)},
        description="Every family's headline figures of the model (every row that addresses it: same litellm_model "
                    "and api_base; any row's name gives the same answer), each with its row, its 95% interval, its "
                    "rank among the rows of the same answer mode with the same figure and the others' spread; a family "
                    "without answers of the model has "
                    "has_answers false. state is computing (no figures yet: ask again) while the worker computes "
                    "them for the first time, stale while newer ones are computed. 404: no such model.")
    def get(self, request, name):
        try:
            group, kinds = group_or_404(name)
        except Http404:
            raise NotFound(f"No model named {name!r}.") from None
        return Response(ProfileSerializer(profile_payload(headlines.request_headlines(), group, kinds)).data)


class ModelComparisonView(APIView):
    permission_classes = [CanReadDashboards]

    @extend_schema(
        parameters=[query("model", many=True, max_length=80,
                          description="Two to eight models; each later one is set against the first.")],
        responses={200: ComparisonSerializer, **errors(400)},
        description="The models' headline figures side by side and each later model's difference from the "
                    "first with its 95% interval (MOVER, from the two figures' intervals), like with like: the same "
                    "figure from rows of the same answer mode. A name stands for every row of "
                    "its model. 400: fewer than two models, more than eight, or a model that is not registered.")
    def get(self, request):
        try:
            groups, kinds = compared_groups(request.query_params)
        except BadComparison as error:
            raise ValidationError({"model": [str(error)]}) from None
        return Response(ComparisonSerializer(comparison_payload(headlines.request_headlines(), groups, kinds)).data)
