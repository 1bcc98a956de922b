"""The answers list read from the database: its filter read once from the query string
(`kit.params`: a bad value is a BadParameter naming the field, answered with a 400),
the answers a user may read narrowed by it, searched, sorted and paged by keyset
(`answer_query`), and the CSV of the same list.

Search, in the answers (the default, `search_in=answers`): PostgreSQL's full-text search
over the raw output (English stemming, the words of `websearch_to_tsquery`: words,
"a phrase", -not, or) over the answers that have an output, served by the GIN index
explorer_app/migrations/0001 and 0003 create on the same expression and condition; on
SQLite, every word must appear in the output (case-insensitive containment). In the
questions (`search_in=questions`): the answers to the questions whose text, options or key
contain every word (case-insensitive, on both databases; -word leaves out the questions
that contain it). A word of a question (`blockade`) once found nothing, as only outputs
were searched and the page did not say so (issue 38).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from django.db import connection
import re

from django.db.models import BigIntegerField, ExpressionWrapper, F, Q, TextField, Value
from django.db.models.functions import Cast, Coalesce, Concat

from benchmarks_app import families
from benchmarks_app.models import Question
from kit import params
from kit.params import BadParameter
from encoding_app.models import ReviewTask, Source
from runs_app.models import LLMModel, Response, Run

from . import answer_query, filter_params, readers
from .filter_params import CODES, STATUSES  # noqa: F401  (the pages' and API's choices)
from .answer_query import SORTS, BadCursor

# Where a current code came from (encoding_app's sources; imports write "missing" and
# "unresolved"), or "none" for no code.
CODE_SOURCES = tuple(Source.values) + ("missing", "unresolved", "none")
SEARCH_CONFIG = "english"  # the GIN index's configuration: the query must use the same
MAX_SEARCH = 200
SEARCH_IN = ("answers", "questions")  # what the words are looked for in: outputs, or questions
CSV_LIMIT = 10_000
SPARSE = 5_000  # a search matching fewer answers is sorted after the index finds them (`few_matches`)


@dataclass(frozen=True)
class AnswerFilter:
    runs: tuple[int, ...] = ()
    models: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    code_sources: tuple[str, ...] = ()
    questions: tuple[int, ...] = ()
    family: tuple[tuple[str, str], ...] = ()  # (the family filter's parameter, its value)
    search: str = ""
    search_in: str = SEARCH_IN[0]
    sort: str = answer_query.DEFAULT_SORT
    cursor: str = ""
    people: str = "show"  # the section of panels of people's answers to the questions shown, or "hide"
    with_people: bool = False  # the CSV: people's answers to the exported answers' questions, with `source`

    def pairs(self, **changed) -> list[tuple[str, object]]:
        values = {"q": self.search, "search_in": "" if self.search_in == SEARCH_IN[0] else self.search_in,
                  "run": self.runs, "model": self.models, "condition": self.conditions,
                  "status": self.statuses, "code": self.codes, "source": self.code_sources,
                  "question": self.questions, **{name: value for name, value in self.family},
                  "sort": "" if self.sort == answer_query.DEFAULT_SORT else self.sort, "cursor": self.cursor,
                  "people": "" if self.people == "show" else self.people,
                  "with_people": "1" if self.with_people else ""}
        values.update(changed)
        return [(key, v) for key, value in values.items()
                for v in (value if isinstance(value, tuple) else (value,)) if v not in ("", None)]

    def query(self, **changed) -> str:
        """The filter as a query string, with `changed` values (the pager's and sorts' links)."""
        return urlencode(self.pairs(**changed))


def read_filter(query) -> AnswerFilter:
    """The list's filter from a query string (a QueryDict or DRF's query_params)."""
    sort = params.choice(query, "sort", tuple(SORTS), default=answer_query.DEFAULT_SORT)
    family = []
    for offered in families.coding_filters():
        value = params.text(query, offered.name, max_length=100)
        if value:
            known = {str(v) for v, _ in offered.choices()}
            if value not in known:
                raise BadParameter(offered.name, f"{value!r} is not a {offered.label.lower()} "
                                                 f"(one of {', '.join(sorted(known)) or 'none yet'})")
            family.append((offered.name, value))
    shared = filter_params.read_shared(query)  # runs, models, conditions, statuses, codes
    found = AnswerFilter(
        **shared, code_sources=params.choices(query, "source", CODE_SOURCES),
        questions=params.integers(query, "question"), family=tuple(family),
        search=params.text(query, "q", max_length=MAX_SEARCH),
        search_in=params.choice(query, "search_in", SEARCH_IN, default=SEARCH_IN[0]), sort=sort,
        cursor=params.text(query, "cursor", max_length=answer_query.MAX_CURSOR),
        people=params.choice(query, "people", ("show", "hide"), default="show"),
        with_people=params.flag(query, "with_people"))
    if found.cursor:
        try:
            answer_query.decode_cursor(found.cursor, SORTS[sort])
        except BadCursor as error:
            raise BadParameter("cursor", str(error)) from None
    return found


def searched(answers, words: str, indexed: bool = True):
    """Answers whose raw output matches `words` (see the module's docstring). Not
    `indexed` (PostgreSQL): the same match written so that the GIN index cannot serve it
    (the output concatenated with ""), for a page that reads another index in order and
    tests each answer's text (`page`, a dense search on some models)."""
    if not words:
        return answers
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        # Only answers with an output: the index's condition (a unit not answered yet has
        # none to search; "-word" alone would otherwise match every one of them).
        text = "raw_output" if indexed else Concat("raw_output", Value(""), output_field=TextField())
        return answers.exclude(raw_output="").annotate(search=SearchVector(text, config=SEARCH_CONFIG)).filter(
            search=SearchQuery(words, config=SEARCH_CONFIG, search_type="websearch"))
    for word in words.split():
        word = word.strip('"')
        if word and not word.startswith("-"):
            answers = answers.filter(raw_output__icontains=word)
    return answers


def _option_text(word: str) -> str:
    """A pattern for `word` inside an option's wording in the options' JSON (not in a key's
    name such as "category")."""
    return r'"text":\s*"[^"]*' + re.escape(word)


def question_searched(answers, words: str):
    """Answers to the questions whose text, options or key contain every word
    (case-insensitive); a word with a leading - must not appear in any of them."""
    if not words:
        return answers
    questions = Question.objects.annotate(options_text=Cast("options", TextField()))
    for word in words.split():
        word = word.strip('"')
        excluded = word.startswith("-")
        word = word.lstrip("-")
        if not word:
            continue
        found = Q(text__icontains=word) | Q(key__icontains=word) | Q(options_text__iregex=_option_text(word))
        questions = questions.exclude(found) if excluded else questions.filter(found)
    return answers.filter(question_id__in=questions.values("pk"))


def filtered(f: AnswerFilter, user, dense: bool = False):
    """The answers `user` may read that `f` picks (judge units are no answers), unsorted
    (`dense`: see `narrowed`)."""
    answers = Response.objects.answers()
    if f.runs and not Run.objects.filter(pk__in=f.runs, kind=Run.Kind.JUDGE).exists():
        # Runs named, none a judge run: their units are answers, and leaving out the judge
        # runs' (NOT EXISTS) would say nothing. PostgreSQL carries the run's id into that
        # subquery and then guesses the anti-join keeps 1 row of the run's 2.66 million:
        # it sorted them all (2.7 s a page) instead of reading them in order by an index.
        answers = Response.objects.all()
    allowed = readers.readable_benchmarks(user)
    if allowed is readers.NOTHING:
        return answers.none()
    if allowed != readers.ALL:
        answers = answers.filter(run__benchmark_id__in=sorted(allowed))
    return narrowed(answers, f, dense)


def narrowed(answers, f: AnswerFilter, dense: bool = False):
    """`answers` narrowed by every part of `f` (no reader's restriction: `filtered` adds it;
    a command's export, run by whoever runs the site, uses this alone). A search of the
    outputs on some models is found through the search's index, each answer's model a test
    of its row (`_models_fenced`), unless `dense`: then through the models' index in id
    order, each answer's text a test (the same answers, for a page of a search with
    SPARSE matches or more, which that order meets soon)."""
    if _models_fenced(f):
        # The models' ids first, so that the planner knows how many answers each has (a
        # subquery of their names planned a hash join in parallel workers, 0.25 s for a word
        # in no answer; a join on their names tested each answer's text before its model).
        ids = sorted(LLMModel.objects.filter(name__in=f.models).values_list("pk", flat=True))
        answers = filter_params.apply_shared(answers, replace(f, models=()))
        answers = answers.filter(model_id__in=ids) if dense else answers.alias(
            model_fenced=ExpressionWrapper(F("model_id") + 0, output_field=BigIntegerField())).filter(
            model_fenced__in=ids)
    else:
        answers = filter_params.apply_shared(answers, f)
    if f.code_sources:
        answers = answers.filter(filter_params.empty_or(f.code_sources, "code_source"))
    if f.questions:
        answers = answers.filter(question_id__in=f.questions)
    offered = {o.name: o for o in families.coding_filters()}
    for name, value in f.family:
        answers = answers.filter(question__in=offered[name].questions(Question.objects.all(), value))
    if f.search_in == "questions":
        return question_searched(answers, f.search)
    return searched(answers, f.search, indexed=not (dense and _models_fenced(f)))


def _models_fenced(f: AnswerFilter) -> bool:
    """Whether the filter's models are matched as `model_id + 0` (which no index serves):
    with a search of the outputs on PostgreSQL, so that the search's GIN index finds the
    answers and each one's model is a test of its row. Matched by the (model, id) index,
    PostgreSQL ANDed that index's bitmap (1.33 M entries for one model at 10.6 M answers)
    with the search's and then parsed the text of every matching answer on the pages it
    had made lossy: "merit" on one model was 1.7-2.6 s a page, 0.3 s fenced (issue 42,
    h54, docs/performance.md)."""
    return bool(f.models and f.search and f.search_in == SEARCH_IN[0] and connection.vendor == "postgresql")


# an answer not timed (pending, imported) sorts as 0 ms: fastest
SORT_VALUES = {"sort_latency": Coalesce("latency_ms", Value(0))}
ROW_FIELDS = ("id", "run_id", "question_id", "model_id", "condition_id", "repeat", "status", "raw_output", "code",
              "code_source", "chosen_letter", "latency_ms", "cost", "cache_hit", "error_kind", "answered_at",
              "question__key", "model__name", "condition__name", "run__benchmark__name")


def _sorted(answers, sort):
    if sort.field in SORT_VALUES:
        answers = answers.annotate(**{sort.field: SORT_VALUES[sort.field]})
    return answers


def _order(sort, reverse: bool, fenced: bool = False):
    """The ORDER BY of a page; `fenced` adds 0 to each key, which no index serves, so that
    PostgreSQL finds the rows first (through the search's GIN index) and sorts them,
    rather than walking the ordering index and testing every row against the search."""
    descending = sort.descending != reverse
    fields = [sort.field, "id"] if sort.field != "id" else ["id"]
    if fenced:
        return [(F(name) + 0).desc() if descending else (F(name) + 0).asc() for name in fields]
    return [f"-{name}" if descending else name for name in fields]


def few_matches(answers, f: AnswerFilter) -> bool:
    """Whether a search on PostgreSQL matches fewer than SPARSE answers (counted through the
    GIN index, stopping at SPARSE). The planner cannot tell: it guesses a word it has no
    statistics for in 0.5 % of the answers, and then walks the id index testing each
    answer's text, 2.5 s at 2.66 million answers for a word no answer has. Fewer matches
    are found through the index and sorted (`_order(fenced=True)`); more are dense enough
    (at least 1 answer in 530 at the paper's scale) that walking the order's index meets
    a page of them soon. A search of the questions is judged the same way (its matches
    found through the answers' question index). Tried at 10.6 million answers (issue 42,
    warm, load 6-7): 50,000 and 150,000 made "merit" (105,884 matches) slower (0.25 s at
    5,000; 0.48 s, 0.34 s), "recommend" (213,252) no faster, the count the cost; so 5,000."""
    if not f.search or connection.vendor != "postgresql":
        return False
    return answers.order_by().values("id")[:SPARSE].count() < SPARSE


@dataclass
class Page:
    rows: list
    sort: answer_query.Sort
    next_cursor: str = ""
    previous_cursor: str = ""
    sorts: list = field(default_factory=list)


def _value(row, sort):
    return row.sort_value


def page(f: AnswerFilter, user, size: int | None = None) -> Page:
    """One page of the list: the `size` answers after (or before) the cursor, with the
    cursors of the pages on either side ("" where there is none)."""
    size = size or answer_query.PAGE_SIZE
    sort = SORTS[f.sort]
    answers = _sorted(filtered(f, user), sort)
    fenced = few_matches(answers, f)
    if not fenced and _models_fenced(f):
        # SPARSE matches or more on the models: a page of them is met soon walking the
        # models' (model, id) index; through the search's index, a word in 46 % of the
        # answers ("b") read 4.9 M index entries for a page of one model (3.2 s).
        answers = _sorted(filtered(f, user, dense=True), sort)
    direction, reverse = answer_query.AFTER, False
    if f.cursor:
        direction, value, row_id = answer_query.decode_cursor(f.cursor, sort)
        lookup, reverse = answer_query.seek(sort, direction)
        if sort.field == "id":
            answers = answers.filter(**{f"id__{lookup}": row_id})
        else:
            answers = answers.filter(Q(**{f"{sort.field}__{lookup}": value})
                                     | Q(**{sort.field: value, f"id__{lookup}": row_id}))
    # The page's ids first, from the answers alone; then their rows with what they name.
    # One query joining the names planned badly where a small table's statistics were
    # stale (the conditions counted as 1 row: the search repeated once per condition).
    ordered = answers.order_by(*_order(sort, reverse, fenced))
    keys = (list(ordered.values_list("id", "id")[:size + 1]) if sort.field == "id"
            else list(ordered.values_list("id", sort.field)[:size + 1]))
    more = len(keys) > size
    keys = keys[:size]
    found_rows = Response.objects.select_related("question", "model", "condition", "run__benchmark").only(
        *ROW_FIELDS).in_bulk([i for i, _ in keys])
    rows = []
    for row_id, value in keys:
        if row_id in found_rows:  # (an answer deleted in between is left out)
            row = found_rows[row_id]
            setattr(row, "sort_value", value)  # the cursors' value
            rows.append(row)
    if reverse:
        rows.reverse()
    _hide_blind_codes(rows, user)
    found = Page(rows=rows, sort=sort)
    if rows:
        first, last = rows[0], rows[-1]
        # Reading forward, a row beyond the page means a next page; a cursor means rows
        # before. Reading backward (a "previous" link), the other way round.
        has_next = more if not reverse else True
        has_previous = bool(f.cursor) if not reverse else more
        if has_next:
            found.next_cursor = answer_query.encode_cursor(answer_query.AFTER, _value(last, sort), last.id)
        if has_previous:
            found.previous_cursor = answer_query.encode_cursor(answer_query.BEFORE, _value(first, sort), first.id)
    return found


def _hide_blind_codes(rows, user) -> None:
    """A reviewer coding an answer blind (a second coding or audit leased to them) sees no
    code on it here either, as on its page."""
    if not rows or readers.readable_benchmarks(user) == readers.ALL:
        return
    blind = set(ReviewTask.objects.filter(
        response_id__in=[r.id for r in rows], leased_by=user, status=ReviewTask.Status.OPEN,
        purpose__in=[ReviewTask.Purpose.SECOND, ReviewTask.Purpose.AUDIT]).values_list("response_id", flat=True))
    for row in rows:
        if row.id in blind:
            row.code, row.code_source = "", ""


def row_values(row) -> dict:
    """One answer of the list as plain values (the page, the API and the CSV)."""
    return {"id": row.id, "run": row.run_id, "benchmark": row.run.benchmark.name, "question": row.question.key,
            "question_id": row.question_id, "model": row.model.name, "condition": row.condition.name,
            "repeat": row.repeat, "status": row.status, "code": row.code, "code_source": row.code_source,
            "chosen_letter": row.chosen_letter, "latency_ms": row.latency_ms,
            "cost": float(row.cost) if row.cost is not None else None, "cache_hit": row.cache_hit,
            "error_kind": row.error_kind, "answered_at": row.answered_at.isoformat() if row.answered_at else None,
            "output": row.raw_output}


CSV_COLUMNS = ("id", "run", "benchmark", "question", "model", "condition", "repeat", "status", "code", "code_source",
               "chosen_letter", "latency_ms", "cost", "cache_hit", "error_kind", "answered_at", "output")
# With people's answers (with_people=1): which kind of answerer, and the person's number.
CSV_WITH_PEOPLE = ("source", *CSV_COLUMNS, "respondent")


def csv_rows(f: AnswerFilter, user, limit: int = CSV_LIMIT):
    """The list's rows from its cursor on, in its order, `limit` at most: pages read by
    keyset one after another (never the whole list in memory)."""
    sent = 0
    while sent < limit:
        shown = page(f, user, size=min(1000, limit - sent))
        for row in shown.rows:
            yield row_values(row)
        sent += len(shown.rows)
        if not shown.next_cursor:
            break
        f = replace(f, cursor=shown.next_cursor)


def csv_question_ids(f: AnswerFilter, user) -> list[int]:
    """The questions of the answers the CSV exports (people's answers to them join it)."""
    return list(filtered(replace(f, cursor=""), user).order_by().values_list("question_id", flat=True).distinct())
