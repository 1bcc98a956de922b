"""One writer per state (issue 39): a unit's status (`Response.status`) and a run's
(`Run.status`) are written only by `runs_app/transitions.py` (and the batch's answers
statement in `runs_app/answer_rows.py`, which only `transitions.finish_units` calls),
each change one function named in its tables. Read from the source with `ast`: no
database.

What counts as writing a status, in any module of the house outside bench/, the tests and
the migrations:

* a keyword `status=` whose value is a unit's or run's status (`Response.Status.DONE`,
  `Run.Status.PAUSED`, or a name bound to those classes) in any call but a read (`filter`,
  `exclude`, `Q`, …) or a birth (`Response(...)`, `create`, `bulk_create`, `unit_rows.create_rows`,
  `RowInsert`, and the fields passed to them);
* `.update(status=…)` or `.bulk_update(…, ["status", …])` on units or runs
  (`Response.objects…`, `Run.objects…`, `run.responses…`), whatever the value;
* `x.status = …` or `setattr(x, "status", …)` with such a value, or on a run or a unit
  (`run.status`, `response.status`, `unit.response.status`);
* raw SQL that sets `status` in the units' or runs' table;
* a call of `_update_rows` (the answers' statement, which writes `status`) outside
  `transitions`.

A row's birth is not a transition and is not looked for (see `transitions.UNIT_BIRTHS`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from runs_app import answer_rows, transitions
from runs_app.models import Response, Run
from tests.house import ROOT, house_modules


MODELS = {"Response", "Run"}
READS = {"filter", "exclude", "get", "Q", "When", "count", "exists", "values", "annotate", "aggregate",
         "first", "get_or_none", "select_for_update", "order_by"}
# Row makers: a status given to a row being made (the answer rows' one maker,
# runs_app.unit_rows, and Django's), whether in the call or in the fields passed to it.
BIRTHS = {"Response", "Run", "create", "bulk_create", "get_or_create", "update_or_create", "create_rows",
          "RowInsert", "copy_rows"}
QUERY_WRITES = {"update", "bulk_update"}
HOLDERS = {"run", "response", "responses", "runs", "unit"}  # names that hold a run or a unit
STATEMENT = "_update_rows"  # the batch's answers statement (answer_rows), status among its fields
SQL_SETS_STATUS = re.compile(r"update\s+\S*runs_app_(response|run)\b.*\bset\b.*\bstatus\b", re.I | re.S)


def _status_aliases(tree: ast.Module) -> set[str]:
    """Module-level names bound to `Response.Status` or `Run.Status` (`U, R = Response.Status, Run.Status`)."""
    aliases = set()
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = (zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple)
                     and isinstance(node.value, ast.Tuple) else [(target, node.value)])
            for name, value in pairs:
                if isinstance(name, ast.Name) and _is_status_class(value):
                    aliases.add(name.id)
    return aliases


def _is_status_class(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "Status" and isinstance(node.value, ast.Name)
            and node.value.id in MODELS)


def _names_status(node, aliases: set[str]) -> bool:
    """Whether the expression mentions a unit's or run's status value."""
    for sub in ast.walk(node):
        if _is_status_class(sub):
            return True
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in aliases:
            return True
    return False


def _names_units_or_runs(node) -> bool:
    """Whether a query's receiver is units or runs (`Response.objects…`, `run.responses…`)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in MODELS:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ("responses", "runs"):
            return True
    return False


def _holds_run_or_unit(node) -> bool:
    return ((isinstance(node, ast.Name) and node.id in HOLDERS)
            or (isinstance(node, ast.Attribute) and node.attr in HOLDERS))


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def status_writes(source: str, path: str = "<source>") -> list[tuple[int, str, str]]:
    """(line, enclosing function, what) for every statement of `source` that writes a unit's
    or run's status."""
    tree = ast.parse(source, filename=path)
    aliases = _status_aliases(tree)
    found: list[tuple[int, str, str]] = []

    def visit(node, function: str, in_birth: bool):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            what = None if in_birth else _write_in(child, aliases, path)
            if what:
                found.append((child.lineno, name, what))
            visit(child, name, in_birth or (isinstance(child, ast.Call) and _callee(child) in BIRTHS))

    visit(tree, "<module>", False)
    return found


