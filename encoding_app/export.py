"""Every answer's current code as CSV, and on request every code ever given (history).

`code` is the canonical code (`A` … `J`, `R` refusal, `X` invalid: the answer chose no
option and did not refuse), or `unresolved` / `missing` where there is none; `outcome`
names it as the analysis counts it (answer, refusal, invalid, unresolved, missing), so a
spreadsheet can count invalid answers apart from refusals and missing ones.
"""

from __future__ import annotations

from collections import Counter

from kit.csv_safety import SafeWriter

from .letters import INVALID, LETTERS, REFUSAL
from .models import Code
from .reports import coded_responses

COLUMNS = ["question_key", "model", "repeat", "code", "source", "rule", "run", "outcome"]
HISTORY_COLUMNS = COLUMNS + ["coder", "note", "created_at", "current", "undone_at"]
OUTCOMES = ("answer", "refusal", "invalid", "unresolved", "missing")
CHUNK = 5000


def outcome_of(code: str) -> str:
    """answer (A … J), refusal (R), invalid (X), or the state of an answer with no code."""
    if code and code in LETTERS:
        return "answer"
    return {REFUSAL: "refusal", INVALID: "invalid", "unresolved": "unresolved"}.get(code, "missing")


def current_rows(responses=None):
    """(question_key, model, repeat, code, source, rule, run, outcome) per answer; code is
    `unresolved` or `missing` where there is none."""
    responses = responses if responses is not None else coded_responses()
    rules = dict(Code.objects.filter(is_current=True, response__in=responses).values_list("response_id", "rule")
                 .iterator(chunk_size=CHUNK))
    rows = (responses.order_by("run_id", "question__key", "model__name", "repeat")
            .values_list("pk", "question__key", "model__name", "repeat", "code", "code_source", "run_id"))
    for pk, key, model, repeat, code, source, run in rows.iterator(chunk_size=CHUNK):
        if not code:  # the response's code_source says why: unresolved, or missing
            code, source = ("unresolved" if source == "unresolved" else "missing"), ""
        yield [key, model, repeat, code, source, rules.get(pk, ""), run, outcome_of(code)]


def history_rows(responses=None):
    """Every code given (undone ones included), then one row per answer that never had one."""
    responses = responses if responses is not None else coded_responses()
    codes = (Code.objects.filter(response__in=responses)
             .order_by("response__run_id", "response__question__key", "response__model__name", "response__repeat",
                       "created_at", "id")
             .values_list("response__question__key", "response__model__name", "response__repeat", "code", "source",
                          "rule", "response__run_id", "coder__username", "note", "created_at", "is_current",
                          "undone_at"))
    for key, model, repeat, code, source, rule, run, coder, note, created, current, undone in \
            codes.iterator(chunk_size=CHUNK):
        yield [key, model, repeat, code, source, rule, run, outcome_of(code), coder or "", note, created.isoformat(),
               "yes" if current else "", undone.isoformat() if undone else ""]
    uncoded = responses.filter(codes__isnull=True)
    for row in current_rows(uncoded):
        yield row + ["", "", "", "", ""]


def write_csv(handle, history: bool = False, responses=None, outcomes: Counter | None = None) -> int:
    """Every text cell neutralised (kit.csv_safety): reviewers' notes and model names
    are free text, and analysts open this file in a spreadsheet. `outcomes`, when given,
    counts the rows by outcome."""
    writer = SafeWriter(handle)
    writer.writerow(HISTORY_COLUMNS if history else COLUMNS)
    n = 0
    outcome = COLUMNS.index("outcome")
    for row in (history_rows(responses) if history else current_rows(responses)):
        writer.writerow(row)
        if outcomes is not None:
            outcomes[row[outcome]] += 1
        n += 1
    return n


def outcome_line(outcomes: Counter) -> str:
    """'3 answer, 1 refusal, 2 invalid, 0 unresolved, 1 missing'"""
    return ", ".join(f"{outcomes.get(name, 0)} {name}" for name in OUTCOMES)
