"""One writer per state (issue 39): an answer's current code (`Code` rows, `Code.is_current`
and its copy `Response.code` / `Response.code_source`) is written only by
`encoding_app/current_code.py`, and answer rows (`Response`) are created only by
`runs_app/unit_rows.py`; every other module calls them. Read from the source with `ast`
(no database, no import): each write found elsewhere fails the test with its file and line.

What counts as a write, on an expression rooted at the model (its name as imported from
its app's models, a related manager `.codes` / `.responses`, or a variable assigned from
either in the same module):
- `Code`: `create`, `bulk_create`, `get_or_create`, `update_or_create`, `.save()`,
  `.update(is_current=…)`, `bulk_update` of `is_current`, `x.is_current = …`;
- `Response`'s code: `.update(code=… / code_source=…)`, `bulk_update` of those,
  `.save()` without `update_fields` or with those in it;
- `Response` rows: `Response(…)` built, `create`, `bulk_create`, `get_or_create`,
  `update_or_create`, a `COPY` / `INSERT INTO` of the answers' table in an f-string.

Reads (`filter(is_current=True)`, `values_list("code")`), other models' `is_current` or
`code` (scenarios, questions, territories, judges' requests) and DRF's own `Response` are
not writes. Raw SQL that updates the code is not seen (none exists outside migrations)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.house import ROOT, house_modules


CURRENT_CODE, ANSWER_ROWS = "current code", "answer rows"
WRITERS = {CURRENT_CODE: "encoding_app/current_code.py", ANSWER_ROWS: "runs_app/unit_rows.py"}
MODELS = {"Code": "encoding_app", "Response": "runs_app"}  # model -> the app whose models.py defines it
RELATED = {"codes": "Code", "responses": "Response"}  # related managers: response.codes, run.responses
CREATES = {"create", "bulk_create", "get_or_create", "update_or_create"}
CODE_FIELDS = {"Code": {"is_current"}, "Response": {"code", "code_source"}}


def _model_names(tree: ast.Module, package: str) -> dict[str, str]:
    """Local name -> model, for `Code` and `Response` imported from their apps' models."""
    names = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            app = MODELS.get(alias.name)
            if app and (node.module == f"{app}.models" or (node.level == 1 and node.module == "models"
                                                           and package == app)):
                names[alias.asname or alias.name] = alias.name
    return names


class _Roots:
    """Which model an expression's rows belong to: walked inward from the outer call."""

    def __init__(self, names: dict[str, str]):
        self.names, self.variables = names, {}

    def of(self, node) -> str | None:
        while True:
            if isinstance(node, ast.Call):
                node = node.func
            elif isinstance(node, ast.Subscript):
                node = node.value
            elif isinstance(node, ast.Attribute):
                if node.attr in RELATED:
                    return RELATED[node.attr]
                node = node.value
            elif isinstance(node, ast.Name):
                return self.names.get(node.id) or self.variables.get(node.id)
            else:
                return None

    def learn(self, tree: ast.Module):
        """Variables assigned (or looped) from a model's rows, anywhere in the module."""
        for node in ast.walk(tree):
            pairs = []
            if isinstance(node, ast.Assign):
                pairs = [(target, node.value) for target in node.targets]
            elif isinstance(node, (ast.For, ast.comprehension)):
                pairs = [(node.target, node.iter)]
            for target, value in pairs:
                model = self.of(value)
                if isinstance(target, ast.Name) and model:
                    self.variables.setdefault(target.id, model)


def _strings(node) -> set[str]:
    """The string constants of a list or tuple literal (a `fields` argument)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _call_writes(call: ast.Call, roots: _Roots) -> str | None:
    """What a call writes (CURRENT_CODE, ANSWER_ROWS) with a reason, or None."""
    if isinstance(call.func, ast.Name) and roots.names.get(call.func.id) == "Response":
        return f"{ANSWER_ROWS}: builds a Response row"
    if not isinstance(call.func, ast.Attribute):
        return None
    method, model = call.func.attr, roots.of(call.func.value)
    if model is None:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if method in CREATES:
        return f"{CURRENT_CODE if model == 'Code' else ANSWER_ROWS}: {model} rows by {method}"
    if method == "update" and set(keywords) & CODE_FIELDS[model]:
        return f"{CURRENT_CODE}: {model}.update({', '.join(sorted(set(keywords) & CODE_FIELDS[model]))}=…)"
    if method == "bulk_update":
        fields = _strings(keywords.get("fields", call.args[1] if len(call.args) > 1 else None))
        if fields & CODE_FIELDS[model]:
            return f"{CURRENT_CODE}: {model}.bulk_update of {', '.join(sorted(fields & CODE_FIELDS[model]))}"
    if method == "save":
        if model == "Code":
            return f"{CURRENT_CODE}: saves a Code row"
        fields = _strings(keywords.get("update_fields"))
        if "update_fields" not in keywords or fields & CODE_FIELDS[model]:
            return f"{CURRENT_CODE}: saves a Response with its code's copy"
    return None


def _copy_writes(node: ast.JoinedStr, roots: _Roots) -> str | None:
    """An f-string of COPY or INSERT INTO naming the answers' table (`Response._meta.db_table`)."""
    text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if "COPY " not in text.upper() and "INSERT INTO" not in text.upper():
        return None
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr == "db_table" and roots.of(inner.value) == "Response":
            return f"{ANSWER_ROWS}: COPY / INSERT INTO the answers' table"
    return None


