"""One answer's page (/answers/<id>/) and the answers list (/answers/, its CSV with
?format=csv). Readers as in `readers`: analysts and operators every benchmark, reviewers
the benchmarks they code, others nothing; a bad filter is the page with its message and
status 400."""

from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.shortcuts import render

from benchmarks_app import families
from benchmarks_app.models import Condition
from kit.csv_safety import SafeWriter
from kit.params import BadParameter
from runs_app.models import LLMModel, Response

from . import answer_detail, answer_list, answer_query, people_rows, readers
from .grid_query import readable_runs

LABELS = {"q": "Search", "search_in": "Search in", "run": "Runs", "model": "Models", "condition": "Conditions", "status": "Status",
          "code": "Code", "source": "Code source", "question": "question", "sort": "Sort", "cursor": "page",
          "people": "People"}


def check_reader(user):
    if not readers.is_reader(user):
        raise PermissionDenied("Answers are read by analysts, operators and, for the benchmarks they code, "
                               "reviewers.")


def answer_page(request, pk):
    check_reader(request.user)
    response = answer_detail.readable_answer(request.user, pk)
    return render(request, "explorer_app/answer_detail.html",
                  {"a": answer_detail.describe(response, request.user), "answer": response})


def _message(error: BadParameter) -> str:
    label = LABELS.get(error.field)
    return f"{error} (the {label} box)" if label else str(error)


def _choices(request):
    query = request.GET
    return {"runs": readable_runs(request.user), "people_choice": query.get("people", ""),
            "model_names": list(LLMModel.objects.order_by("name").values_list("name", flat=True)),
            "condition_names": list(Condition.objects.values_list("name", flat=True)),
            "statuses": Response.Status.choices, "codes": answer_list.CODES,
            "sources": answer_list.CODE_SOURCES, "sorts": list(answer_query.SORTS.values()),
            "family_filters": [{"name": f.name, "label": f.label, "choices": f.choices(),
                                "selected": query.get(f.name, "")} for f in families.coding_filters()],
            "chosen": {key: set(query.getlist(key)) for key in ("run", "model", "condition", "status", "code",
                                                                 "source")},
            "search": query.get("q", ""), "search_in": query.get("search_in", "") or answer_list.SEARCH_IN[0],
            "sort": query.get("sort", "") or answer_query.DEFAULT_SORT}


class _Echo:
    def write(self, value):
        return value


def _csv(f, user):
    writer = SafeWriter(_Echo())

    columns = answer_list.CSV_WITH_PEOPLE if f.with_people else answer_list.CSV_COLUMNS

    def lines():
        yield writer.writerow(columns)
        for row in answer_list.csv_rows(f, user):
            yield writer.writerow([row.get(column, "") if column != "source" else "model" for column in columns])
        if f.with_people:  # after the models' rows, each labelled as people (explorer_app.people_rows)
            for row in people_rows.csv_rows(answer_list.csv_question_ids(f, user), f.codes):
                yield writer.writerow([row[column] for column in columns])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="answers.csv"'
    return response


def answers(request):
    check_reader(request.user)
    context = _choices(request)
    try:
        f = answer_list.read_filter(request.GET)
        if request.GET.get("format") == "csv":
            return _csv(f, request.user)
        shown = answer_list.page(f, request.user)
    except BadParameter as error:
        context["error"] = _message(error)
        return render(request, "explorer_app/answer_list.html", context, status=400)
    context.update(
        f=f, page=shown, rows=[answer_list.row_values(r) for r in shown.rows],
        next_page=f.query(cursor=shown.next_cursor) if shown.next_cursor else "",
        previous_page=f.query(cursor=shown.previous_cursor) if shown.previous_cursor else "",
        first_page=f.query(cursor="") if f.cursor else "",
        csv_query=f.query(cursor="", format="csv"), api_query=f.query(),
        csv_people_query=f.query(cursor="", format="csv", with_people="1"),
        people_rows=(people_rows.summary({r.question_id for r in shown.rows}, f.codes) if f.people == "show"
                     else []),
        # An empty search offers the other place to look ("blockade" is a word of questions).
        other_search=f.query(cursor="", search_in="questions" if f.search_in == "answers" else ""),
        sort_links=[(s, f.query(sort=s.key if s.key != answer_query.DEFAULT_SORT else "", cursor=""))
                    for s in answer_query.SORTS.values()],
        csv_limit=answer_list.CSV_LIMIT, page_size=answer_query.PAGE_SIZE)
    return render(request, "explorer_app/answer_list.html", context)
