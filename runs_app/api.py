"""REST API (DRF) for models, runs and responses; the schema is at /api/schema/."""

from decimal import Decimal

from django.db.models import Sum
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.response import Response as APIResponse

from benchmarks_app import families
from kit import params
from kit.api_schema import errors

from . import connection, launch_plan, page_progress, services
from .models import LLMModel, Response, Run, RunProgress


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


PROGRESS_FIELDS = tuple(ProgressSerializer().fields)


# A budget in US$ as the schema states it: more than 0, at most 99,999,999.9999 (under
# launch_plan.MAX_BUDGET_USD), at most 4 decimals. A decimal travels as a string, and a
# string's schema cannot say "at least 0.0001": this pattern says it, so a client (and
# schemathesis) that follows the schema never sends a budget the field refuses.
POSITIVE_BUDGET_PATTERN = r"^(?:[1-9]\d{0,7}(?:\.\d{0,4})?|0?\.(?:[1-9]\d{0,3}|0[1-9]\d{0,2}|00[1-9]\d?|000[1-9]))$"


@extend_schema_field({"type": "string", "format": "decimal", "pattern": POSITIVE_BUDGET_PATTERN})
class PositiveBudgetField(serializers.DecimalField):
    def validate_empty_values(self, data):
        if data == "":  # DRF would read "" as null (no budget); the schema admits no empty string
            self.fail("invalid")
        return super().validate_empty_values(data)


class ResumeSerializer(serializers.Serializer):
    """The bounds are launch_plan's (money, whole_number), here so that the schema says them."""

    budget_usd = PositiveBudgetField(max_digits=13, decimal_places=4, min_value=Decimal("0.0001"),
                                          max_value=launch_plan.MAX_BUDGET_USD, required=False, allow_null=True,
                                          help_text="US$, more than 0, at most 4 decimals; null removes it.")
    budget_units = serializers.IntegerField(min_value=1, max_value=launch_plan.MAX_WHOLE, required=False,
                                            allow_null=True, help_text="Units; null removes it.")


class BudgetSerializer(serializers.Serializer):
    budget_usd = serializers.FloatField(allow_null=True)
    budget_units = serializers.IntegerField(allow_null=True)
    spent_usd = serializers.FloatField()
    spent_units = serializers.IntegerField()
    reached = serializers.BooleanField()


class RunSerializer(serializers.ModelSerializer):
    benchmark = serializers.SlugRelatedField(slug_field="name", read_only=True)
    models = serializers.SlugRelatedField(source="llm_models", slug_field="name", many=True, read_only=True)
    launched_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True,
                                               help_text="null for runs imported from answers collected elsewhere "
                                                         "or whose user was deleted.")
    progress = serializers.SerializerMethodField()
    budget = serializers.SerializerMethodField()
    service_notice = serializers.SerializerMethodField(
        help_text="While the run waits on a service (Redis, the database, its disk), what and since when, e.g. "
                  "'Redis unreachable since 12:04; 1,532 units will be queued again when it returns'; "
                  "empty otherwise.")

    left_out = serializers.ListField(
        child=serializers.CharField(), read_only=True,
        help_text="What the launch's selection left out and why, one line each, as the launch plan's notes said "
                  "them (e.g. a language with no approved translation for each_actor_language); empty when nothing.")

    class Meta:
        model = Run
        fields = ["id", "benchmark", "models", "selection", "repeats", "system_prompt", "permute_options",
                  "balanced_options", "use_cache", "delivery", "status", "note", "launched_by", "created_at", "started_at",
                  "finished_at", "progress", "budget", "service_notice", "left_out"]

    def get_service_notice(self, run) -> str:
        return services.service_notice(run)

    def _state(self, run) -> page_progress.RunState:
        """The run's counts, from the context (one query for a whole page: RunViewSet) or,
        for a run serialized alone, one query of its own."""
        states = self.context.get("run_states")
        if states is None or run.pk not in states:
            states = run_states([run.pk])
        return states[run.pk]

    @extend_schema_field(BudgetSerializer(allow_null=True))
    def get_budget(self, run):
        if run.budget_usd is None and run.budget_units is None:
            return None
        state = self._state(run)
        return {"budget_usd": float(run.budget_usd) if run.budget_usd is not None else None,
                "budget_units": run.budget_units, "spent_usd": float(state.spent_usd), "spent_units": state.spent_units,
                "reached": launch_plan.budget_reached(run.budget_usd, run.budget_units, state.spent_usd,
                                                      state.spent_units)}

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, run) -> dict:
        state = self._state(run)
        # services.Progress, so that percent and the rest mean what they mean on the run page;
        # the mean latency is the page's alone.
        progress = services.Progress(
            total=state.total, pending=state.pending, running=state.running, done=state.done, failed=state.failed,
            cancelled=state.cancelled, cached=state.cached, prompt_tokens=state.prompt_tokens,
            completion_tokens=state.completion_tokens, cost=None if state.cost is None else float(state.cost),
            mean_latency_ms=None)
        # The fields of ProgressSerializer (the schema's), read directly: a serializer made
        # per run was a third of the page's time.
        return {name: getattr(progress, name) for name in PROGRESS_FIELDS}


