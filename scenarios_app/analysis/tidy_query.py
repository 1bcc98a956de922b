"""The tidy table of coded answers, from the database.

Answers are counted in the database (GROUP BY over the response table, joined to its
question) and handed to pandas as weighted rows (`n` answers per row): at the paper's
scale that is a few hundred thousand rows instead of 2.7 million. The small lookups
(models, scenarios, actors, option categories) are read once and joined in pandas.

Outcomes: a code A … J is an "answer" (the chosen option's category), R a "refusal",
X "invalid" (no option chosen, no refusal: counted apart, in no option rate);
without a code an answer is "unresolved" while reviewers have it, "missing" when the call
failed or the answer was empty; answers not given yet ("pending") are left out of the
table and counted by `coverage`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from django.db import connection, transaction
from django.db.models import Count, Min, Q

from analysis_app import people
from benchmarks_app.lettering import LETTERS
from benchmarks_app.models import Condition
from runs_app.models import LLMModel, Response, Run
from scenarios_app.models import ActionCategory, Actor, Domain, Scenario, ScenarioQuestion

from . import tally
from .metrics.tidy import COLUMNS


@dataclass(frozen=True)
class AnalysisFilter:
    """What an analyst picked. Empty lists mean everything."""

    runs: tuple[int, ...] = ()
    models: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()  # domain slugs
    choice_counts: tuple[int, ...] = ()
    actors: tuple[str, ...] = ()  # qualified actors, ISO codes; also the per-country panel's actors
    conditions: tuple[str, ...] = ()  # condition names; empty: every condition
    languages: tuple[str, ...] = ()  # the questions' BCP 47 codes (issue 41); empty: every language
    focus_complete: bool = False  # only scenarios asked for all five focus actors (robustness, 4.3)
    # (run id, model id) pairs left out: earlier launches of a selection (`latest_launches`).
    superseded: tuple[tuple[int, int], ...] = ()

    def responses(self):
        # A judge unit (a judge model reading another model's answer) is not a CFPD answer.
        return self.narrow(Response.objects.answers().filter(question__choice_count__gt=0,
                                                             question__cfpd__isnull=False))

    def narrow(self, rows, question: str = "question__", scenario: str = "question__cfpd__"):
        """`rows` (answers, or counts of them with the same run, model and condition keys)
        narrowed to this filter; `question` and `scenario` are the paths to the question's
        columns and to its CFPD columns (domain, qualified actor)."""
        if self.runs:
            rows = rows.filter(run_id__in=self.runs)
        if self.superseded:
            hidden = Q()
            for run_id, model_id in self.superseded:
                hidden |= Q(run_id=run_id, model_id=model_id)
            rows = rows.exclude(hidden)
        # Names become ids first (tiny lookups): with the ids as constants PostgreSQL
        # estimates the rows and takes the (model, question) index of the tallies; joined
        # by name, it read every model's counts and dropped 7 in 8 after the join.
        if self.models:
            rows = rows.filter(model_id__in=_ids(LLMModel.objects.filter(name__in=self.models)))
        if self.domains:
            rows = rows.filter(**{f"{scenario}domain_id__in": _ids(Domain.objects.filter(slug__in=self.domains))})
        if self.choice_counts:
            rows = rows.filter(**{f"{question}choice_count__in": self.choice_counts})
        if self.conditions:
            rows = rows.filter(condition_id__in=_ids(Condition.objects.filter(name__in=self.conditions)))
        if self.actors:
            rows = rows.filter(**{f"{scenario}qualified_actor_id__in": _ids(Actor.objects.filter(code__in=self.actors))})
        if self.languages:
            rows = rows.filter(**{f"{question}language__in": self.languages})
        return rows


def _ids(rows) -> list[int]:
    return list(rows.values_list("pk", flat=True))


NOT_ANSWERED = [Response.Status.PENDING.value, Response.Status.RUNNING.value]


@dataclass(frozen=True)
class Superseded:
    """An earlier launch of the same selection of a model, left out by default."""

    run: int
    model: str
    newer_run: int


def _launch_key(run: Run) -> str:
    """What makes two runs the same launch: benchmark, question selection, prompt and
    option order (shuffled or balanced). Imported answers are never launches of anything (each file is its own)."""
    return json.dumps([run.benchmark_id, run.selection, run.system_prompt, run.permute_options,
                       run.permutation_seed if run.permute_options or run.balanced_options else None,
                       run.balanced_options], sort_keys=True)


def latest_launches(filters: AnalysisFilter) -> tuple[AnalysisFilter, list[Superseded]]:
    """With no run picked, each (launch, model) counts once: the newest finished run of it
    (the newest run while none has finished). Earlier launches of the same selection are
    not repeats (a choice-mode model asked twice answers the same twice) and are left
    out; an analyst who wants them pooled picks the runs. With runs picked, the filter
    is returned as it is."""
    if filters.runs:
        return filters, []
    # The run's models as launched (a small table), not a DISTINCT over every answer; only
    # runs made without that list (by hand, in tests) are read from their answers.
    by_run: dict[int, set[int]] = {}
    for run_id, model_id in Run.llm_models.through.objects.values_list("run_id", "llmmodel_id"):
        by_run.setdefault(run_id, set()).add(model_id)
    unlisted = Run.objects.exclude(pk__in=list(by_run)).values_list("pk", flat=True)
    for run_id, model_id in (Response.objects.filter(run_id__in=list(unlisted)).values_list("run_id", "model_id")
                             .distinct().order_by()):
        by_run.setdefault(run_id, set()).add(model_id)
    launches: dict[tuple[str, int], list[Run]] = {}
    # Imported answers launch nothing; a judge run (encoding_app) holds no answers.
    launched = Run.objects.of_answers().exclude(kind=Run.Kind.IMPORT)
    for run in launched.filter(pk__in=list(by_run)).only(
            "pk", "benchmark_id", "selection", "system_prompt", "permute_options", "permutation_seed",
            "balanced_options", "status",
            "created_at"):
        for model_id in by_run[run.pk]:
            launches.setdefault((_launch_key(run), model_id), []).append(run)
    names = dict(LLMModel.objects.values_list("pk", "name"))
    hidden, pairs = [], []
    for (_, model_id), same in launches.items():
        # Newest first: finished runs before unfinished ones, then by launch time and id.
        same.sort(key=lambda r: (r.status == Run.Status.DONE, r.created_at, r.pk), reverse=True)
        for run in same[1:]:
            hidden.append(Superseded(run.pk, names.get(model_id, str(model_id)), same[0].pk))
            pairs.append((run.pk, model_id))
    hidden.sort(key=lambda h: (h.run, h.model))
    return replace(filters, superseded=tuple(sorted(pairs))), hidden


def _grouped(filters: AnalysisFilter, extra: list[str]):
    """(…keys, code, code_source, status, n) counted in the database (read from the tallies
    kept by triggers on PostgreSQL, `tally.py`); unanswered units included (status pending
    or running) so coverage comes from the same scan."""
    keys = ["model_id", "question__cfpd__scenario_id", "question__cfpd__variant", *extra, "code", "code_source", "status"]
    counted = tally.grouped(filters, keys)
    if counted is not None:
        return counted
    rows = filters.responses().values(*keys).annotate(n=Count("id")).order_by()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # With the default 4 MB the GROUP BY over millions of answers spills to disk
            # (33 batches, 92 MB at the paper's scale); JIT compiles for longer than it saves.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL work_mem = '64MB'")
                cursor.execute("SET LOCAL jit = off")
        records = list(rows.values_list(*keys, "n"))
    return pd.DataFrame.from_records(records, columns=[*keys, "n"])


def coverage_of(frame: pd.DataFrame) -> dict:
    """How many answers are coded, with reviewers, missing or not given yet."""
    n, code, status = frame["n"], frame["code"], frame["status"]
    pending = status.isin(NOT_ANSWERED)
    counts = {"total": int(n.sum()), "pending": int(n[pending].sum()), "coded": int(n[code != ""].sum()),
              "refusals": int(n[code == "R"].sum()), "invalid": int(n[code == "X"].sum()),
              "unresolved": int(n[(code == "") & (frame["code_source"] == "unresolved") & ~pending].sum())}
    counts["missing"] = counts["total"] - counts["pending"] - counts["coded"] - counts["unresolved"]
    total = counts["total"]
    counts["shares"] = {key: (counts[key] / total if total else 0) for key in
                        ("coded", "unresolved", "missing", "pending")}
    return counts


def _lookups(scenario_ids: list[int]) -> dict:
    scenarios = pd.DataFrame.from_records(
        list(Scenario.objects.filter(pk__in=scenario_ids).values_list(
            "pk", "benchmark__name", "key", "version", "domain_id", "comparison__codified_action__name",
            "comparison__name")),
        columns=["scenario_id", "benchmark", "key", "version", "domain_id", "action", "comparison"])
    # Alliance Dynamics comparisons have no codified action (appendix A.1: the comparison,
    # "Balance vs Bandwagon", is itself the finer action), so the comparison's name stands in.
    scenarios["action"] = scenarios["action"].fillna(scenarios["comparison"])
    domains = dict(Domain.objects.values_list("pk", "name"))
    categories = dict(ActionCategory.objects.values_list("slug", "name"))
    # One question per (scenario, variant) tells which category each code stands for.
    firsts = (ScenarioQuestion.objects.filter(scenario_id__in=scenario_ids).values("scenario_id", "variant")
              .annotate(first=Min("question_id")).values_list("first", flat=True))
    letter_category = {}
    for scenario_id, variant, options in ScenarioQuestion.objects.filter(pk__in=list(firsts)).values_list(
            "scenario_id", "variant", "question__options"):
        for index, option in enumerate(options):
            letter_category[(scenario_id, variant, LETTERS[index])] = categories.get(option.get("category"),
                                                                                      option.get("category"))
    return {"scenarios": scenarios, "domains": domains, "letter_category": letter_category,
            "models": dict(LLMModel.objects.values_list("pk", "name")),
            "actors": dict(Actor.objects.values_list("pk", "code"))}


def _add_outcomes(out: pd.DataFrame, frame: pd.DataFrame, look: dict):
    """choice_count, outcome and category from the code and the (scenario, variant) options
    (vectorised: a join on the small letter → category table)."""
    letter_category = look["letter_category"]
    table = pd.DataFrame(list(letter_category), columns=["scenario", "variant", "code"])
    table["category"] = list(letter_category.values())
    sid, variant, code = frame["question__cfpd__scenario_id"], frame["question__cfpd__variant"], frame["code"]
    out["choice_count"] = (table.groupby(["scenario", "variant"]).size()
                           .reindex(pd.MultiIndex.from_arrays([sid, variant])).fillna(0).astype("int64").to_numpy())
    outcome = np.select([code.isin(list(LETTERS)).to_numpy(), (code == "R").to_numpy(), (code == "X").to_numpy(),
                         ((code == "") & (frame["code_source"] == "unresolved")).to_numpy()],
                        ["answer", "refusal", "invalid", "unresolved"], "missing").astype(object)
    out["outcome"] = pd.Series(outcome, index=frame.index, dtype=object)
    category = (table.set_index(["scenario", "variant", "code"])["category"]
                .reindex(pd.MultiIndex.from_arrays([sid, variant, code])).to_numpy(dtype=object))
    category[(outcome != "answer") | pd.isna(category)] = None
    out["category"] = pd.Series(category, index=frame.index, dtype=object)


def _scenario_label(sid: pd.Series, variant: pd.Series, scenarios: pd.DataFrame) -> pd.Series:
    return (sid.map(scenarios["benchmark"]) + "/" + sid.map(scenarios["key"]) + ".v"
            + sid.map(scenarios["version"]).astype(str) + ":" + variant)


def _tidy_frame(frame: pd.DataFrame, look: dict) -> pd.DataFrame:
    """The tidy columns from grouped or per-answer response rows: the columns the rows lack
    (run and repeat, actors, question key) are pooled: 0 or ""."""
    scenarios = look["scenarios"].set_index("scenario_id")
    sid, variant = frame["question__cfpd__scenario_id"], frame["question__cfpd__variant"]
    pooled = pd.Series(0, index=frame.index)

    def column(name, default):
        return frame[name] if name in frame else default

    qualified = column("question__cfpd__qualified_actor_id", None)
    out = pd.DataFrame({
        "model": frame["model_id"].map(look["models"]),
        "run": column("run_id", pooled),
        "question_key": column("question__key", ""),
        "scenario": _scenario_label(sid, variant, scenarios),
        "domain": sid.map(scenarios["domain_id"]).map(look["domains"]),
        "choice_count": 0,
        "action": sid.map(scenarios["action"]).fillna(""),
        "qualified_actor": qualified.map(look["actors"]).fillna("") if qualified is not None else "",
        "opposing_actor": "",
        "repeat": column("repeat", pooled),
    })
    if "question__language" in frame:
        out["language"] = frame["question__language"].fillna("")
    if "question__cfpd__actor_a_id" in frame:
        a, b = frame["question__cfpd__actor_a_id"], frame["question__cfpd__actor_b_id"]
        out["opposing_actor"] = b.where(a == qualified, a).map(look["actors"]).fillna("")
    _add_outcomes(out, frame, look)
    return out


def answer_frames(filters: AnalysisFilter = AnalysisFilter(), chunk: int = 100_000):
    """The tidy table one row per answer (with question_key, run, repeat, opposing actor,
    code and its source), in chunks: for the CSV and Parquet downloads."""
    keys = ["pk", "model_id", "run_id", "repeat", "question__key", "question__cfpd__scenario_id", "question__cfpd__variant",
            "question__cfpd__qualified_actor_id", "question__cfpd__actor_a_id", "question__cfpd__actor_b_id", "code", "code_source",
            "status"]
    responses = filters.responses().exclude(status__in=NOT_ANSWERED)
    look = _lookups(list(responses.values_list("question__cfpd__scenario_id", flat=True).distinct().order_by()))
    last = 0
    while True:
        rows = list(responses.filter(pk__gt=last).order_by("pk").values_list(*keys)[:chunk])
        if not rows:
            return
        last = rows[-1][0]
        frame = pd.DataFrame.from_records(rows, columns=keys)
        yield _tidy_frame(frame, look).assign(code=frame["code"], code_source=frame["code_source"])


def tidy_counts(filters: AnalysisFilter = AnalysisFilter(), *, by_repeat: bool = False,
                by_dyad: bool = False) -> pd.DataFrame:
    """The weighted tidy table (the metrics' columns plus `n`). `by_repeat` keeps run and
    repeat apart (repeat-level figures, entropy); `by_dyad` keeps the opposing actor
    (the dyad heatmap). Without them those columns hold 0 / "" and rows are pooled."""
    return tidy_with_categories(filters, by_repeat=by_repeat, by_dyad=by_dyad).table


def offered_categories(look: dict) -> dict[tuple[str, int], list[str]]:
    """{(domain, choice_count): categories} the scenarios' options offer: every metric
    spreads a scenario's rates over these, whichever categories a model happened to pick."""
    scenarios = look["scenarios"]
    domain_of = dict(zip(scenarios["scenario_id"], scenarios["domain_id"].map(look["domains"])))
    forms: dict[tuple, set] = {}
    for (scenario_id, variant, letter), category in look["letter_category"].items():
        forms.setdefault((scenario_id, variant), set()).add(category)
    sets: dict[tuple[str, int], set] = {}
    for (scenario_id, _), categories in forms.items():
        sets.setdefault((domain_of[scenario_id], len(categories)), set()).update(categories)
    return {key: sorted(value) for key, value in sets.items()}


@dataclass
class Tidy:
    """A weighted tidy table, the categories its scenarios offer, and its coverage."""

    table: pd.DataFrame
    categories: dict
    coverage: dict


def _empty_table() -> pd.DataFrame:
    return pd.DataFrame({column: pd.Series(dtype="int64" if column in ("run", "choice_count", "repeat", "n")
                                           else object) for column in [*COLUMNS, "n"]})


def tidy_with_categories(filters: AnalysisFilter = AnalysisFilter(), *, by_repeat: bool = False,
                         by_dyad: bool = False, by_actor: bool = True, by_language: bool = False) -> Tidy:
    """`tidy_counts` with the `offered_categories` of its scenarios and its `coverage`.
    `by_actor=False` leaves qualified_actor empty and pools over it: fewer rows, for the
    panels that do not look at countries. `by_language` adds a `language` column (the
    question's BCP 47 code) and keeps languages apart: without it a run asked in several
    languages is pooled over them (narrow with `AnalysisFilter.languages` to see one)."""
    actor = ["question__cfpd__qualified_actor_id"] if by_actor or by_dyad else []
    extra = actor + (["run_id", "repeat"] if by_repeat else []) + (
        ["question__cfpd__actor_a_id", "question__cfpd__actor_b_id"] if by_dyad else []) + (
        ["question__language"] if by_language else [])
    frame = _grouped(filters, extra)
    cover = coverage_of(frame)
    frame = frame[~frame["status"].isin(NOT_ANSWERED)].reset_index(drop=True)
    if frame.empty:
        empty = _empty_table()
        return Tidy(empty.assign(language=pd.Series(dtype=object)) if by_language else empty, {}, cover)
    look = _lookups(frame["question__cfpd__scenario_id"].unique().tolist())
    out = _tidy_frame(frame, look)
    out["n"] = frame["n"].astype("int64")
    keys = list(COLUMNS) + (["language"] if by_language else [])
    tidy = out.groupby(keys, dropna=False, sort=False, as_index=False)["n"].sum()
    return Tidy(tidy, offered_categories(look), cover)


def position_answers(filters: AnalysisFilter = AnalysisFilter()) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The answers that chose an option in the runs of the filter that shuffled or balanced
    the options (`Run.permute_options`, `Run.balanced_options`: in any other run every
    answer was shown the written order, so content and position cannot be told apart),
    counted per (model, scenario form, order shown, option chosen) in the database, for the
    position-bias panel (`metrics.position`): columns model, domain, choice_count, scenario,
    order (canonical indexes as lettered), chosen (canonical index) and n; with each
    scenario's option categories in canonical order. Without such a run nothing is read
    (at the paper's scale a scan of every answer would cost the dashboard seconds)."""
    columns = ["model", "domain", "choice_count", "scenario", "order", "chosen", "n"]
    varied = Run.objects.filter(Q(permute_options=True) | Q(balanced_options=True))
    if filters.runs:
        varied = varied.filter(pk__in=filters.runs)
    runs = tuple(varied.values_list("pk", flat=True))
    if not runs:
        return pd.DataFrame(columns=columns), {}
    keys = ["model_id", "question__cfpd__scenario_id", "question__cfpd__variant", "option_order", "code"]
    counted = list(replace(filters, runs=runs).responses().filter(code__in=list(LETTERS)).values(*keys)
                   .annotate(n=Count("id")).order_by().values_list(*keys, "n"))
    if not counted:
        return pd.DataFrame(columns=columns), {}
    frame = pd.DataFrame.from_records(counted, columns=[*keys, "n"])
    look = _lookups(frame["question__cfpd__scenario_id"].unique().tolist())
    scenarios = look["scenarios"].set_index("scenario_id")
    sid, variant = frame["question__cfpd__scenario_id"], frame["question__cfpd__variant"]
    labels = _scenario_label(sid, variant, scenarios)
    options: dict[str, list[str]] = {}
    for (scenario_id, form, letter), category in sorted(look["letter_category"].items()):
        options.setdefault((scenario_id, form), []).append(category)
    option_categories = {label: options.get((s, v), []) for label, s, v in zip(labels, sid, variant)}
    counts = [len(option_categories[label]) for label in labels]
    orders = [tuple(order) if order else tuple(range(count)) for order, count in zip(frame["option_order"], counts)]
    out = pd.DataFrame({"model": frame["model_id"].map(look["models"]),
                        "domain": sid.map(scenarios["domain_id"]).map(look["domains"]), "choice_count": counts,
                        "scenario": labels, "order": orders,
                        "chosen": [LETTERS.index(code) for code in frame["code"]], "n": frame["n"].astype("int64")})
    # An order that does not fit its question's options (a hand-made row) cannot say where the choice was.
    fits = [sorted(order) == list(range(count)) and chosen < count
            for order, count, chosen in zip(out["order"], out["choice_count"], out["chosen"])]
    out = out[fits].groupby(columns[:-1], sort=False, as_index=False)["n"].sum()
    return out, option_categories


def coverage(filters: AnalysisFilter = AnalysisFilter()) -> dict:
    """How many answers are coded, with reviewers, missing or not given yet."""
    return coverage_of(_grouped(filters, []))


@dataclass
class People:
    """People's kept answers to CFPD questions in the filter, one row per answer (columns
    people, respondent, scenario, domain, choice_count, category, qualified_actor), and the
    panels they come from (`analysis_app.people`: failed attention checks already left out)."""

    answers: pd.DataFrame
    groups: list


PEOPLE_COLUMNS = ["people", "respondent", "scenario", "domain", "choice_count", "category", "qualified_actor"]


def people_answers(filters: AnalysisFilter = AnalysisFilter()) -> People:
    """The answers of panels of people, through the neutral hook (this family does not know the
    room that keeps them). The filter's domains, choice counts and actors narrow them; its runs
    narrow them to the panels of those runs' benchmarks; models, conditions and launches are
    the models' and leave people's answers as they are."""
    empty = People(pd.DataFrame({c: pd.Series(dtype=object) for c in PEOPLE_COLUMNS}), [])
    benchmarks = (list(Run.objects.filter(pk__in=filters.runs).values_list("benchmark_id", flat=True).distinct())
                  if filters.runs else None)
    groups = people.groups(benchmarks)
    if not groups:
        return empty
    answered = people.answers(group_keys=[g.key for g in groups])
    questions = replace(filters, runs=(), models=(), conditions=(), superseded=()).narrow(
        ScenarioQuestion.objects.filter(question_id__in={a.question_id for a in answered}, question__choice_count__gt=0),
        question="question__", scenario="")
    keys = ["question_id", "scenario_id", "variant", "qualified_actor_id"]
    known = {row[0]: row[1:] for row in questions.values_list(*keys)}
    answered = [a for a in answered if a.question_id in known and a.code in LETTERS]
    if not answered:
        return empty
    frame = pd.DataFrame.from_records(
        [(a.group, a.respondent, *known[a.question_id], a.code) for a in answered],
        columns=["model_id", "respondent", "question__cfpd__scenario_id", "question__cfpd__variant",
                 "question__cfpd__qualified_actor_id", "code"]).assign(code_source="", status="done")
    look = _lookups(frame["question__cfpd__scenario_id"].unique().tolist())
    labels = {g.key: g.label for g in groups}
    look["models"] = labels  # the panel's label in the model column: "People: …", never a model's name
    out = _tidy_frame(frame, look)
    out = out[out["outcome"] == "answer"]
    out["people"] = out["model"]
    out["respondent"] = frame.loc[out.index, "respondent"]
    # The label counts the respondents whose answers are in the filter.
    shown = out.groupby("people")["respondent"].nunique().to_dict()
    relabel = {g.label: replace(g, respondents=shown.get(g.label, 0)) for g in groups}
    out["people"] = out["people"].map(lambda label: relabel[label].label)
    return People(out[PEOPLE_COLUMNS].reset_index(drop=True),
                  [relabel[g.label] for g in groups if shown.get(g.label)])
