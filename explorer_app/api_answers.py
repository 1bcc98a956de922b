"""The answers in the REST API: GET /api/answers/ (the list, with the page's filters,
search, sorts and keyset cursor) and GET /api/answers/<id>/ (one answer, as its page
shows it). The same readers and the same 400s as the pages."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api_schema import errors, query
from kit.params import BadParameter

from . import answer_detail, answer_list, answer_query, readers
from .api_grid import IsAnswerReader


class AnswerRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="The answer's page.")
    run = serializers.IntegerField()
    benchmark = serializers.CharField()
    question = serializers.CharField(help_text="The question's key.")
    question_id = serializers.IntegerField()
    model = serializers.CharField()
    condition = serializers.CharField()
    repeat = serializers.IntegerField()
    status = serializers.CharField()
    code = serializers.CharField(allow_blank=True, help_text="Canonical code (A … J, R, X); empty for none.")
    code_source = serializers.CharField(allow_blank=True)
    chosen_letter = serializers.CharField(allow_blank=True)
    latency_ms = serializers.IntegerField(allow_null=True)
    cost = serializers.FloatField(allow_null=True)
    cache_hit = serializers.BooleanField()
    error_kind = serializers.CharField(allow_blank=True)
    answered_at = serializers.CharField(allow_null=True)
    output = serializers.CharField(allow_blank=True, help_text="The raw output, as the model wrote it.")


class AnswerPageSerializer(serializers.Serializer):
    results = AnswerRowSerializer(many=True)
    next = serializers.CharField(allow_blank=True, help_text="The next page's URL; empty on the last page.")
    previous = serializers.CharField(allow_blank=True, help_text="The previous page's URL; empty on the first.")
    sort = serializers.CharField()


class MessageSerializer(serializers.Serializer):
    role = serializers.CharField()
    content = serializers.CharField(allow_blank=True)
    earlier = serializers.BooleanField(help_text="A turn of the earlier unit this one follows in the conversation.")


class OptionSerializer(serializers.Serializer):
    letter = serializers.CharField(help_text="The letter the model saw.")
    text = serializers.CharField()
    canonical = serializers.CharField(help_text="The letter codes use (the question's own order).")
    logprob = serializers.FloatField(allow_null=True)
    rank_score = serializers.FloatField(allow_null=True)


class SegmentSerializer(serializers.Serializer):
    text = serializers.CharField(allow_blank=True)
    mark = serializers.CharField(allow_blank=True, help_text='"", "letter" or "option".')
    letter = serializers.CharField(allow_blank=True)


class CodeSerializer(serializers.Serializer):
    code = serializers.CharField()
    shown = serializers.CharField()
    source = serializers.CharField()
    source_label = serializers.CharField()
    rule = serializers.CharField(allow_blank=True)
    confidence = serializers.FloatField(allow_null=True)
    coder = serializers.CharField(allow_blank=True)
    note = serializers.CharField(allow_blank=True)
    is_current = serializers.BooleanField()
    undone_at = serializers.CharField(allow_null=True)
    created_at = serializers.CharField()
    task = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)


class TaskSerializer(serializers.Serializer):
    purpose = serializers.CharField()
    status = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    explanation = serializers.CharField(allow_blank=True)
    done_by = serializers.CharField(allow_blank=True)
    done_at = serializers.CharField(allow_null=True)


class AnswerDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    run = serializers.IntegerField()
    benchmark = serializers.CharField()
    question = serializers.CharField()
    question_id = serializers.IntegerField()
    question_text = serializers.CharField()
    model = serializers.CharField()
    resolved_model = serializers.CharField(allow_blank=True)
    condition = serializers.CharField()
    temperature = serializers.FloatField(allow_null=True)
    params = serializers.DictField()
    repeat = serializers.IntegerField()
    status = serializers.CharField()
    options = OptionSerializer(many=True, help_text="In the order the model saw them.")
    option_order = serializers.ListField(child=serializers.IntegerField())
    messages = MessageSerializer(many=True, help_text="The messages as sent.")
    output = serializers.CharField(allow_blank=True)
    segments = SegmentSerializer(many=True, help_text="The output cut where it names an option.")
    chosen_letter = serializers.CharField(allow_blank=True)
    finish_reason = serializers.CharField(allow_blank=True)
    chart = serializers.DictField(allow_null=True, help_text="The log-probability chart (plotly JSON), or null.")
    no_chart = serializers.CharField(allow_blank=True, help_text="Why there is no chart.")
    code = serializers.CharField(allow_blank=True)
    code_source = serializers.CharField(allow_blank=True)
    codes = CodeSerializer(many=True, help_text="Every code given, oldest first.")
    tasks = TaskSerializer(many=True)
    prompt_tokens = serializers.IntegerField(allow_null=True)
    completion_tokens = serializers.IntegerField(allow_null=True)
    cost = serializers.FloatField(allow_null=True)
    latency_ms = serializers.IntegerField(allow_null=True)
    attempts = serializers.IntegerField()
    error_kind = serializers.CharField(allow_blank=True)
    error_message = serializers.CharField(allow_blank=True)
    cache_hit = serializers.BooleanField()
    answered_at = serializers.CharField(allow_null=True)
    previous = serializers.IntegerField(allow_null=True)
    follow_ups = serializers.ListField(child=serializers.IntegerField())
    links = serializers.DictField(child=serializers.CharField(allow_blank=True))
    codes_hidden = serializers.BooleanField(help_text="The codes are left out: you code this answer blind.")


def _bad(error: BadParameter):
    return ValidationError({error.field: [error.reason]})


class AnswerListView(APIView):
    permission_classes = [IsAnswerReader]

    @extend_schema(
        operation_id="answers_list",
        parameters=[
            query("q", max_length=answer_list.MAX_SEARCH,
                  description="Search the raw outputs (or, with search_in=questions, the questions): words (all of "
                              "them), \"a phrase\", -word to leave out, or. Outputs: PostgreSQL's full-text search "
                              "(English stems); on SQLite, every word contained. Questions: every word contained in "
                              "the question's text, options or key."),
            query("search_in", description="What q searches: answers (the raw outputs, the default) or questions "
                                           "(the answers to the questions whose text, options or key contain the "
                                           "words)."),
            query("run", "integer", many=True, description="Only these runs."),
            query("model", many=True, max_length=80, description="Only these models (names)."),
            query("condition", many=True, max_length=64, description="Only these conditions (names)."),
            query("status", many=True, description="Only answers in these states: "
                                                   + ", ".join(answer_list.STATUSES) + "."),
            query("code", many=True, description="Only these codes: A … J, R, X, or none (no code)."),
            query("source", many=True, description="Only codes from these sources: "
                                                   + ", ".join(answer_list.CODE_SOURCES) + "."),
            query("question", "integer", many=True, description="Only these questions (ids)."),
            query("sort", description="Order: " + ", ".join(answer_query.SORTS) + " (default newest)."),
            query("cursor", max_length=answer_query.MAX_CURSOR,
                  description="Where the page starts: the `next` or `previous` link of another page."),
        ],
        responses={200: AnswerPageSerializer, **errors(400)},
        description=f"The answers you may read, {answer_query.PAGE_SIZE} a page, with the list page's filters "
                    "(a family's own filters too, such as CFPD's domain, named as on the page), search and sorts; "
                    "pages follow one another by keyset cursors. 400: a bad or unknown value, a cursor that is "
                    "not this list's.")
    def get(self, request):
        try:
            f = answer_list.read_filter(request.query_params)
            shown = answer_list.page(f, request.user)
        except BadParameter as error:
            raise _bad(error) from None

        def link(cursor):
            return request.build_absolute_uri(f"{request.path}?{f.query(cursor=cursor)}") if cursor else ""

        rows = [{**answer_list.row_values(r), "url": answer_detail._url("answer-detail", r.id)} for r in shown.rows]
        return Response(AnswerPageSerializer({"results": rows, "next": link(shown.next_cursor),
                                              "previous": link(shown.previous_cursor),
                                              "sort": shown.sort.key}).data)


class AnswerDetailView(APIView):
    permission_classes = [IsAnswerReader]

    @extend_schema(responses={200: AnswerDetailSerializer, **errors(404)},
                   description="One answer as its page shows it: the messages as sent, the options in the order "
                               "the model saw them with their log-probabilities, the raw output and where it names "
                               "an option, every code given with its source and reason, the reviewers' tasks, "
                               "tokens, cost, latency, attempts and errors. 403: a reviewer asking for an answer "
                               "of a benchmark they do not code.")
    def get(self, request, pk):
        response = answer_detail.readable_answer(request.user, pk)
        return Response(AnswerDetailSerializer(answer_detail.describe(response, request.user)).data)