def run_states(run_ids) -> dict[int, page_progress.RunState]:
    """Progress and spending of the given runs in one grouped query over their responses
    (the (run, status) index), instead of two or three aggregates per run."""
    rows = (RunProgress.objects.filter(run_id__in=list(run_ids)).values("run_id", "status")
            .annotate(total=Sum("n"), cached_n=Sum("cached"), prompt=Sum("prompt_tokens"),
                      completion=Sum("completion_tokens"), cost_sum=Sum("cost"), priced_n=Sum("priced"),
                      paid_sum=Sum("paid"))
            .order_by())
    # SUM(cost) over units none of which has a cost is NULL (page_progress.fold); so is
    # the cost of calls not from the cache where none was made.
    return page_progress.fold(run_ids, [
        {"run_id": row["run_id"], "status": row["status"], "n": row["total"], "cached": row["cached_n"],
         "prompt": row["prompt"], "completion": row["completion"],
         "priced": row["cost_sum"] if row["priced_n"] else None, "paid": row["paid_sum"]} for row in rows
        if row["total"]])


class LaunchSerializer(serializers.Serializer):
    """The launch as JSON. Types are read here; every rule (limits from settings, names
    that must exist) is `services.read_launch`'s, shared with the form and run_benchmark."""

    benchmark = serializers.CharField()
    models = serializers.ListField(child=serializers.CharField(), allow_empty=True)
    repeats = serializers.IntegerField(default=services.SAMPLING_REPEATS,
                                       help_text="Answers per question from each generate-mode model (1 to "
                                                 "CFPD_MAX_REPEATS, 50 by default); choice-mode models answer once.")
    conditions = serializers.ListField(child=serializers.CharField(), required=False, default=list,
                                       help_text="Condition names (prompt strategies, temperatures); empty: the "
                                                 "default condition.")
    choice_counts = serializers.ListField(child=serializers.IntegerField(), required=False, default=list)
    sample = serializers.IntegerField(required=False, allow_null=True, default=None)
    seed = serializers.IntegerField(default=0, help_text="0 to 2147483647.")
    permute_options = serializers.BooleanField(default=False)
    balanced_options = serializers.BooleanField(
        default=False, help_text="The balanced option-order design: cyclic rotations dealt over each scenario's "
                                 "units, so that each option is shown at each position equally often (within one); "
                                 "wins over permute_options.")
    system_prompt = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False,
                                          help_text="At most CFPD_MAX_PROMPT_CHARS characters (20,000 by default).")
    use_cache = serializers.BooleanField(required=False, allow_null=True, default=None)
    budget_usd = serializers.DecimalField(max_digits=30, decimal_places=10, required=False, allow_null=True,
                                          default=None, help_text="The run pauses once its calls cost this much.")
    budget_units = serializers.IntegerField(required=False, allow_null=True, default=None,
                                            help_text="The run pauses once this many units are finished.")
    note = serializers.CharField(required=False, allow_blank=True, default="")
    difference = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=100,
                                          help_text="Points: the difference between two models the plan's power "
                                                    "figures are for (1 to 100; default 10).")
    delivery = serializers.ChoiceField(choices=["live", "batch"], default="live",
                                       help_text="live: each question its own call; batch: the providers' batch "
                                                 "interfaces (answers within 24 h, about half the price), for "
                                                 "models whose provider has one (others are refused, saying why).")
    dry_run = serializers.BooleanField(default=False, help_text="Return the plan (units, tokens, cost, time) "
                                                                "and write nothing.")

    def get_fields(self):
        """The engine's fields, with every installed family's own selection keys (CFPD:
        domains, qualified_actors) as lists of names after `conditions`."""
        fields, keyed = super().get_fields(), {}
        for name, field in fields.items():
            keyed[name] = field
            if name == "conditions":
                for key in families.selection_keys():
                    keyed.setdefault(key, serializers.ListField(child=serializers.CharField(), required=False,
                                                                default=list))
        return keyed

    def validate(self, attrs):
        try:
            attrs["request"] = services.read_launch(attrs)
        except services.LaunchInvalid as exc:
            raise serializers.ValidationError(exc.errors) from None
        return attrs


