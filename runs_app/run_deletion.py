"""A finished or cancelled run deleted by statements over its rows, not row by row (issue 42).

Django's collector (`Run.delete()`) reads every id of a run's units into the process and
deletes them 100 at a time, each statement firing the tally and run-counter triggers: about
70 minutes for a run of 2.66 million answers (docs/performance.md). `delete_run` applies the
same `on_delete` rules, found the same way (Django's model meta: every foreign key to `Run`
or `Response`, another room's included, none named here), but by set:

- the units by ranges of `DELETE_CHUNK` ids (a run's units have mostly consecutive ids),
  the highest first, each range's dependants first (CASCADE: deleted, and theirs before
  them; SET_NULL: set to NULL; PROTECT / RESTRICT: refused), then the range's units in one
  statement, whose statement-level triggers take them out of the tallies and the run's
  counters;
- the run's other dependants by `WHERE run_id = %s`; the rows that name the run and that
  Django leaves (DO_NOTHING: the trigger-kept tallies, at n = 0 once the units are gone,
  and the run's counters, whose delete trigger steps aside for the units' statements:
  `progress_counts.RUN_DELETION_SETTING`) deleted by run as well;
- then the run's row through `Run.delete()`, which finds nothing left but sends the
  signals (the data version moves).

On PostgreSQL the run's units are a partition of their own (`runs_app.partitions`): their
dependants go by set as above (one statement per relation over the run's units), the rows
kept by run (tallies, counters) by run, and the units in one `DROP TABLE` of the partition,
last (it takes ACCESS EXCLUSIVE on the answers until the commit, so it waits at most
`DROP_LOCK_TIMEOUT` for the readers and writers before it, then fails with a RunError
rather than holding every worker queued behind it); a dropped partition fires no trigger.

All of it in one transaction under the run's row lock: a deletion stopped half way leaves
the run whole. What is given up against the collector: the per-row delete signals of the
units' dependants (django-auditlog writes no entry per deleted code: the run's deletion is
one act, not millions of corrections).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.db import connection, models, transaction
from django.db.models.deletion import get_candidate_relations_to_delete
from django.db.utils import OperationalError

from . import partitions, progress_counts
from .launching import RunError
from .models import Response, Run

DELETE_CHUNK = 100_000  # ids of a run's units per DELETE statement (as CANCEL_CHUNK)
DELETABLE = (Run.Status.DONE, Run.Status.CANCELLED)
# How long the partition's DROP waits for the answers' lock (every transaction reading or
# writing answers holds it); every statement asking for it queues behind the DROP meanwhile.
DROP_LOCK_TIMEOUT = "5s"


class RunNotFinished(RunError):
    """A run that is still queued, running or paused, or whose units are still in flight."""


@dataclass
class RunDeletion:
    run_id: int
    units: int = 0
    rows: dict[str, int] = field(default_factory=dict)  # app_label.Model: rows deleted (or set to NULL)
    seconds: float = 0.0

    def add(self, label: str, count: int):
        if count:
            self.rows[label] = self.rows.get(label, 0) + count


def delete_run(run: Run, progress=None) -> RunDeletion:
    """Delete a done or cancelled run with everything that depends on it, by statements of
    up to DELETE_CHUNK units. `progress(done, total, phase)` after each statement over units.
    RunNotFinished for a run not finished, or with units still running (a cancelled run's
    in-flight calls: wait for its sweep)."""
    started = time.monotonic()
    result = RunDeletion(run_id=run.pk)
    with transaction.atomic():
        locked = Run.objects.select_for_update().filter(pk=run.pk).values_list("status", flat=True).first()
        if locked is None:
            return result  # deleted meanwhile
        if locked not in DELETABLE:
            raise RunNotFinished(f"Run {run.pk} is {locked}: only a done or cancelled run can be deleted; "
                                 f"cancel it first.")
        in_flight = Response.objects.filter(run_id=run.pk, status=Response.Status.RUNNING).count()
        if in_flight:
            raise RunNotFinished(f"Run {run.pk} still has {in_flight} unit(s) in flight: wait until its "
                                 f"workers or its sweep have ended them, then delete it.")
        partition = _partition_of(run.pk)
        if partition:
            _delete_dependants_of_units(run.pk, result)
            _delete_by_run(run.pk, result, units_dropped=True)
            _drop_partition(partition, result, progress)
        else:
            _delete_units(run.pk, result, progress)
            _delete_by_run(run.pk, result)
        Run.objects.get(pk=run.pk).delete()  # nothing left to collect; its signals sent
        result.add(Run._meta.label, 1)
    result.seconds = time.monotonic() - started
    return result


def _partition_of(run_id: int) -> str | None:
    if connection.vendor != "postgresql":
        return None
    name = partitions.partition_name(run_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        return name if cursor.fetchone()[0] else None


def _delete_dependants_of_units(run_id: int, result: RunDeletion):
    """What points at the run's units, by one statement per relation over all of them;
    the follow-ups in other runs by Django's collector, as `_delete_units` does."""
    outside = Response.objects.filter(previous__run_id=run_id).exclude(run_id=run_id)
    if outside.exists():
        result.add(Response._meta.label, outside.delete()[1].get(Response._meta.label, 0))
    table, pk = Response._meta.db_table, Response._meta.pk.column
    _apply_on_delete(Response, f"SELECT {pk} FROM {table} WHERE run_id = %s", [run_id], result, skip_self=True)


