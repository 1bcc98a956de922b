"""A benchmark exported as an Inspect AI task (issue 30), run by a real `inspect eval`
against the fake OpenAI-compatible server, its log imported back and coded."""

import io
import json
import os
import subprocess

import pytest
from django.core.management import CommandError, call_command

from runs_app.models import Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests import formats_env
from tests.factories import escalation_spec, three_option_spec
from tests.fakes.fake_openai import FakeOpenAI

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.embedded_pass(reason=(
        "a file format (an Inspect AI task) run by a real inspect eval; the answer rows it "
        "imports go through the one importer tested in both passes"))]

# The three-option scenario gives two questions: all three options, and the middle one left out.
KEYS = ["t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full", "t/esc3-test.v1.CN-JP.full",
        "t/esc3-test.v1.CN-JP.no-middle"]


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t", title="Test escalation")
    authoring.save_spec(benchmark, escalation_spec())
    authoring.save_spec(benchmark, three_option_spec())
    return benchmark


def export(tmp_path, *extra):
    out = io.StringIO()
    call_command("export_inspect_task", "--benchmark", "t", "--out", tmp_path / "task", *extra, stdout=out)
    return out.getvalue()


def test_the_dataset_holds_each_question_with_our_messages_and_keys(benchmark, tmp_path):
    report = export(tmp_path)
    assert "(4 questions," in report and "cfpd_t.py" in report
    records = [json.loads(line) for line in (tmp_path / "task" / "dataset.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == KEYS
    first = records[0]
    assert first["choices"] == ["Withdraw and reopen talks with Russia", "Strike Russia's border posts"]
    assert first["metadata"]["question_key"] == KEYS[0] and first["metadata"]["condition"] == "default"
    assert first["input"][-1]["role"] == "user" and "Strike Russia's border posts" in first["input"][-1]["content"]
    compile((tmp_path / "task" / "cfpd_t.py").read_text(), "cfpd_t.py", "exec")


def test_an_unknown_benchmark_or_condition_is_refused(benchmark, tmp_path):
    with pytest.raises(CommandError, match="no benchmark named 'x' \\(benchmarks: t\\)"):
        call_command("export_inspect_task", "--benchmark", "x", "--out", tmp_path)
    with pytest.raises(CommandError, match="no condition named 'nope'"):
        export(tmp_path, "--condition", "nope")


def inspect_eval(task_file, base_url, log_dir, *options):
    # Inspect globs the task's path from its working folder: a relative path, as a user types it.
    command = [str(formats_env.FORMATS_VENV / "bin" / "inspect"), "eval", task_file.name, "--model",
               "openai-api/fake/fake", "--model-base-url", base_url, "--log-dir", str(log_dir), "--display", "none",
               *options]
    env = dict(os.environ, FAKE_API_KEY="no-key", INSPECT_TELEMETRY="", PYTHONPATH="")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=task_file.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    [log] = list(log_dir.glob("*.eval"))
    return log


@pytest.mark.parametrize("prompt", ["ours", "inspect"])
def test_inspect_runs_the_exported_task_and_its_log_comes_back_coded(benchmark, tmp_path, prompt):
    formats_env.need("inspect_ai")
    export(tmp_path)
    with FakeOpenAI(seed=1) as fake:
        log = inspect_eval(tmp_path / "task" / "cfpd_t.py", fake.base_url, tmp_path / "logs", "--epochs", "2",
                           "-T", f"prompt={prompt}")
    out = io.StringIO()
    call_command("import_inspect_log", log, "--benchmark", "t", stdout=out)
    run = Run.objects.get(kind=Run.Kind.IMPORT)
    assert f"imported 8 answers of openai-api-fake-fake as run {run.pk} (t)" in out.getvalue()  # 4 questions x 2
    responses = list(run.responses.select_related("question").order_by("question__key", "repeat"))
    assert [(r.question.key, r.repeat) for r in responses] == [(k, e) for k in KEYS for e in (0, 1)]
    sent = {r["id"]: r["input"] for r in map(json.loads, (tmp_path / "task" / "dataset.jsonl").open())}
    for response in responses:
        # The fake answers "<letter>: I would choose option <letter> …"; the generic encoder reads it.
        letter = response.raw_output[0]
        assert response.code == letter and response.code_source
        if prompt == "ours":
            # Our prompt letters 'A: …' lines, so the fake picks among the question's own options.
            assert letter in "ABC"[:response.question.choice_count]
            assert response.messages == sent[response.question.key]  # exactly the messages our dataset holds
        else:
            assert "ANSWER: $LETTER" in response.messages[0]["content"]
