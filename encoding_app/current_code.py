"""The one writer of an answer's current code (issue 39): which `Code` row is current
(`Code.is_current`) and its copy on the answer (`Response.code`, `Response.code_source`),
kept in step here and nowhere else (`tests/house/test_single_writers.py` fails when a
second writer appears).

- `set_code` moves one answer's current code: the encoder's path for an answer already
  coded or queued, a reviewer's or an adjudicator's code, a promoted judge's, a demoted
  judge's taken back, an undo (the code it superseded current again), a state written
  without a code (unresolved, missing).
- `set_codes` writes many answers' first codes at once, for the encoder's bulk path and
  the synthetic loader: the new codes in one insert, the answers' copies in one update
  per value.
- `codes_on_the_way` writes the first codes of answers about to be written by the run
  engine: the copies on the rows, for the engine's own statement to write, then the new
  codes in one insert (`runs_app.signals.answers_writing`).
- `record_code` keeps a code that is not current (a blind second coding, an audit), so
  that every `Code` row is written here.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import QuerySet

from benchmarks_app import data_version
from benchmarks_app.id_filter import id_filter
from runs_app import infra
from runs_app.models import Response

from .models import Code

UNRESOLVED, MISSING = "unresolved", "missing"

_INSERT_BATCH = 2000  # rows per INSERT (SQLite's variables: 999 before 3.32; Django cuts further if needed)
_UPDATE_CHUNK = 5000  # ids per `pk__in` of an UPDATE


def set_code(response_id: int, new: Code | None, previous: Code | None, state: str = "") -> None:
    """Make `new` the current code of the answer (None: no code, and `state` says why:
    unresolved or missing); `previous`, the code current until now, stops being current.
    A `new` not saved yet is saved as current; a saved one (an undone code's predecessor)
    becomes current again. The copy on the answer follows, so analysis reads states
    without joins."""
    if previous is not None:
        Code.objects.filter(pk=previous.pk).update(is_current=False)
        previous.is_current = False
    if new is not None:
        new.is_current = True
        if new.pk is None:
            new.save()
        else:
            Code.objects.filter(pk=new.pk).update(is_current=True)
    Response.objects.filter(pk=response_id).update(code=new.code if new else "",
                                                   code_source=new.source if new else state)
    data_version.bump()


def codes_on_the_way(rows: list[Response], new_codes: dict[int, Code]):
    """First codes of answers on their way to the database (`new_codes`, by answer id; none
    has a code or a review item yet): each copy set on its row, which the run engine's
    statement writes with the answer; the function the engine calls once the rows are
    written, with the ids it wrote, that inserts their codes as current in a savepoint and
    moves the data version. Should the insert fail, the copies come off the rows written
    and the answers are left to be coded after the write (`encode_answers`); the function
    returns the ids whose codes stand (none then). A failure of the database itself is
    raised: the engine's write is tried again whole."""
    for row in rows:
        code = new_codes.get(row.pk)
        if code is not None:
            row.code, row.code_source = code.code, code.source

    def write(written: set[int]) -> set[int]:
        chosen = [code for pk, code in new_codes.items() if pk in written]
        for code in chosen:
            code.is_current = True
        try:
            with transaction.atomic():
                Code.objects.bulk_create(chosen, batch_size=_INSERT_BATCH)
        except Exception as exc:
            if infra.service_of(exc) is not None:
                raise
            logging.getLogger(__name__).exception("the codes of %d answers could not be written on their way; they "
                                                  "are coded after the write", len(chosen))
            Response.objects.filter(id_filter([code.response_id for code in chosen])).update(code="", code_source="")
            return set()
        data_version.bump()
        return {code.response_id for code in chosen}

    return write


def record_code(code: Code) -> None:
    """Keep a code beside the current one without making it current (a blind second
    coding or an audit)."""
    code.is_current = False
    code.save()


def set_codes(new_codes: list[Code], states: dict[str, list[int]] | None = None,
              where: dict[tuple[str, str], QuerySet] | None = None) -> None:
    """First codes of many answers that have none yet: `new_codes` inserted as current in
    one statement, each answer's copy in one update per (code, source) value; `states`:
    answers left without a code ("missing", "unresolved") by the state; `where`: answers
    chosen by a query rather than by id, (code, source) -> queryset (the synthetic
    loader's millions of rows, which never pass through Python)."""
    for code in new_codes:
        code.is_current = True
    Code.objects.bulk_create(new_codes, batch_size=_INSERT_BATCH)
    by_value: dict[tuple[str, str], list[int]] = {}
    for code in new_codes:
        by_value.setdefault((code.code, code.source), []).append(code.response_id)
    for state, pks in (states or {}).items():
        by_value[("", state)] = pks
    for (code, source), pks in by_value.items():
        for start in range(0, len(pks), _UPDATE_CHUNK):
            Response.objects.filter(id_filter(pks[start:start + _UPDATE_CHUNK])).update(code=code, code_source=source)
    for (code, source), answers in (where or {}).items():
        answers.update(code=code, code_source=source)
    if by_value or where:
        data_version.bump()