class ModelPlanSerializer(serializers.Serializer):
    name = serializers.CharField()
    mode = serializers.CharField()
    questions = serializers.IntegerField()
    repeats = serializers.IntegerField()
    units = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField(help_text="Estimated: rendered prompt characters / 4.")
    completion_tokens = serializers.IntegerField(help_text="1 per unit in choice mode, max_tokens in generate mode.")
    cost = serializers.FloatField(allow_null=True, help_text="US$; null when no price is known.")
    price_source = serializers.CharField()
    requests_per_second = serializers.FloatField()
    limited_by = serializers.CharField()
    seconds = serializers.FloatField()
    latency_seconds = serializers.FloatField()
    latency_source = serializers.CharField()
    batch_cost = serializers.FloatField(allow_null=True, help_text="US$ by batch delivery; null when no price is "
                                                                   "known or the model has no batch interface.")
    batch_price_source = serializers.CharField(help_text="batch price (LiteLLM's table), half of live, unknown, or "
                                                         "no batch interface.")
    batch_refusal = serializers.CharField(allow_blank=True, help_text="Why batch delivery cannot ask this model "
                                                                      "(empty when it can).")


class PlanCheckSerializer(serializers.Serializer):
    model = serializers.CharField()
    level = serializers.ChoiceField(choices=["refuse", "warn", "note"],
                                    help_text="refuse: the model's answer mode cannot work on its server (the launch "
                                              "is refused); warn; note (e.g. capabilities never probed).")
    text = serializers.CharField()
    never_probed = serializers.BooleanField(help_text="No connection test has found anything yet.")
    url = serializers.CharField(help_text="The model's Test connection page.")


class PlanSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    questions = serializers.IntegerField()
    units = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost = serializers.FloatField(allow_null=True)
    cost_known = serializers.FloatField()
    seconds = serializers.FloatField()
    batch_cost = serializers.FloatField(allow_null=True, help_text="US$ by batch delivery, beside `cost` (live).")
    batch_cost_known = serializers.FloatField()
    batch_seconds = serializers.FloatField(help_text="The providers' batch window: answers within this many seconds.")
    batch_possible = serializers.BooleanField()
    token_method = serializers.CharField()
    models = ModelPlanSerializer(many=True)
    notes = serializers.ListField(child=serializers.CharField(), required=False,
                                  help_text="What the selection left out and why (e.g. each actor's language with "
                                            "no approved translation), one line each.")
    checks = PlanCheckSerializer(many=True, help_text="Per model, what its last connection test says of its answer "
                                                      "mode; a refusal means the launch would be refused.")
    power = serializers.JSONField(allow_null=True, required=False,
                                  help_text="The family's power figures for the questions selected (CFPD: per domain "
                                            "form, the headline interval's half-width and the power to detect a "
                                            "10-point difference, the scenarios ±10 points need); null without.")


