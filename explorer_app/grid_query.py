"""What the grid and the comparison of two runs read from the database, with their query
parameters read once (`kit.params`: a bad value is a BadParameter naming the field,
answered with a 400).

The grid counts in the database: one page of rows (questions, or question × condition)
and one page of columns (models) is picked first, then the answers of those rows and
models are grouped by (row, model, code, status) — a few thousand groups for a page,
whatever the size of the runs. The comparison matches and counts the two runs' answers in
the database too (`compare_query`: the rule of `comparison.match` as one self-join) and
reads the output text only for the page of changed answers shown."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.db.models import Count, Min
from django.urls import NoReverseMatch, reverse

from analysis_app import people
from analysis_app.params import check_known
from benchmarks_app.models import Condition, Question
from kit import params
from kit.params import BadParameter
from runs_app.models import LLMModel, Response, Run

from . import compare_query, comparison, filter_params, grid, grid_rows, readers
from .filter_params import CODES, STATUSES  # noqa: F401  (the pages' and API's choices)

ROWS_PER_PAGE = 50
MODELS_PER_PAGE = 30
CHANGED_PER_PAGE = 50
MAX_RUNS = 20
BY_QUESTION, BY_CONDITION = "question", "condition"
SHOW, HIDE = "show", "hide"  # people's columns (panels of people, issue 40)


def url_or_blank(name: str, *args) -> str:
    """The URL of a page another part of the app provides (the answers' pages), or "" while
    it does not exist yet: the grid still shows, without that link."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return ""


def answer_url(answer_id: int) -> str:
    return url_or_blank("answer-detail", answer_id)


def answers_url(**filters) -> str:
    """The answers list filtered (run=…&model=…&question=…&condition=…), or ""."""
    base = url_or_blank("answer-list")
    if not base:
        return ""
    query = [(key, value) for key, values in filters.items()
             for value in (values if isinstance(values, (list, tuple)) else [values]) if value not in (None, "")]
    return f"{base}?{urlencode(query)}"


# --- the grid ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GridFilter:
    runs: tuple[int, ...]
    models: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    rows: str = ""  # "" → by condition when the answers have several conditions
    page: int = 1
    model_page: int = 1
    people: str = SHOW  # the benchmark's panels of people as columns after the models, or hidden

    def query(self, **changed) -> str:
        """The filter as a query string, with `changed` values (for pager links)."""
        values = {"run": self.runs, "model": self.models, "condition": self.conditions, "status": self.statuses,
                  "code": self.codes, "rows": self.rows, "page": self.page, "model_page": self.model_page,
                  "people": "" if self.people == SHOW else self.people}
        values.update(changed)
        pairs = [(key, v) for key, value in values.items()
                 for v in (value if isinstance(value, tuple) else (value,)) if v not in ("", None)
                 and not (key in ("page", "model_page") and v == 1)]
        return urlencode(pairs)


def read_grid_filter(query) -> GridFilter:
    runs = params.integers(query, "run")
    if not runs:
        raise BadParameter("run", "is needed: pick a run (run=12), or several runs of one benchmark")
    if len(runs) > MAX_RUNS:
        raise BadParameter("run", f"at most {MAX_RUNS} runs at once; {len(runs)} given")
    found = GridFilter(
        **filter_params.read_shared(query),  # runs, models, conditions, statuses, codes
        rows=params.choice(query, "rows", (BY_QUESTION, BY_CONDITION)),
        page=params.integer(query, "page", default=1, minimum=1, maximum=10**6),
        model_page=params.integer(query, "model_page", default=1, minimum=1, maximum=10**6),
        people=params.choice(query, "people", (SHOW, HIDE), default=SHOW))
    return found


def one_benchmark(run_ids) -> tuple[list[Run], object]:
    """The runs (in id order) and their one benchmark; a BadParameter when they are of
    several benchmarks or one is a judge run (its units are no answers)."""
    runs = list(Run.objects.filter(pk__in=run_ids).select_related("benchmark").order_by("pk"))
    judges = [r.pk for r in runs if r.kind == Run.Kind.JUDGE]
    if judges:
        raise BadParameter("run", f"{', '.join(map(str, judges))}: a judge run's units are readings of other "
                                  "answers, not answers; pick the run it judged")
    benchmarks = {r.benchmark.name for r in runs}
    if len(benchmarks) > 1:
        listed = "; ".join(f"run {r.pk}: {r.benchmark.name}" for r in runs)
        raise BadParameter("run", f"are of different benchmarks ({listed}); a grid lays out one benchmark's "
                                  "questions, so pick runs of one benchmark")
    return runs, runs[0].benchmark


def filtered_answers(f: GridFilter):
    return filter_params.apply_shared(Response.objects.answers(), f)  # f.runs is never empty


@dataclass
class GridRow:
    question_id: int
    key: str
    text: str
    condition_id: int | None
    condition: str
    cells: list = field(default_factory=list)  # one per model shown: (model, Cell | None, url)
    people_cells: list = field(default_factory=list)  # one per panel of people shown: (PeopleGroup, Cell | None)


@dataclass
class Grid:
    runs: list
    benchmark: object
    by: str
    models: list  # LLMModel of this column page
    rows: list[GridRow]
    total_rows: int
    total_models: int
    page: int
    pages: int
    model_page: int
    model_pages: int
    labels: list = field(default_factory=list)
    people: list = field(default_factory=list)  # analysis_app.people.PeopleGroup: a column each, after the models

    @property
    def legend(self):
        return grid.legend(self.labels)


def people_cells(f: GridFilter, benchmark, question_ids) -> tuple[list, dict]:
    """The benchmark's panels of people ([PeopleGroup]) and their cells {(question id, group
    key): Cell} over the questions of the page: their kept answers (failed attention checks
    left out, `analysis_app.people`), counted as a model's repeats are. Hidden (`people=hide`),
    or when the status filter leaves out answered ones, none. A code filter narrows them as
    it narrows the models'; they have no condition, so a row of any condition shows them."""
    if f.people == HIDE or (f.statuses and Response.Status.DONE not in f.statuses):
        return [], {}
    groups = people.groups([benchmark.pk])
    if not groups:
        return [], {}
    counted = Counter((a.question_id, a.group, a.code) for a in people.answers(question_ids, [g.key for g in groups])
                      if not f.codes or a.code in f.codes)
    return groups, grid.cells(grid.CountRow(question, group, code, Response.Status.DONE, n, 0)
                              for (question, group, code), n in counted.items())


def build_grid(f: GridFilter) -> Grid:
    runs, benchmark = one_benchmark(f.runs)
    answers = filtered_answers(f)
    # The columns and every row's key in order, by index probes (`grid_rows`), then the
    # page is cut from them here (1,000 questions are 1,000 small tuples).
    model_ids = (set(LLMModel.objects.filter(name__in=f.models).values_list("pk", flat=True))
                 if f.models else None)
    condition_ids = (set(Condition.objects.filter(name__in=f.conditions).values_list("pk", flat=True))
                     if f.conditions else None)
    pairs = grid_rows.pairs([r.pk for r in runs], model_ids, condition_ids, f.codes, f.statuses)
    by = f.rows or (BY_CONDITION if len({c for _, c in pairs}) > 1 else BY_QUESTION)
    all_models = list(LLMModel.objects.filter(pk__in={m for m, _ in pairs}).order_by("name"))
    model_pages = grid.pages(len(all_models), MODELS_PER_PAGE)
    model_page = min(f.model_page, model_pages)
    models = all_models[(model_page - 1) * MODELS_PER_PAGE: model_page * MODELS_PER_PAGE]

    row_fields = ["question_id", "condition_id"] if by == BY_CONDITION else ["question_id"]
    every_row = grid_rows.kept_rows(benchmark.pk, [r.pk for r in runs], pairs, by == BY_CONDITION, model_ids,
                                    condition_ids, f.codes, f.statuses)
    total_rows = len(every_row)
    pages = grid.pages(total_rows, ROWS_PER_PAGE)
    page = min(f.page, pages)
    start = (page - 1) * ROWS_PER_PAGE
    page_rows = every_row[start:start + ROWS_PER_PAGE]

    question_ids = sorted({r[0] for r in page_rows})
    questions = {q.pk: q for q in Question.objects.filter(pk__in=question_ids).only("key", "text")}
    conditions = {c.pk: c.name for c in Condition.objects.all()}
    counts = (answers.filter(question_id__in=question_ids, model_id__in=[m.pk for m in models])
              .values(*row_fields, "model_id", "code", "status").annotate(n=Count("id"), first=Min("id")).order_by())
    cells = grid.cells(grid.CountRow(tuple(c[k] for k in row_fields), c["model_id"], c["code"], c["status"],
                                     c["n"], c["first"]) for c in counts)
    groups, theirs = people_cells(f, benchmark, question_ids)
    rows, labels = [], set()
    run_filter = list(f.runs)
    for key in page_rows:
        question = questions[key[0]]
        condition = conditions.get(key[1], "") if by == BY_CONDITION else ""
        row = GridRow(question.pk, question.key, question.text, key[1] if by == BY_CONDITION else None, condition)
        for model in models:
            cell = cells.get((key, model.pk))
            url = ""
            if cell is not None:
                labels.update(cell.counts)
                url = (answer_url(cell.answer_id) if cell.answer_id is not None else answers_url(
                    run=run_filter, model=model.name, question=question.pk,
                    condition=condition or list(f.conditions), status=list(f.statuses), code=list(f.codes)))
            row.cells.append((model, cell, url))
        for group in groups:
            cell = theirs.get((question.pk, group.key))
            if cell is not None:
                labels.update(cell.counts)
            row.people_cells.append((group, cell))
        rows.append(row)
    return Grid(runs=runs, benchmark=benchmark, by=by, models=models, rows=rows, total_rows=total_rows,
                total_models=len(all_models), page=page, pages=pages, model_page=model_page,
                model_pages=model_pages, labels=sorted(labels), people=groups)


def readable_runs(user, limit: int = 300):
    """Runs of answers the user may read, newest first (the pickers' choices)."""
    allowed = readers.readable_benchmarks(user)
    runs = Run.objects.of_answers().select_related("benchmark").order_by("-pk")
    if allowed != readers.ALL:
        runs = runs.filter(benchmark_id__in=allowed or [])
    return list(runs[:limit])


# --- two runs compared ---------------------------------------------------------------------

@dataclass(frozen=True)
class CompareFilter:
    a: int
    b: int
    ignore_condition: bool = False
    models: tuple[str, ...] = ()
    page: int = 1

    def query(self, **changed) -> str:
        values = {"a": self.a, "b": self.b, "ignore_condition": "1" if self.ignore_condition else "",
                  "model": self.models, "page": self.page}
        values.update(changed)
        pairs = [(key, v) for key, value in values.items()
                 for v in (value if isinstance(value, tuple) else (value,)) if v not in ("", None)
                 and not (key == "page" and v == 1)]
        return urlencode(pairs)


def read_compare_filter(query) -> CompareFilter:
    a = params.integer(query, "a")
    b = params.integer(query, "b")
    if a is None or b is None:
        raise BadParameter("a" if a is None else "b", "is needed: pick two runs (a=12&b=15)")
    if a == b:
        raise BadParameter("b", f"is run {a} again: pick another run to compare it with")
    found = CompareFilter(a=a, b=b, ignore_condition=params.flag(query, "ignore_condition"),
                          models=params.texts(query, "model", max_length=80),
                          page=params.integer(query, "page", default=1, minimum=1, maximum=10**6))
    for name, run in (("a", a), ("b", b)):
        try:
            check_known([run], ())
        except BadParameter as error:
            raise BadParameter(name, error.reason) from None
    check_known((), found.models)
    return found


@dataclass
class Compared:
    run_a: Run
    run_b: Run
    benchmark: object
    ignore_condition: bool
    matched: int
    only_a: int
    only_b: int
    ambiguous: int
    conditions_a: list[str]
    conditions_b: list[str]
    changes: list  # (from, to, n)
    by_model: list  # (model name, matched, changed, [(from, to, n)])
    by_question: list  # (question key, question id, matched, changed, [(from, to, n)]) most changed first
    rates: list
    changed: list  # this page's changed pairs: dicts for the page and the API
    changed_total: int
    page: int
    pages: int
    codes: list = field(default_factory=list)  # the codes of the transition table's rows and columns
    matrix: list = field(default_factory=list)  # [(code before, [n per code after])]


def _changes_of(counts: Counter) -> tuple[int, int, list]:
    """(matched, changed, [(from, to, n)] of the changes) from a Counter of transitions."""
    changes = Counter({change: n for change, n in counts.items() if change[0] != change[1]})
    return sum(counts.values()), sum(changes.values()), comparison.sorted_changes(changes)


def _side(response) -> dict:
    return {"id": response.pk, "condition": response.condition.name, "code": response.code,
            "code_source": response.code_source, "status": response.status, "output": response.raw_output,
            "url": answer_url(response.pk)}


def compare(f: CompareFilter, by_question_limit: int = 50) -> Compared:
    """Matched and counted in the database (`compare_query`, the rule of `comparison.match`);
    the rates and their intervals from the counts (`comparison.rates_from`)."""
    runs = {r.pk: r for r in Run.objects.filter(pk__in=[f.a, f.b]).select_related("benchmark")}
    run_a, run_b = runs[f.a], runs[f.b]
    for name, run in (("a", run_a), ("b", run_b)):
        if run.kind == Run.Kind.JUDGE:
            raise BadParameter(name, f"run {run.pk} is a judge run: its units are readings of other answers, "
                                     "not answers")
    if run_a.benchmark_id != run_b.benchmark_id:
        raise BadParameter("b", f"run {run_b.pk} is of benchmark {run_b.benchmark.name}, run {run_a.pk} of "
                                f"{run_a.benchmark.name}: only runs of one benchmark ask the same questions, "
                                "so pick two runs of one benchmark")
    model_ids = sorted(LLMModel.objects.filter(name__in=f.models).values_list("pk", flat=True)) if f.models else []
    counted = compare_query.count_pairs(f.a, f.b, model_ids, f.ignore_condition)
    model_names = dict(LLMModel.objects.filter(pk__in=list(counted.by_model)).values_list("pk", "name"))
    by_model = sorted(((model_names[model], *_changes_of(counts)) for model, counts in counted.by_model.items()),
                      key=lambda row: row[0])
    questions = [(q, *_changes_of(counts)) for q, counts in counted.by_question.items()]
    most_changed = sorted((row for row in questions if row[2]), key=lambda row: (-row[2], row[0]))[:by_question_limit]
    keys = dict(Question.objects.filter(pk__in=[row[0] for row in most_changed]).values_list("pk", "key"))
    by_question = [(keys[q], q, matched, changed, listed) for q, matched, changed, listed in most_changed]

    changed_total = counted.changed
    pages = grid.pages(changed_total, CHANGED_PER_PAGE)
    page = min(f.page, pages)
    shown = compare_query.changed_pairs(f.a, f.b, model_ids, f.ignore_condition,
                                        offset=(page - 1) * CHANGED_PER_PAGE, limit=CHANGED_PER_PAGE)
    details = {r.pk: r for r in Response.objects.filter(pk__in=[i for pair in shown for i in pair])
               .select_related("question", "model", "condition").only(
                   "raw_output", "status", "error_kind", "question__key", "question__text", "model__name",
                   "condition__name", "repeat", "code", "code_source")}
    changed_rows = []
    for a_id, b_id in shown:
        a, b = details[a_id], details[b_id]
        sides = [_side(a), _side(b)]
        changed_rows.append({"question_id": a.question_id, "question": a.question.key,
                             "question_text": a.question.text, "model": a.model.name, "repeat": a.repeat,
                             "a": sides[0], "b": sides[1], "sides": sides})

    table = counted.transitions
    codes = sorted({a for a, _ in table} | {b for _, b in table}, key=comparison.code_rank)
    matrix = [(before, [table.get((before, after), 0) for after in codes]) for before in codes]
    condition_names = dict(Condition.objects.values_list("pk", "name"))
    conditions = compare_query.conditions_of([f.a, f.b])
    return Compared(run_a=run_a, run_b=run_b, benchmark=run_a.benchmark, ignore_condition=f.ignore_condition,
                    matched=counted.matched, only_a=counted.only_a, only_b=counted.only_b,
                    ambiguous=counted.ambiguous,
                    conditions_a=sorted(condition_names[c] for c in conditions[f.a]),
                    conditions_b=sorted(condition_names[c] for c in conditions[f.b]),
                    changes=comparison.sorted_changes(Counter({k: n for k, n in table.items() if k[0] != k[1]})),
                    by_model=by_model, by_question=by_question, rates=comparison.rates_from(table),
                    changed=changed_rows, changed_total=changed_total, page=page, pages=pages, codes=codes,
                    matrix=matrix)
