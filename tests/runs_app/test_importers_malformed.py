"""Every importer x every malformed file (tests/data/malformed/, plus a few generated ones
too large to keep): no traceback, exit status 1 (CommandError) or, for the admin upload,
a page with the report as a message; the report names a line or the file; nothing is
written. Then the rules that stop damage spreading (benchmark names, model names,
repeats) and exports that are safe to open in a spreadsheet."""

import csv
import html
import io
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Actor, Benchmark, Question, Scenario
from tests.factories import GOOD_ROW, HEADER, escalation_spec, table_csv

pytestmark = pytest.mark.django_db

MALFORMED = Path(__file__).resolve().parent.parent / "data" / "malformed"

TABLE_HEADER = ",".join(HEADER) + "\n"
ANSWERS_HEADER = "question_key,model,repeat,output\n"
# Files over the csv module's field limit (131,072 characters) or far deeper than the
# JSON decoder's recursion limit: made here rather than kept in the repository.
GENERATED = {
    "generated_huge_field_table.csv": lambda: TABLE_HEADER + 'Escalation,x,"' + "y" * 200_000 + '",a,b,NA,"(CN,RU)"\n',
    "generated_huge_field_answers.csv": lambda: ANSWERS_HEADER + 't/x.v1.CN-RU.full,m,0,"' + "z" * 200_000 + '"\n',
    "generated_huge_header.csv": lambda: '"' + "h" * 200_000 + '"\n',
    "generated_very_deep.json": lambda: '{"format": "cfpd-scenarios", "scenarios": ' + "[" * 100_000,
}
FILES = sorted(p.name for p in MALFORMED.iterdir()) + sorted(GENERATED)

IMPORTERS = ["import_scenarios --format csv", "import_scenarios --format json", "import_scenarios (detected)",
             "import_actors", "import_responses", "admin upload"]

# `line 3: reason`, `line 3 (key): field: reason` or `file: reason`, alone or after the path
# (the admin's messages capitalise their first letter).
REPORT = re.compile(r"(?im)(?:^|: )(?:line \d+(?: \([^)\n]*\))?|file): \S")


def content(name: str) -> bytes:
    if name in GENERATED:
        return GENERATED[name]().encode()
    return (MALFORMED / name).read_bytes()


def database_counts():
    return {model.__name__: model.objects.count()
            for model in (Benchmark, Scenario, Question, Actor, LLMModel, Run, Response)}