def writes(source: str, package: str) -> list[tuple[int, str]]:
    """(line, what) of every write of the current code or of answer rows in `source`, a
    module of the app `package`."""
    tree = ast.parse(source)
    roots = _Roots(_model_names(tree, package))
    roots.learn(tree)
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Call):
            what = _call_writes(node, roots)
        elif isinstance(node, ast.JoinedStr):
            what = _copy_writes(node, roots)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "is_current" and roots.of(t.value) == "Code"
                   for t in targets):
                what = f"{CURRENT_CODE}: sets a Code's is_current"
        if what:
            found.append((node.lineno, what))
    return sorted(found)



def second_writers(modules=None) -> list[str]:
    """"path:line: what" of every write outside its designated writer; `modules`: (path
    relative to the root, source) pairs, the house's modules by default."""
    problems = []
    if modules is None:
        modules = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in house_modules()]
    for relative, source in modules:
        for line, what in writes(source, relative.split("/")[0]):
            state = what.split(":")[0]
            if relative != WRITERS[state]:
                problems.append(f"{relative}:{line}: {what} (only {WRITERS[state]} writes the {state})")
    return problems


def test_the_current_code_and_answer_rows_have_one_writer_each():
    assert second_writers() == []


def test_the_writers_are_found_in_their_own_modules():
    # The checker sees the designated writers' writes: it would see a copy of them elsewhere.
    for state, relative in WRITERS.items():
        found = writes((ROOT / relative).read_text(encoding="utf-8"), relative.split("/")[0])
        assert any(what.startswith(state) for _, what in found), relative


PLANTED = '''
from encoding_app.models import Code
from runs_app.models import Response
from rest_framework.response import Response as APIResponse

def recode(response, answers):
    current = response.codes.filter(is_current=True).first()       # a read
    Code.objects.filter(pk=current.pk).update(is_current=False)    # 8
    new = Code(response=response, code="A", source="reviewer")
    new.is_current = True                                           # 10
    new.save()                                                      # 11
    Response.objects.filter(pk=response.pk).update(code="A", code_source="reviewer")  # 12
    answers.update(code="B")                                        # a variable of unknown rows: not seen
    rows = Response.objects.filter(run=response.run_id)
    rows.update(code_source="missing")                              # 15
    Response.objects.bulk_create([Response(run_id=1)])              # 16 (twice: the call and the row)
    response.run.responses.create(question_id=1)                    # 17
    Code.objects.bulk_update([new], ["is_current"])                 # 18
    rows.first().save(update_fields=["status"])                     # not the code
    rows.first().save()                                             # 20
    sql = f"COPY {Response._meta.db_table} (run_id) FROM STDIN"     # 21
    return APIResponse({"code": new.code}), Response.objects.filter(code="A").count()
'''

READS_ONLY = '''
from runs_app.models import Response
from scenarios_app.models import Question
from rest_framework.response import Response as APIResponse

def show(run, described, scenario, request):
    described.update(code="", code_source="")                        # a dict
    Question.objects.filter(is_current=True).update(is_current=False)  # another model's flag
    scenario.is_current = False
    request.save(update_fields=["reading", "code"])                  # a judge's request, not an answer
    codes = Response.objects.filter(run=run).values_list("code", "code_source")
    return APIResponse(list(codes))
'''


def test_the_designated_writers_may_write_what_they_own():
    # The same lines in the writers' own modules: only what each does not own is reported.
    rows_in_coding = second_writers([("encoding_app/current_code.py", PLANTED)])
    assert rows_in_coding and all(" answer rows: " in p for p in rows_in_coding)


def test_it_names_the_line_of_each_planted_second_writer():
    found = writes(PLANTED, "analysis_app")
    assert [line for line, _ in found] == [8, 10, 11, 12, 15, 16, 16, 17, 18, 20, 21]
    assert [what.split(":")[0] for _, what in found].count(ANSWER_ROWS) == 4  # 16, 16, 17, 21


def test_it_takes_reads_and_other_models_for_what_they_are():
    assert writes(READS_ONLY, "explorer_app") == []


def test_a_planted_writer_fails_with_its_file_and_line():
    problems = second_writers([("analysis_app/_planted_second_writer.py", PLANTED)])
    assert problems[0].startswith("analysis_app/_planted_second_writer.py:8: current code: Code.update(is_current=…)")
    assert any(p.startswith("analysis_app/_planted_second_writer.py:16: answer rows") for p in problems)