def _bad(exc: params.BadParameter) -> serializers.ValidationError:
    return serializers.ValidationError({exc.field: [exc.reason]})


def _whole_id(value, name: str) -> int:
    """A run id from the URL or the query string: a 400 naming the field, not a 500."""
    try:
        return params.to_int(str(value), name, minimum=1)
    except params.BadParameter as exc:
        raise _bad(exc) from None


class ResponseSerializer(serializers.ModelSerializer):
    question = serializers.SlugRelatedField(slug_field="key", read_only=True)
    model = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Response
        fields = ["id", "run", "question", "model", "repeat", "status", "option_order", "messages", "resolved_model",
                  "params", "raw_output", "option_logprobs", "chosen_letter", "finish_reason", "latency_ms",
                  "prompt_tokens", "completion_tokens", "cost", "attempts", "error_kind", "error_message", "cache_hit",
                  "answered_at"]


class FindingSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    ok = serializers.BooleanField(allow_null=True, help_text="null: not found out (the server did not answer, or "
                                                             "the step could not be tried).")
    summary = serializers.CharField()
    message = serializers.CharField(allow_blank=True, help_text="The server's own message where it refused.")


class ConnectionTestSerializer(serializers.Serializer):
    model = serializers.CharField()
    model_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["never", "queued", "running", "done", "failed"])
    stale = serializers.BooleanField(help_text="Queued or running for long: no worker seems to have taken it.")
    active = serializers.BooleanField()
    step = serializers.CharField(allow_blank=True)
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    requested_at = serializers.CharField(allow_null=True)
    started_at = serializers.CharField(allow_null=True)
    finished_at = serializers.CharField(allow_null=True)
    checked_at = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_blank=True)
    findings = FindingSerializer(many=True)
    recommended = serializers.JSONField(help_text='What the findings allow: {"choice": a strategy or null, "rank": '
                                                  '"one request" | "one request per option" | null, "generate": bool}.')
    probed = serializers.JSONField()


class ConnectionTestPermission(RunPermission):
    """Reading a model's findings with runs_app.view_run; starting a test with change_llmmodel."""

    def has_permission(self, request, view):
        if request.method not in permissions.SAFE_METHODS and getattr(view, "action", None) == "test_connection":
            user = request.user
            return bool(user and user.is_authenticated and user.has_perm("runs_app.change_llmmodel"))
        return super().has_permission(request, view)


@extend_schema_view(list=extend_schema(responses={200: ModelSerializer(many=True), **errors(404)}),
                    retrieve=extend_schema(responses={200: ModelSerializer, **errors(404)}))
class ModelViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = LLMModel.objects.all()
    serializer_class = ModelSerializer
    permission_classes = [ConnectionTestPermission]
    lookup_field = "name"

    @extend_schema(request=None, responses={200: ConnectionTestSerializer, 202: ConnectionTestSerializer,
                                            **errors(400, 404)},
                   methods=["GET", "POST"])
    @action(detail=True, methods=["get", "post"], url_path="test-connection")
    def test_connection(self, request, name=None, format=None):
        """GET: the model's last connection test (its job and findings). POST: start a new one, run by a
        worker off the request (202 with the job; a test already under way is returned as it is)."""
        model = self.get_object()
        if request.method == "POST":
            try:
                connection.request_connection_test(model)
            except connection.ConnectionTestRefused as exc:
                return APIResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
            model.refresh_from_db()
            return APIResponse(ConnectionTestSerializer(connection.job_view(model)).data,
                               status=status.HTTP_202_ACCEPTED)
        return APIResponse(ConnectionTestSerializer(connection.job_view(model)).data)


RUN_ID = OpenApiParameter("id", {"type": "integer", "minimum": 1, "maximum": params.MAX_INT}, OpenApiParameter.PATH,
                          description="The run's id.")