def failing_command(*args) -> str:
    """Run a command that must fail with CommandError; any other exception fails the test
    with its traceback. Returns everything it reported."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(*args, stdout=out, stderr=err)
    return f"{out.getvalue()}\n{caught.value}"


def admin_upload(client, name: str, data: bytes, benchmark: str = "fuzz") -> str:
    response = client.post(reverse("admin:scenarios_app_scenario_import"),
                           {"file": SimpleUploadedFile(name, data), "benchmark": benchmark})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="error"' in page, "the report is not shown as an error message"
    return html.unescape(re.sub(r"<[^>]+>", "\n", page))


def test_the_fuzz_matrix_has_every_importer_and_file():
    assert len(FILES) >= 40
    assert len(IMPORTERS) * len(FILES) >= 240


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("importer", IMPORTERS)
def test_a_malformed_file_gets_a_report_and_writes_nothing(importer, name, tmp_path, client, author):
    data = content(name)
    path = tmp_path / name
    path.write_bytes(data)
    before = database_counts()
    if importer == "admin upload":
        client.force_login(author)
        report = admin_upload(client, name, data)
    elif importer.startswith("import_scenarios"):
        fmt = importer.split("--format ")[1] if "--format" in importer else None
        fmt_args = ["--format", fmt] if fmt else []
        report = failing_command("import_scenarios", str(path), "--benchmark", "fuzz", *fmt_args)
    else:
        report = failing_command(importer, str(path))
    assert REPORT.search(report), report[:2000]
    assert "Traceback" not in report
    assert database_counts() == before


# ----------------------------------------------------------------- specific findings

def test_binary_and_non_utf8_files_are_named_as_such(tmp_path):
    path = tmp_path / "scenarios.csv"
    path.write_bytes((MALFORMED / "binary_png.csv").read_bytes())
    assert "file: contains NUL bytes" in failing_command("import_scenarios", str(path))
    path.write_bytes((MALFORMED / "latin1_table.csv").read_bytes())
    assert "line 2: byte 0xe9 is not UTF-8; save the file as UTF-8" in failing_command("import_scenarios", str(path))
    path.write_bytes((MALFORMED / "utf16_table.csv").read_bytes())
    assert "file: is UTF-16 text" in failing_command("import_actors", str(path))


def test_json_of_the_wrong_shape_is_reported_by_entry_and_field(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes((MALFORMED / "scenarios_not_a_list.json").read_bytes())
    assert 'file: "scenarios" is a string; it must be a list' in failing_command("import_scenarios", str(path))
    path.write_bytes((MALFORMED / "dyads_numbers.json").read_bytes())
    report = failing_command("import_scenarios", str(path))
    assert "line 1 (esc-1): dyads[1]: is not two strings" in report
    assert "line 1 (esc-1): dyads[2]: is a number" in report
    assert "line 2 (esc-2): dyads: is a number" in report
    path.write_bytes((MALFORMED / "fields_wrong_types.json").read_bytes())
    report = failing_command("import_scenarios", str(path))
    assert "line 1 (#1): key: is a number; write it as a string" in report
    assert "options[2]: is a string" in report
    path.write_bytes((MALFORMED / "deep_nesting.json").read_bytes())
    assert "file: the JSON is nested too deeply" in failing_command("import_scenarios", str(path))


def test_a_cell_over_the_csv_field_limit_names_its_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(GENERATED["generated_huge_field_table.csv"]())
    assert "line 2: a cell is longer than 131,072 characters" in failing_command("import_scenarios", str(path))


def test_a_short_actor_row_is_reported_not_a_traceback(tmp_path):
    path = tmp_path / "actors.csv"
    path.write_bytes((MALFORMED / "actors_short_rows.csv").read_bytes())
    report = failing_command("import_actors", str(path))
    assert "line 2: the row has 2 of the header's 5 cells and stops before name" in report
    assert "line 3: the row has 1 of the header's 5 cells and stops before kind, name" in report
    assert not Actor.objects.filter(code__in=["XORG", "YORG"]).exists()


@pytest.mark.parametrize("name", ["bad name", "a" * 65, "démo", "x/y", ""])
def test_a_benchmark_name_that_is_not_a_slug_is_refused(tmp_path, name):
    path = tmp_path / "s.csv"
    path.write_text(table_csv([GOOD_ROW]))
    report = failing_command("import_scenarios", str(path), "--benchmark", name)
    assert f"--benchmark {name!r}: " in report
    assert Benchmark.objects.count() == 0


def test_the_admin_upload_refuses_a_benchmark_name_too_long_and_the_list_still_loads(client, author, analyst):
    client.force_login(author)
    page = admin_upload(client, "s.csv", table_csv([GOOD_ROW]).encode(), benchmark="b" * 65)
    assert "is 65 characters long; use at most 64" in page
    assert Benchmark.objects.count() == 0
    client.force_login(analyst)
    assert client.get(reverse("benchmark-list")).status_code == 200


@pytest.fixture
def scenario():
    return authoring.save_spec(Benchmark.objects.create(name="t"), escalation_spec()).scenario


KEY = "t/esc-test.v1.CN-RU.full"


@pytest.mark.parametrize("model, message", [
    ("gpt 4o", "model 'gpt 4o' may use only letters, digits, - and _; for example 'gpt-4o'"),
    ("openai/gpt-4o", "model 'openai/gpt-4o' may use only letters, digits, - and _; for example 'openai-gpt-4o'"),
    ("<b>x</b>", "model '<b>x</b>' may use only letters, digits, - and _"),
    ("m" * 300, "model is 300 characters long; use at most 80"),
    ('=HYPERLINK("http://evil.example","x")', """model '=HYPERLINK("http://evil.example","x")' may use only"""),
])
def test_import_responses_refuses_a_model_name_that_cannot_be_registered(tmp_path, scenario, model, message):
    path = tmp_path / "answers.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([["question_key", "model", "repeat", "output"], [KEY, model, 0, "A"]])
    report = failing_command("import_responses", str(path))
    assert f"line 2: {message}" in report
    assert not LLMModel.objects.filter(name=model).exists() and not Run.objects.exists()


@pytest.mark.parametrize("repeat", ["1000", "99999999999999999999", "1_0", "+3"])
def test_import_responses_refuses_a_repeat_out_of_range(tmp_path, scenario, repeat):
    path = tmp_path / "answers.csv"
    path.write_text(f"question_key,model,repeat,output\n{KEY},m,{repeat},A\n")
    report = failing_command("import_responses", str(path))
    assert f"line 2: repeat {repeat!r} must be a whole number from 0 to 999" in report
    assert not Run.objects.exists()


def test_import_responses_accepts_the_last_repeat_and_a_registered_model(tmp_path, scenario):
    LLMModel.objects.create(name="registered-model", litellm_model="openai/x")
    path = tmp_path / "answers.csv"
    path.write_text(f"question_key,model,repeat,output\n{KEY},registered-model,999,A\n{KEY},gpt-4o_mini,0,B\n")
    call_command("import_responses", str(path), stdout=io.StringIO())
    assert sorted(Response.objects.values_list("model__name", "repeat")) == [("gpt-4o_mini", 0),
                                                                             ("registered-model", 999)]


# ----------------------------------------------------------------- exports

FORMULA_OPTION = '=HYPERLINK("http://evil.example","Withdraw")'


def test_the_table_export_neutralises_formulas_and_reads_back_the_same(tmp_path, scenario):
    spec = escalation_spec()
    spec.options[0] = type(spec.options[0])(FORMULA_OPTION, "no-force")
    spec.options[1] = type(spec.options[1])("-strike [Actor B]'s border posts", "use-of-force")
    authoring.save_spec(scenario.benchmark, spec)
    path = tmp_path / "t.csv"
    call_command("export_scenarios", str(path), "--benchmark", "t", stderr=io.StringIO())
    row = next(csv.DictReader(path.open(newline="")))
    assert row["Response Option 1"] == "'" + FORMULA_OPTION
    assert row["Response Option 2"] == "'-strike [Actor B]'s border posts"
    out = io.StringIO()
    call_command("import_scenarios", str(path), "--benchmark", "t", stdout=out)
    assert "(1 unchanged)" in out.getvalue()


def test_the_question_export_neutralises_formulas(tmp_path, scenario):
    spec = escalation_spec()
    spec.options[0] = type(spec.options[0])(FORMULA_OPTION, "no-force")
    authoring.save_spec(scenario.benchmark, spec)
    path = tmp_path / "q.csv"
    call_command("export_questions", str(path), stderr=io.StringIO())
    cells = [cell for row in csv.reader(path.open(newline="")) for cell in row]
    assert "'" + FORMULA_OPTION in cells and FORMULA_OPTION not in cells
    assert not [cell for cell in cells if cell.startswith(("=", "+", "@")) or re.match(r"-[^0-9.]", cell)]


def test_the_code_export_neutralises_formulas_but_not_numbers(tmp_path, scenario):
    # A model registered before names were checked.
    model = LLMModel.objects.create(name="=cmd|' /C calc'!A0", litellm_model="openai/x")
    run = Run.objects.create(benchmark=scenario.benchmark)
    Response.objects.create(run=run, question=scenario.questions.first(), model=model, repeat=0, status="failed",
                            option_order=[0, 1])
    path = tmp_path / "codes.csv"
    call_command("export_codes", str(path), stderr=io.StringIO())
    row = next(csv.DictReader(path.open(newline="")))
    assert row["model"] == "'=cmd|' /C calc'!A0"
    assert (row["repeat"], row["code"], row["run"]) == ("0", "missing", str(run.pk))


# ----------------------------------------------------------------- import_borderlines

BORDERLINES_SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"
RELEASE_FILES = ["disputed_territories.csv", "countries_info.json", "templates_q.tsv",
                 "translate/prompts_mc_q/prompts.ru", "prompts/choices.txt"]
# file:line: reason, file:line (Territory): reason, file[key]: reason, file: reason
FLAW = re.compile(r"(?m)^[\w./-]+(?::\d+|\[[^\]]*\])?(?: \([^)\n]+\))?: \S")


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("replaced", RELEASE_FILES)
def test_a_malformed_file_in_a_borderlines_release_is_a_flaw_and_nothing_is_written(replaced, name, tmp_path):
    import shutil

    root = tmp_path / "release"
    shutil.copytree(BORDERLINES_SAMPLE, root)
    (root / replaced).write_bytes(content(name))
    before = database_counts()
    report = failing_command("import_borderlines", str(root))
    assert FLAW.search(report), report[:2000]
    assert "Traceback" not in report and "nothing was imported" in report
    assert database_counts() == before
