"""REST API (DRF) for models, runs and responses; the schema is at /api/schema/."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response as APIResponse

from scenarios_app.models import Benchmark

from . import services
from .models import LLMModel, Response, Run


class RunPermission(permissions.BasePermission):
    """Read with runs_app.view_run; launch with add_run; cancel and resume with change_run."""

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if request.method in permissions.SAFE_METHODS:
            return user.has_perm("runs_app.view_run")
        if getattr(view, "action", None) in ("cancel", "resume"):
            return user.has_perm("runs_app.change_run")
        return user.has_perm("runs_app.add_run")


class ModelSerializer(serializers.ModelSerializer):
    key = serializers.SerializerMethodField(help_text="Whether the key this model needs is in the environment.")

    class Meta:
        model = LLMModel
        fields = ["name", "litellm_model", "api_base", "answer_mode", "choice_strategy", "temperature", "max_tokens",
                  "top_p", "seed", "max_concurrency", "requests_per_minute", "is_bundled", "is_external", "key"]

    def get_key(self, model) -> dict:
        return services.key_status(model)


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    pending = serializers.IntegerField()
    running = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    cancelled = serializers.IntegerField()
    cached = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost = serializers.FloatField(allow_null=True)
    percent = serializers.FloatField()


class RunSerializer(serializers.ModelSerializer):
    benchmark = serializers.SlugRelatedField(slug_field="name", read_only=True)
    models = serializers.SlugRelatedField(source="llm_models", slug_field="name", many=True, read_only=True)
    launched_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "benchmark", "models", "selection", "repeats", "system_prompt", "permute_options",
                  "use_cache", "status", "note", "launched_by", "created_at", "started_at", "finished_at", "progress"]

    @extend_schema(responses=ProgressSerializer)
    def get_progress(self, run) -> dict:
        state = services.progress(run)
        return {**ProgressSerializer(state).data}


class LaunchSerializer(serializers.Serializer):
    benchmark = serializers.SlugField()
    models = serializers.ListField(child=serializers.SlugField(), min_length=1)
    repeats = serializers.IntegerField(min_value=1, default=services.SAMPLING_REPEATS,
                                       help_text="Answers per question from each generate-mode model; "
                                                 "choice-mode models answer once.")
    domains = serializers.ListField(child=serializers.SlugField(), required=False, default=list)
    choice_counts = serializers.ListField(child=serializers.IntegerField(min_value=2, max_value=3), required=False,
                                         default=list)
    qualified_actors = serializers.ListField(child=serializers.CharField(max_length=12), required=False, default=list)
    sample = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    seed = serializers.IntegerField(default=0)
    permute_options = serializers.BooleanField(default=False)
    system_prompt = serializers.CharField(required=False, allow_blank=True, default="")
    use_cache = serializers.BooleanField(required=False, allow_null=True, default=None)

    def validate_benchmark(self, name):
        benchmark = Benchmark.objects.filter(name=name).first()
        if benchmark is None:
            raise serializers.ValidationError(f"no benchmark named {name!r}")
        return benchmark

    def validate_models(self, names):
        models = list(LLMModel.objects.filter(name__in=names))
        unknown = sorted(set(names) - {m.name for m in models})
        if unknown:
            raise serializers.ValidationError(f"unknown model(s): {', '.join(unknown)}")
        return models


class ResponseSerializer(serializers.ModelSerializer):
    question = serializers.SlugRelatedField(slug_field="key", read_only=True)
    model = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Response
        fields = ["id", "run", "question", "model", "repeat", "status", "option_order", "messages", "resolved_model",
                  "params", "raw_output", "option_logprobs", "chosen_letter", "finish_reason", "latency_ms",
                  "prompt_tokens", "completion_tokens", "cost", "attempts", "error_kind", "error_message", "cache_hit",
                  "answered_at"]


class ModelViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = LLMModel.objects.all()
    serializer_class = ModelSerializer
    permission_classes = [RunPermission]
    lookup_field = "name"


class RunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Run.objects.select_related("benchmark", "launched_by").prefetch_related("llm_models")
    serializer_class = RunSerializer
    permission_classes = [RunPermission]

    @extend_schema(request=LaunchSerializer, responses={201: RunSerializer})
    def create(self, request, *args, **kwargs):
        launch = LaunchSerializer(data=request.data)
        launch.is_valid(raise_exception=True)
        data = launch.validated_data
        selection = services.Selection(domains=data["domains"], choice_counts=data["choice_counts"],
                                       qualified_actors=[a.upper() for a in data["qualified_actors"]],
                                       sample=data["sample"], seed=data["seed"])
        try:
            run = services.launch_run(data["benchmark"], data["models"], selection, repeats=data["repeats"],
                                      system_prompt=data["system_prompt"], permute_options=data["permute_options"],
                                      use_cache=data["use_cache"], launched_by=request.user)
        except services.RunError as exc:
            return APIResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return APIResponse(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: RunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        return self._transition(pk, services.cancel_run)

    @extend_schema(request=None, responses={200: RunSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        return self._transition(pk, services.resume_run)

    def _transition(self, pk, workflow):
        """Apply a run workflow; a refusal (already cancelled, imported answers) is a 409."""
        run = get_object_or_404(Run, pk=pk)
        try:
            workflow(run)
        except services.RunError as exc:
            return APIResponse({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        run.refresh_from_db()
        return APIResponse(RunSerializer(run).data)


class ResponseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ResponseSerializer
    permission_classes = [RunPermission]

    def get_queryset(self):
        responses = Response.objects.select_related("question", "model").order_by("id")
        params = self.request.query_params
        if params.get("run"):
            responses = responses.filter(run_id=params["run"])
        if params.get("model"):
            responses = responses.filter(model__name=params["model"])
        if params.get("status"):
            responses = responses.filter(status=params["status"])
        return responses