def _write_in(node, aliases: set[str], path: str) -> str | None:
    if isinstance(node, ast.Call):
        callee = _callee(node)
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        on_units = callee in QUERY_WRITES and receiver is not None and _names_units_or_runs(receiver)
        for keyword in node.keywords:
            if keyword.arg == "status" and callee not in READS | BIRTHS and (
                    on_units or _names_status(keyword.value, aliases)):
                return f"{callee}(status=…)"
            if (keyword.arg is None and on_units and isinstance(keyword.value, ast.Dict)
                    and any(isinstance(k, ast.Constant) and k.value == "status" for k in keyword.value.keys)):
                return f"{callee}(**{{'status': …}})"
        if callee == "bulk_update" and on_units and any(
                isinstance(sub, ast.Constant) and sub.value == "status" for arg in node.args for sub in ast.walk(arg)):
            return "bulk_update(…, ['status', …])"
        if (callee == "setattr" and len(node.args) == 3 and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == "status"
                and (_names_status(node.args[2], aliases) or _holds_run_or_unit(node.args[0]))):
            return "setattr(…, 'status', …)"
        if callee == STATEMENT and path != "runs_app/transitions.py":
            return f"{STATEMENT}(…): the answers' statement, status among its fields"
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        for target in flat:
            if isinstance(target, ast.Attribute) and target.attr == "status" and (
                    (node.value is not None and _names_status(node.value, aliases)) or _holds_run_or_unit(target.value)):
                return ".status = …"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_SETS_STATUS.search(node.value):
        return "SQL setting status"
    return None



def second_writers(paths, root: Path = ROOT) -> list[str]:
    """Every status write outside `transitions.STATUS_WRITERS`, as 'path:line (function): what'."""
    found = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if relative in transitions.STATUS_WRITERS:
            continue
        for line, function, what in status_writes(path.read_text(encoding="utf-8"), relative):
            found.append(f"{relative}:{line} ({function}): {what}")
    return found


# ------------------------------------------------------------------ the house

def test_only_the_transitions_module_writes_a_unit_or_run_status():
    found = second_writers(house_modules())
    assert not found, ("a unit's or run's status written outside runs_app/transitions.py; make it a "
                       "transition there (a function named in UNIT_TRANSITIONS or RUN_TRANSITIONS) and call "
                       "it:\n" + "\n".join(found))


def test_the_answers_statement_is_called_only_by_finish_units():
    source = (ROOT / "runs_app/transitions.py").read_text(encoding="utf-8")
    callers = {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)
               and any(isinstance(sub, ast.Call) and _callee(sub) == STATEMENT for sub in ast.walk(node))}
    assert callers == {"finish_units"}
    assert "status" in answer_rows.ANSWER_FIELDS  # why the statement is a writer


# ------------------------------------------------------------------ the checker catches a second writer

PLANTED = {
    "update": "def stop(run):\n    run.responses.filter(status=Response.Status.PENDING).update(status='cancelled')\n",
    "update of runs by value": "def pause(pk):\n    Run.objects.filter(pk=pk).update(status=Run.Status.PAUSED)\n",
    "an alias": "S = Response.Status\n\ndef end(qs):\n    qs.update(status=S.DONE)\n",
    "a dict for update": "def end(pk):\n    Response.objects.filter(pk=pk).update(**{'status': 'done'})\n",
    "an attribute": "def end(unit, x):\n    unit.response.status = x\n",
    "an attribute by value": "def end(row):\n    row.status = Response.Status.DONE\n    row.save()\n",
    "setattr": "def end(row):\n    setattr(row, 'status', Run.Status.DONE)\n",
    "a dict of fields": "def end(row):\n    fields = dict(status=Response.Status.FAILED)\n",
    "bulk_update": "def end(rows):\n    Response.objects.bulk_update(rows, ['status', 'raw_output'])\n",
    "raw SQL": "def end(c):\n    c.execute(\"UPDATE runs_app_response SET status = 'done' WHERE id = 1\")\n",
    "the answers' statement": "from runs_app.answer_rows import _update_rows\n\ndef end(rows):\n    _update_rows(rows)\n",
}
INNOCENT = {
    "a read": "def open_units(run):\n    return Response.objects.filter(status=Response.Status.PENDING).exists()\n",
    "a birth": "def born(run):\n    Response.objects.create(run=run, status=Response.Status.DONE)\n",
    "another model's status": "def sent(b):\n    ProviderBatch.objects.filter(pk=b.pk).update(status='completed')\n"
                              "    b.status = 'completed'\n",
    "a comparison": "def done(run):\n    return run.status == Run.Status.DONE\n",
    "rows made done": "def rows(run):\n    unit_rows.create_rows([dict(run=run, status=Response.Status.DONE)])\n"
                      "    unit_rows.RowInsert(run=run, status=Response.Status.DONE)\n",
}