@extend_schema_view(list=extend_schema(responses={200: RunSerializer(many=True), **errors(404)}),
                    retrieve=extend_schema(parameters=[RUN_ID], responses={200: RunSerializer, **errors(404)}))
class RunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    # -id: runs launched in the same instant keep one order across pages.
    queryset = (Run.objects.select_related("benchmark", "launched_by").prefetch_related("llm_models")
                .order_by("-created_at", "-id"))
    serializer_class = RunSerializer
    permission_classes = [RunPermission]
    parser_classes = [JSONParser]  # bodies are JSON (lists, nulls), which a form cannot say

    def get_serializer(self, *args, **kwargs):
        """Every run on the page gets its progress from one query (see run_states)."""
        if args and args[0] is not None:
            runs = list(args[0]) if kwargs.get("many") else [args[0]]
            kwargs["context"] = {**self.get_serializer_context(), "run_states": run_states([r.pk for r in runs])}
            args = (runs if kwargs.get("many") else runs[0], *args[1:])
        return super().get_serializer(*args, **kwargs)

    @extend_schema(request=LaunchSerializer, responses={201: RunSerializer, 200: PlanSerializer, **errors(400)})
    def create(self, request, *args, **kwargs):
        """Launch a run; with "dry_run": true, only its plan (200, nothing written)."""
        launch = LaunchSerializer(data=request.data)
        launch.is_valid(raise_exception=True)
        data = launch.validated_data
        try:
            if data["dry_run"]:
                plan = services.plan_launch(data["request"])
                return APIResponse(PlanSerializer({"dry_run": True, **services.plan_as_dict(plan)}).data)
            run = services.start_run(data["request"], launched_by=request.user)
        except services.LaunchInvalid as exc:
            return APIResponse(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        except services.RunError as exc:
            return APIResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return APIResponse(self.get_serializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, parameters=[RUN_ID], responses={200: RunSerializer, **errors(400, 404, 409)})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None, format=None):  # format: the router's .json suffix
        return self._transition(pk, services.cancel_run)

    @extend_schema(request=ResumeSerializer, parameters=[RUN_ID],
                   responses={200: RunSerializer, **errors(400, 404, 409)})
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None, format=None):
        """Ask again what is not done; a paused run needs its budget raised ("budget_usd",
        "budget_units"; null removes one)."""
        body = ResumeSerializer(data=request.data)  # a body that is no JSON object is a 400
        body.is_valid(raise_exception=True)
        changes = dict(body.validated_data)  # only the budgets given: absent is unchanged, null removes
        return self._transition(pk, lambda run: services.resume_run(run, **changes))

    def _transition(self, pk, workflow):
        """Apply a run workflow; a refusal (already cancelled, imported answers, budget
        spent) is a 409, a bad value a 400."""
        run = get_object_or_404(Run, pk=_whole_id(pk, "id"))
        try:
            workflow(run)
        except services.LaunchInvalid as exc:
            return APIResponse(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        except services.RunError as exc:
            return APIResponse({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        run.refresh_from_db()
        return APIResponse(self.get_serializer(run).data)


@extend_schema_view(list=extend_schema(responses={200: ResponseSerializer(many=True), **errors(400, 404)}),
                    retrieve=extend_schema(responses={200: ResponseSerializer, **errors(404)}))
class ResponseViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ResponseSerializer
    permission_classes = [RunPermission]

    def get_queryset(self):
        responses = Response.objects.select_related("question", "model").order_by("id")
        query = self.request.query_params
        try:
            run = params.optional_integer(query, "run", minimum=1)
            model = params.text(query, "model")
            state = params.text(query, "status")
        except params.BadParameter as exc:
            raise _bad(exc) from None
        if run is not None:
            responses = responses.filter(run_id=run)
        if model:
            responses = responses.filter(model__name=model)
        if state:
            if state not in Response.Status.values:
                raise serializers.ValidationError({"status": [
                    f"must be one of {', '.join(Response.Status.values)}, got {state[:40]!r}"]})
            responses = responses.filter(status=state)
        return responses
