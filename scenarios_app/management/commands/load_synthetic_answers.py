"""`load_synthetic_answers [--questions N] [--models M] [--repeats R] [--seed S] [--benchmark NAME] [--replace]`:
coded answers at the paper's scale, to load-test the analysis pages (bench/dashboard_scale.py)."""

import time

import numpy as np
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from encoding_app import current_code
from encoding_app.models import Code, ReviewTask
from runs_app import services as runs_services
from runs_app import unit_rows
from runs_app.models import LLMModel, Response, Run
from runs_app.unit_rows import copy_text
from scenarios_app import services as authoring
from scenarios_app.analysis import synthetic
from benchmarks_app.models import DEFAULT_CONDITION_ID
from scenarios_app.models import ActorSet, Benchmark, Question, Scenario, ScenarioQuestion
from benchmarks_app.lettering import LETTERS
from scenarios_app.seeding import UNIVERSAL_GENERIC, read_universal_generic
from scenarios_app.taxonomy import FOCUS_ACTORS
from scenarios_app.validation import OptionSpec, ScenarioSpec, check_scenario

# The mark that tells a synthetic benchmark from a real one: --replace deletes only these.
MARK = "Synthetic answers loaded by load_synthetic_answers"
REFUSAL_TEXT = "I can't recommend a course of action in this situation."
UNRESOLVED_TEXT = "Both courses have merit; it depends on how the other side responds."
MISSING_TEXT = "synthetic: the call failed and no answer came back"
RESPONSE_CHUNK = 200_000  # rows per COPY write and per progress line

# Every NOT NULL column of runs_app_response without a database default (Django sets
# defaults in Python, so COPY must name them), plus answered_at.
COPY_COLUMNS = ["run_id", "question_id", "model_id", "repeat", "status", "option_order", "messages",
                "resolved_model", "params", "raw_output", "chosen_letter", "finish_reason", "attempts", "error_kind",
                "error_message", "cache_hit", "cache_key", "claim_token", "created_at", "answered_at", "code",
                "code_source", "condition_id"]


def model_name(index):
    return f"synthetic-{index}"


