"""`import_responses`: answers collected outside the tool, by export_questions' keys."""

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from runs_app import services
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

KEY_1, KEY_2 = "t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full"


@pytest.fixture
def scenario():
    return authoring.save_spec(Benchmark.objects.create(name="t"), escalation_spec()).scenario


def answers(rows, header=("question_key", "model", "repeat", "output")):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def run_command(tmp_path, text):
    path = tmp_path / "answers.csv"
    path.write_text(text)
    out = io.StringIO()
    call_command("import_responses", str(path), stdout=out)
    return out.getvalue()


def test_answers_are_imported_with_an_external_model_that_is_never_called(tmp_path, scenario):
    output = run_command(tmp_path, answers([
        (KEY_1, "claude-web", 0, "B: Strike them.\nI would choose B"), (KEY_1, "claude-web", 1, "A"),
        (KEY_2, "claude-web", 0, "I cannot choose among these options."),
    ]))
    run = Run.objects.get()
    assert f"imported 3 answers as run {run.pk} (t)" in output
    model = LLMModel.objects.get(name="claude-web")
    assert model.is_external and run.status == "done"
    assert sorted(run.responses.values_list("question__key", "repeat", "raw_output")) == [
        (KEY_1, 0, "B: Strike them.\nI would choose B"), (KEY_1, 1, "A"),
        (KEY_2, 0, "I cannot choose among these options.")]
    scenario.refresh_from_db()
    assert scenario.is_frozen  # the text these answers answered can no longer change
    with pytest.raises(services.RunError, match="only hold imported answers"):
        services.launch_run(scenario.benchmark, [model])


def test_a_file_with_bad_rows_imports_nothing_and_lists_each_one(tmp_path, scenario):
    text = answers([(KEY_1, "m", 0, "A"), ("t/nope.v1.CN-RU.full", "m", 0, "A"), (KEY_1, "m", 0, "B"),
                    (KEY_2, "m", "x", "A"), (KEY_2, "", 0, "A")])
    path = tmp_path / "answers.csv"
    path.write_text(text)
    out = io.StringIO()
    with pytest.raises(CommandError, match="4 problem\\(s\\); nothing was imported"):
        call_command("import_responses", str(path), stdout=out)
    report = out.getvalue()
    assert "line 3: no question with key 't/nope.v1.CN-RU.full'" in report
    assert f"line 4: ({KEY_1}, m, repeat 0) repeats line 2" in report
    assert "line 5: repeat 'x' is not a whole number >= 0" in report
    assert "line 6: question_key and model are required" in report
    assert Run.objects.count() == 0 and Response.objects.count() == 0 and not LLMModel.objects.filter(name="m")


def test_a_file_without_the_columns_is_refused(tmp_path, scenario):
    with pytest.raises(CommandError):
        run_command(tmp_path, answers([(KEY_1, "m", "A")], header=("question_key", "model", "output")))
    assert Run.objects.count() == 0


def test_keys_written_by_export_questions_come_back(tmp_path, scenario):
    exported = tmp_path / "questions.csv"
    call_command("export_questions", str(exported), stderr=io.StringIO())
    keys = [row["question_key"] for row in csv.DictReader(exported.open())]
    run_command(tmp_path, answers([(key, "ext", 0, "A") for key in keys]))
    assert Response.objects.filter(model__name="ext").count() == len(keys) == 2


def test_an_answer_to_options_shown_in_another_order_is_coded_as_the_option_it_named(tmp_path, scenario):
    # KEY_1's two options shown reversed ("1 0"): the letter B named the first option, A.
    run_command(tmp_path, answers([(KEY_1, "m", 0, "B", "1 0"), (KEY_1, "m", 1, "B", "[0, 1]"),
                                   (KEY_2, "m", 0, "B", "")],
                                  header=("question_key", "model", "repeat", "output", "option_order")))
    assert sorted(Run.objects.get().responses.values_list("question__key", "repeat", "option_order", "code")) == [
        (KEY_1, 0, [1, 0], "A"), (KEY_1, 1, [0, 1], "B"), (KEY_2, 0, [0, 1], "B")]


def test_an_option_order_that_is_no_order_of_the_questions_options_is_named(tmp_path, scenario):
    text = answers([(KEY_1, "m", 0, "A", "1 1"), (KEY_1, "m", 1, "A", "0 1 2"), (KEY_2, "m", 0, "A", "x")],
                   header=("question_key", "model", "repeat", "output", "option_order"))
    path = tmp_path / "answers.csv"
    path.write_text(text)
    out = io.StringIO()
    with pytest.raises(CommandError, match="3 problem\\(s\\); nothing was imported"):
        call_command("import_responses", str(path), stdout=out)
    report = out.getvalue()
    assert "line 2: option_order '1 1' is not the options' indexes 0..n-1" in report
    assert f"line 3: option_order names 3 options; question {KEY_1!r} has 2" in report
    assert "line 4: option_order 'x' is not the options' indexes" in report
    assert Run.objects.count() == 0