def test_the_checker_names_a_planted_second_writer_by_line_and_function():
    for label, source in PLANTED.items():
        found = status_writes(source, "runs_app/elsewhere.py")
        assert found, f"{label}: not caught"
        line, function, _ = found[0]
        assert function in ("stop", "pause", "end"), label
        assert source.splitlines()[line - 1].strip().startswith(("run", "Run", "qs", "Response", "unit", "row",
                                                                 "setattr", "fields", "c.", "_update")), label


def test_the_checker_leaves_reads_births_and_other_models_alone():
    for label, source in INNOCENT.items():
        assert status_writes(source, "runs_app/elsewhere.py") == [], label


def test_a_planted_module_fails_the_house_check(tmp_path):
    planted = tmp_path / "runs_app" / "rogue.py"
    planted.parent.mkdir()
    planted.write_text(PLANTED["update"])
    kept = tmp_path / "runs_app" / "transitions.py"
    kept.write_text(PLANTED["update of runs by value"])  # the writer itself may write
    assert second_writers([planted, kept], root=tmp_path) == ["runs_app/rogue.py:2 (stop): update(status=…)"]


# ------------------------------------------------------------------ the tables

def _walk(table: dict, choices) -> tuple[set[str], set[str]]:
    functions, targets = set(), set()
    for source, moves in table.items():
        assert source in choices, f"{source!r} is no status"
        for target, names in moves.items():
            assert target in choices, f"{source!r} → {target!r}: no status"
            assert names, f"{source!r} → {target!r}: no function named"
            functions |= set(names)
            targets.add(target)
    return functions, targets


def test_every_transition_is_a_function_of_the_writer():
    for table in (transitions.UNIT_TRANSITIONS, transitions.RUN_TRANSITIONS):
        for source, moves in table.items():
            for target, names in moves.items():
                for name in names:
                    assert callable(getattr(transitions, name, None)), f"{source} → {target}: no {name}()"


def test_every_status_is_listed_and_reachable():
    for table, births, status in ((transitions.UNIT_TRANSITIONS, transitions.UNIT_BIRTHS, Response.Status),
                                  (transitions.RUN_TRANSITIONS, transitions.RUN_BIRTHS, Run.Status)):
        _, targets = _walk(table, status.values)
        assert set(table) == set(status.values), f"not listed as a from-status: {set(status.values) - set(table)}"
        unreachable = set(status.values) - targets - set(births)
        assert not unreachable, f"no transition and no birth reaches {sorted(unreachable)}"


def test_every_function_that_writes_a_status_is_in_the_tables_and_only_those():
    source = (ROOT / "runs_app/transitions.py").read_text(encoding="utf-8")
    writing = {function for _, function, _ in status_writes(source, "runs_app/transitions.py")}
    named = (_walk(transitions.UNIT_TRANSITIONS, Response.Status.values)[0]
             | _walk(transitions.RUN_TRANSITIONS, Run.Status.values)[0])
    # finish_units writes through the answers' statement; the row makers set the status it writes.
    assert writing | {"finish_units"} == named | set(transitions.ROW_MAKERS)