class Command(BaseCommand):
    help = ("Load synthetic coded answers at the paper's scale (default 66,473 questions x 8 models x 5 repeats, "
            "about 2.66 million answers) into a benchmark of its own: about 400 scenarios over the four domains on "
            "the seeded codified comparisons, two- and three-option forms (with their no-middle variant), dyads of "
            "the 40 Universal Generic states (US, GB, CN, RU, IN most often qualified), external models "
            "synthetic-1..N that differ in their preferences, and one finished run. About 2% refusals (R), 1% "
            "unresolved and 0.5% missing answers. The codes are written onto the responses (code, code_source "
            "'choice') by the coding room's encoding_app.current_code, one update per value; no encoding_app Code "
            "rows or review tasks are created. Seeded: the same "
            "arguments load the same answers. Meant for PostgreSQL (answers written with COPY); on SQLite it works, "
            "slowly, for small sizes.")

    def add_arguments(self, parser):
        parser.add_argument("--questions", type=int, default=66_473, help="Questions in all (default 66,473).")
        parser.add_argument("--models", type=int, default=8, help="External models synthetic-1..N (default 8).")
        parser.add_argument("--repeats", type=int, default=5, help="Answers per question and model (default 5).")
        parser.add_argument("--scenarios", type=int, default=400,
                            help="Scenarios (default 400; fewer when there are under 8 questions per scenario).")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--benchmark", default="synthetic", help="Benchmark name (default synthetic).")
        parser.add_argument("--replace", action="store_true",
                            help="Delete an earlier synthetic benchmark of this name (runs, answers, questions, "
                                 "scenarios, and its synthetic models no other run uses) first.")

    def handle(self, *args, questions, models, repeats, scenarios, seed, benchmark, replace, **options):
        for name, value in (("--questions", questions), ("--models", models), ("--repeats", repeats),
                            ("--scenarios", scenarios)):
            if value < 1:
                raise CommandError(f"{name} must be at least 1 (got {value})")
        started = time.perf_counter()
        self._started = started
        existing = Benchmark.objects.filter(name=benchmark).first()
        if existing is not None:
            if not existing.description.startswith(MARK):
                raise CommandError(f"benchmark {benchmark!r} exists and was not loaded by load_synthetic_answers; "
                                   "choose another name with --benchmark (--replace only deletes synthetic ones)")
            if not replace:
                answers = Response.objects.filter(run__benchmark=existing).count()
                raise CommandError(f"benchmark {benchmark!r} already exists ({existing.questions.count()} questions, "
                                   f"{answers} answers); add --replace to delete it and load again, or choose "
                                   "another name with --benchmark")
        clash = LLMModel.objects.filter(name__in=[model_name(i) for i in range(1, models + 1)], is_external=False)
        if clash.exists():
            raise CommandError(f"model {clash.first().name!r} is registered as a callable model; synthetic answers "
                               "need external models of that name: rename or delete it first")
        rng = np.random.default_rng(seed)
        with transaction.atomic():
            if existing is not None:
                self._delete(existing)
            bench = Benchmark.objects.create(
                name=benchmark, title="Synthetic answers (load test)",
                description=f"{MARK} (--questions {questions} --models {models} --repeats {repeats} --seed {seed}). "
                            "Not real model answers.")
            plan = self._scenarios(bench, questions, scenarios, rng)
            llm_models, run = self._run(bench, models, repeats, seed)
            loaded = self._responses(bench, run, llm_models, repeats, rng)
        self._progress("committed")
        if connection.vendor == "postgresql":
            # Fresh statistics, so the planner sees 2.7 million rows and not an empty table.
            with connection.cursor() as cursor:
                cursor.execute(f"ANALYZE {Response._meta.db_table}")
                cursor.execute(f"ANALYZE {Question._meta.db_table}")
            self._progress("analysed")
        three = sum(1 for p in plan if p.form.variants == 2)
        self.stdout.write(self.style.SUCCESS(
            f"benchmark {benchmark}: {len(plan)} scenarios ({three} three-option), "
            f"{Question.objects.filter(benchmark=bench).count():,} questions; run {run.pk}: {loaded:,} answers from "
            f"{models} models x {repeats} repeats in {time.perf_counter() - started:.1f} s"))

    def _progress(self, text):
        self.stdout.write(f"[{time.perf_counter() - self._started:7.1f} s] {text}")
        self.stdout.flush()

    def _delete(self, benchmark):
        """Delete a synthetic benchmark. Its answers go by plain SQL: the ORM would load
        millions of rows to cascade them (codes supersede codes, so it cannot fast-delete)."""
        runs = list(Run.objects.filter(benchmark=benchmark).values_list("pk", flat=True))
        models = set(LLMModel.objects.filter(runs__pk__in=runs).values_list("pk", flat=True))
        Code.objects.filter(response__run_id__in=runs).delete()
        ReviewTask.objects.filter(response__run_id__in=runs).delete()
        with connection.cursor() as cursor:
            if runs:
                placeholders = ", ".join(["%s"] * len(runs))
                cursor.execute(f"DELETE FROM {Response._meta.db_table} WHERE run_id IN ({placeholders})", runs)
            Run.objects.filter(pk__in=runs).delete()
            # The units' question keys are Django's, not the database's (runs_app migration
            # 0018): plain SQL must not leave units of another run naming a deleted question.
            if Response.objects.filter(question__benchmark=benchmark).exists():
                raise CommandError(f"benchmark {benchmark.name}: units of runs of other benchmarks ask its "
                                   "questions; delete those runs first")
            cursor.execute(f"DELETE FROM {ScenarioQuestion._meta.db_table} WHERE question_id IN "
                           f"(SELECT id FROM {Question._meta.db_table} WHERE benchmark_id = %s)", [benchmark.pk])
            cursor.execute(f"DELETE FROM {Question._meta.db_table} WHERE benchmark_id = %s", [benchmark.pk])
        Scenario.objects.filter(benchmark=benchmark).delete()
        benchmark.delete()
        LLMModel.objects.filter(pk__in=models, is_external=True, name__startswith="synthetic-").filter(
            Q(runs__isnull=True) & Q(responses__isnull=True)).delete()
        self._progress(f"deleted the earlier benchmark {benchmark.name} ({len(runs)} run(s))")

    def _scenarios(self, bench, questions, scenarios, rng):
        """Plan the scenarios and save each through the authoring service, which expands
        it into its questions exactly as authored scenarios are (both variants)."""
        taxonomy = authoring.taxonomy_from_db()
        ranks = {slug: category.rank for slug, category in taxonomy.categories.items()}
        forms = [synthetic.Form(c.slug, c.domain, c.categories, synthetic.middle_of(c.categories, ranks))
                 for c in taxonomy.comparisons.values() if len(c.categories) in (2, 3)]
        universal = ActorSet.objects.filter(name=UNIVERSAL_GENERIC).first()
        actors = universal.member_codes() if universal else [row["iso_alpha2"] for row in read_universal_generic()]
        try:
            plan = synthetic.plan_scenarios(questions, forms, actors, FOCUS_ACTORS, rng, scenarios,
                                            prefix=bench.name[:40])
        except ValueError as exc:
            raise CommandError(f"--questions {questions}: {exc}") from None
        known = set(actors)
        for number, planned in enumerate(plan, start=1):
            spec = self._spec(planned, taxonomy)
            problems = check_scenario(spec, taxonomy, known)
            if problems:  # a bug in the generator, not the user's doing
                raise CommandError(f"synthetic scenario {spec.key} is invalid: {problems[0]}")
            authoring.save_spec(bench, spec)
            if number % 50 == 0 or number == len(plan):
                self._progress(f"scenarios: {number}/{len(plan)}")
        return plan

    @staticmethod
    def _spec(planned, taxonomy):
        comparison = taxonomy.comparisons[planned.form.comparison]
        names = [taxonomy.categories[slug].name for slug in planned.form.categories]
        template = (f"[Actor A] and [Actor B] are at odds in a synthetic {taxonomy.domains[planned.form.domain]} "
                    f"scenario ({comparison.name}; {planned.key}). Talks have stalled and both governments face "
                    "pressure at home. How should [Actor A] respond?")
        options = [OptionSpec(f"{name}: [Actor A] takes this course towards [Actor B].", slug)
                   for name, slug in zip(names, planned.form.categories)]
        return ScenarioSpec(key=planned.key, domain=planned.form.domain, comparison=comparison.slug,
                            template=template, options=options, qualified_actor="A", dyads=list(planned.dyads),
                            notes="Synthetic scenario for load tests (load_synthetic_answers).")

    def _run(self, bench, models, repeats, seed):
        llm_models = []
        for index in range(1, models + 1):
            model, _ = LLMModel.objects.get_or_create(
                name=model_name(index),
                defaults={"is_external": True, "notes": "Synthetic answers for load tests (load_synthetic_answers); "
                                                        "never called."})
            llm_models.append(model)
        run = runs_services.create_run(Run.Kind.SYNTHETIC, bench, llm_models,
                                       selection={"synthetic": True, "seed": seed}, repeats=repeats,
                                       note=f"synthetic answers (seed {seed})")
        # As launch_run does: versions that have been asked never change again.
        authoring.freeze(Scenario.objects.filter(benchmark=bench))
        return llm_models, run

    def _responses(self, bench, run, llm_models, repeats, rng):
        rows = list(Question.objects.filter(benchmark=bench).order_by("pk").values_list(
            "pk", "cfpd__scenario_id", "cfpd__qualified_actor_id", "options", "choice_count"))
        category_index, scenario_index, actor_index = {}, {}, {}
        option_categories = np.full((len(rows), 3), -1, dtype=np.int64)
        for i, (_, scenario_id, actor_id, options, _) in enumerate(rows):
            for k, option in enumerate(options):
                option_categories[i, k] = category_index.setdefault(option["category"], len(category_index))
            scenario_index.setdefault(scenario_id, len(scenario_index))
            actor_index.setdefault(actor_id, len(actor_index))
        outcome = synthetic.draw_outcomes(
            option_categories, np.array([scenario_index[r[1]] for r in rows]),
            np.array([actor_index[r[2]] for r in rows]), len(llm_models), repeats, rng)
        question_ids = np.array([r[0] for r in rows], dtype=np.int64)
        choice_counts = np.array([r[4] for r in rows], dtype=np.int64)
        total = outcome.size
        self._progress(f"questions: {len(rows):,}; writing {total:,} answers")
        write = self._copy if connection.vendor == "postgresql" else self._bulk_create
        written = write(run, question_ids, choice_counts, llm_models, outcome)
        self._code(run)
        return written

    def _code(self, run):
        """The answers' codes, through the coding room's one writer: one update per value
        over the run's rows picked by what they say (a chosen letter is its own code, the
        options shown in their canonical order), none passing through Python. It costs more
        than writing the codes with the rows did (PostgreSQL, 240,000 answers: 14 s for the
        updates and their tally triggers, 7 s to write the rows), the price of one writer."""
        answers = Response.objects.filter(run=run)
        where = {(letter, "choice"): answers.filter(chosen_letter=letter) for letter in LETTERS[:3]}
        where.update({("R", "choice"): answers.filter(raw_output=REFUSAL_TEXT),
                      ("", "unresolved"): answers.filter(raw_output=UNRESOLVED_TEXT),
                      ("", "missing"): answers.filter(status=Response.Status.FAILED)})
        current_code.set_codes([], where=where)
        self._progress("answers coded")

    def _chunks(self, question_ids, choice_counts, outcome):
        """(question ids, model positions, repeats, choice counts, outcomes) per chunk of
        rows, in (question, model, repeat) order as launch_run writes them."""
        per_question = outcome.shape[1] * outcome.shape[2]
        step = max(1, RESPONSE_CHUNK // per_question)
        models = np.arange(outcome.shape[1])
        repeats = np.arange(outcome.shape[2])
        for start in range(0, len(question_ids), step):
            block = outcome[start:start + step]
            count = len(block)
            q = np.repeat(question_ids[start:start + step], per_question)
            cc = np.repeat(choice_counts[start:start + step], per_question)
            m = np.tile(np.repeat(models, len(repeats)), count)
            r = np.tile(repeats, count * len(models))
            yield q, m, r, cc, block.ravel()

    @staticmethod
    def _fields(model, choice_count, outcome, now):
        """The values of one kind of answer (all but run, question, model and repeat)."""
        coded = outcome < synthetic.REFUSAL
        failed = outcome == synthetic.MISSING
        letter = LETTERS[outcome] if coded else ""
        return {
            "status": Response.Status.FAILED if failed else Response.Status.DONE,
            "option_order": list(range(choice_count)), "messages": [], "resolved_model": model.name, "params": {},
            "raw_output": {synthetic.REFUSAL: REFUSAL_TEXT, synthetic.UNRESOLVED: UNRESOLVED_TEXT,
                           synthetic.MISSING: ""}.get(outcome, letter),
            "chosen_letter": letter, "finish_reason": "" if failed else "stop", "attempts": 1,
            "error_kind": Response.ErrorKind.SERVER if failed else "", "error_message": MISSING_TEXT if failed else "",
            "cache_hit": False, "cache_key": "", "claim_token": "", "created_at": now,
            "answered_at": None if failed else now,
            "code": "", "code_source": "",  # no code yet: `_code` gives them theirs
            "condition_id": DEFAULT_CONDITION_ID,
        }

    def _kinds(self, llm_models, now):
        """Every kind of answer, indexed by model position * 12 + (choice_count - 2) * 6 + outcome."""
        return [self._fields(model, choice_count, outcome, now) if choice_count > outcome
                or outcome >= synthetic.REFUSAL else None
                for model in llm_models for choice_count in (2, 3) for outcome in range(6)]

    def _copy(self, run, question_ids, choice_counts, llm_models, outcome):
        """PostgreSQL: COPY in text format. Each row is its ids and one of a few dozen
        preformatted tails, so building the text costs about a microsecond a row."""
        now = timezone.now()

        tails = [None if kind is None else "\t".join(copy_text(kind[column]) for column in COPY_COLUMNS[4:]) + "\n"
                 for kind in self._kinds(llm_models, now)]
        model_ids = [model.pk for model in llm_models]
        written = 0

        def chunks():
            nonlocal written
            for q, m, r, cc, o in self._chunks(question_ids, choice_counts, outcome):
                kind = (m * 12 + (cc - 2) * 6 + o).tolist()
                ids = [model_ids[i] for i in m.tolist()]
                yield "".join([f"{run.pk}\t{qid}\t{mid}\t{rep}\t{tails[k]}"
                               for qid, mid, rep, k in zip(q.tolist(), ids, r.tolist(), kind)])
                written += len(kind)
                self._progress(f"answers: {written:,}/{outcome.size:,} (COPY)")

        unit_rows.copy_rows(COPY_COLUMNS, chunks())
        self._progress("answers written; checking foreign keys at commit")
        return written

    def _bulk_create(self, run, question_ids, choice_counts, llm_models, outcome):
        """Other databases (SQLite in the tests): the ORM, in batches."""
        now = timezone.now()
        kinds = self._kinds(llm_models, now)
        written = 0
        for q, m, r, cc, o in self._chunks(question_ids, choice_counts, outcome):
            kind = (m * 12 + (cc - 2) * 6 + o).tolist()
            unit_rows.create_rows([
                dict(run=run, question_id=qid, model=llm_models[mi], repeat=rep, **kinds[k])
                for qid, mi, rep, k in zip(q.tolist(), m.tolist(), r.tolist(), kind)])
            written += len(kind)
            self._progress(f"answers: {written:,}/{outcome.size:,} (bulk_create)")
        return written
