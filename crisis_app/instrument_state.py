"""Which stored scorers failed a check, and the sentence every page shows beside their figures.

A `Scorer` row is marked (``check_failed_at``, ``failed_check``, ``check_problem``) when the
instrument behind its name fails its self-check on loading (`scorers.load`), when a
sound, checked load finds the row's stored configuration different from its own (the
stored scores came from another instrument: `scorers.stored_scorer`), or when the
metric's validation of the same configuration does not give the expected order
(`validation_record`). The first failure is kept; the mark goes only with the scores,
when they are scored again (`score_inconsistency --rescore`).

The crisis page, its CSVs, the report command and the models' profiles show the figures
of a marked scorer with `notice(row)`: they are not results.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone
from django.utils.dateformat import format as date_format

from .models import Scorer


def record_failure(name: str, check: str, problem: str) -> bool:
    """Mark the stored scorer ``name`` (if there is one) as failed by ``check``; a scorer
    already marked keeps its first failure. True when a row was marked now."""
    return bool(Scorer.objects.filter(name=name, check_failed_at__isnull=True).update(
        check_failed_at=timezone.now(), failed_check=check, check_problem=problem[:4000]))


def rescore_command(name: str) -> str:
    return f"python manage.py score_inconsistency --scorer {name} --rescore"


def notice(row: Scorer) -> str:
    """What a page says of a marked scorer's figures ("" for a sound one)."""
    if row is None or row.check_failed_at is None:
        return ""
    when = date_format(timezone.localtime(row.check_failed_at), "j M Y")
    return (f"These figures come from scorer {row.name} whose {row.get_failed_check_display() or 'check'} failed "
            f"on {when}: not results. {row.check_problem.rstrip('.')}. Once the scorer is sound, delete them and "
            f"score again: {rescore_command(row.name)}")


def notices(names) -> dict[str, str]:
    """The notice of each marked scorer among ``names``."""
    return {row.name: notice(row) for row in Scorer.objects.filter(name__in=list(names),
                                                                  check_failed_at__isnull=False)}


def version() -> tuple:
    """What moves when a scorer is marked (the headline figures are computed again)."""
    return tuple(Scorer.objects.filter(~Q(check_failed_at=None)).order_by("pk")
                 .values_list("pk", "check_failed_at"))


def marked(table, failed: dict[str, str], scorer: str | None = None):
    """A CSV's table with the column ``not_a_result`` (each row's notice, "" for a sound
    scorer's row) when any of its scorers failed a check; unchanged otherwise. Rows are
    matched by their ``scorer`` column, or are all ``scorer``'s."""
    if table is None or not failed:
        return table
    if "scorer" in table.columns:
        column = [failed.get(name, "") for name in table["scorer"]]
    else:
        column = [failed.get(scorer, "")] * len(table)
    return table.assign(not_a_result=column) if any(column) else table