def _drop_partition(partition: str, result: RunDeletion, progress):
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{partition}"')
        units = cursor.fetchone()[0]
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [DROP_LOCK_TIMEOUT])
        try:
            cursor.execute(f'DROP TABLE "{partition}"')
        except OperationalError as exc:
            if getattr(exc.__cause__, "sqlstate", None) != "55P03":  # lock_not_available
                raise
            raise RunError(f"The answers were busy for {DROP_LOCK_TIMEOUT} (long reads or writes under way): "
                           f"the run was not deleted; try again.") from exc
    result.units += units
    result.add(Response._meta.label, units)
    if progress:
        progress(units, units, "dropping units")


def _delete_units(run_id: int, result: RunDeletion, progress):
    units = Response.objects.filter(run_id=run_id)
    span = units.aggregate(lo=models.Min("id"), hi=models.Max("id"), n=models.Count("id"))
    if span["lo"] is None:
        return
    # Follow-ups in other runs of this run's units: Django's own collector for those few
    # (CASCADE reaches into their runs, as Run.delete() would).
    outside = Response.objects.filter(previous__run_id=run_id).exclude(run_id=run_id)
    if outside.exists():
        result.add(Response._meta.label, outside.delete()[1].get(Response._meta.label, 0))
    table, pk = Response._meta.db_table, Response._meta.pk.column
    _counters_step_aside(True)  # the run's counter rows go by run (_delete_by_run)
    # From the highest ids down: the counters' trigger asks, after each statement, whether
    # any unit of the run is left (NOT EXISTS over the run's index), and finds one at once
    # while the lowest are left; deleting upwards, each statement's check stepped over
    # every index entry deleted before it (the statements slowed from 7 s to over 30 s).
    high = span["hi"] + 1
    while high > span["lo"]:
        low = max(high - DELETE_CHUNK, span["lo"])
        chunk = f"SELECT {pk} FROM {table} WHERE run_id = %s AND {pk} >= %s AND {pk} < %s"
        params = [run_id, low, high]
        _apply_on_delete(Response, chunk, params, result, skip_self=True)
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE run_id = %s AND {pk} >= %s AND {pk} < %s", params)
            result.units += cursor.rowcount
        high = low
        if progress:
            progress(result.units, span["n"], "deleting units")
    _counters_step_aside(False)
    result.add(Response._meta.label, result.units)


def _counters_step_aside(on: bool):
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config(%s, %s, true)", [progress_counts.RUN_DELETION_SETTING, "on" if on else ""])


def _delete_by_run(run_id: int, result: RunDeletion, units_dropped: bool = False):
    """The run's dependants other than its units, by `run_id = %s`; what Django leaves
    (DO_NOTHING) deleted too: rows keyed by the run with no run to name."""
    for relation in get_candidate_relations_to_delete(Run._meta):
        related, column = relation.related_model, relation.field.column
        if related is Response:
            continue  # deleted above
        if relation.on_delete is models.DO_NOTHING:
            with connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {related._meta.db_table} WHERE {column} = %s", [run_id])
                result.add(related._meta.label, cursor.rowcount)
            continue
        # The run's own units are left alone when their partition is dropped after: a
        # provider batch's SET_NULL would otherwise rewrite every unit it names first.
        _apply_relation(relation, "SELECT %s", [run_id], result, spare_run=run_id if units_dropped else None)


def _apply_on_delete(model, ids_sql: str, params: list, result: RunDeletion, skip_self: bool = False,
                     spare_run: int | None = None):
    """Every relation to `model` applied to the rows that point at the ids `ids_sql` selects."""
    for relation in get_candidate_relations_to_delete(model._meta):
        if skip_self and relation.related_model is model:
            continue
        _apply_relation(relation, ids_sql, params, result, spare_run)


def _apply_relation(relation, ids_sql: str, params: list, result: RunDeletion, spare_run: int | None = None):
    """One foreign key's on_delete over the rows that point at the ids `ids_sql` selects.
    A self-reference (a code that supersedes another) reaches only the rows outside the set."""
    related, column = relation.related_model, relation.field.column
    table, pk = related._meta.db_table, related._meta.pk.column
    where = f"{column} IN ({ids_sql})"
    self_reference = relation.field.model is relation.model
    if self_reference:
        where += f" AND {pk} NOT IN ({ids_sql})"
        params = params + params
    if spare_run is not None and related is Response:
        where += " AND run_id <> %s"  # in the partition dropped after
        params = params + [spare_run]
    on_delete = relation.on_delete
    with connection.cursor() as cursor:
        if on_delete is models.CASCADE:
            if self_reference:
                raise RunError(f"{related._meta.label}.{relation.field.name}: a cascading self-reference "
                               f"is not deleted by statement")
            _apply_on_delete(related, f"SELECT {pk} FROM {table} WHERE {where}", params, result, spare_run=spare_run)
            cursor.execute(f"DELETE FROM {table} WHERE {where}", params)
            result.add(related._meta.label, cursor.rowcount)
        elif on_delete is models.SET_NULL:
            cursor.execute(f"UPDATE {table} SET {column} = NULL WHERE {where}", params)
        elif on_delete in (models.PROTECT, models.RESTRICT):
            cursor.execute(f"SELECT 1 FROM {table} WHERE {where} LIMIT 1", params)
            if cursor.fetchone():
                raise RunError(f"{related._meta.label}.{relation.field.name} protects rows of this run: "
                               f"delete those first.")
        elif on_delete is not models.DO_NOTHING:
            raise RunError(f"{related._meta.label}.{relation.field.name}: on_delete "
                           f"{on_delete.__name__} is not applied by statement")
