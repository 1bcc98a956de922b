"""Inspect AI eval logs both ways (issue 30): a run exported and read back by Inspect's
own `read_eval_log`; logs Inspect itself wrote (its `eval` against the fake server, its
`write_eval_log`) imported as a run whose answers the encoder codes."""

import io
import json
import textwrap
import zipfile
from datetime import timezone

import pytest
from django.core.management import CommandError, call_command

from encoding_app.models import Code, ReviewTask
from formats_app import inspect_services
from runs_app import services
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests import formats_env
from tests.factories import escalation_spec, three_option_spec
from tests.fakes.fake_openai import FakeOpenAI

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.embedded_pass(reason=(
        "a file format (Inspect AI eval logs) read by Inspect itself; the answer rows it imports "
        "go through the one importer tested in both passes"))]

KEY_1, KEY_2 = "t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full"


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t")
    authoring.save_spec(benchmark, escalation_spec())
    return benchmark


def imported_run(rows) -> Run:
    text = "question_key,model,repeat,output\n" + "".join(f"{k},{m},{r},{o}\n" for k, m, r, o in rows)
    result = services.import_responses(text)
    assert not result.problems, result.problems
    return result.run


READ_BACK = textwrap.dedent("""
    import json, sys
    from inspect_ai.log import read_eval_log
    log = read_eval_log(sys.argv[1])
    print(json.dumps({
        "status": log.status, "task": log.eval.task, "model": log.eval.model, "epochs": log.eval.config.epochs,
        "samples": [{"id": s.id, "epoch": s.epoch, "input": [[m.role, m.text] for m in s.input],
                     "choices": s.choices, "completion": s.output.completion,
                     "score": s.scores["code"].value if s.scores else None,
                     "answer": s.scores["code"].answer if s.scores else None,
                     "score_metadata": s.scores["code"].metadata if s.scores else None,
                     "metadata": s.metadata, "usage": s.output.usage.total_tokens if s.output.usage else None}
                    for s in log.samples],
        "metrics": {k: m.value for k, m in log.results.scores[0].metrics.items()},
    }))
""")


def test_a_run_exported_is_read_back_by_inspects_own_reader(benchmark, tmp_path):
    formats_env.need("inspect_ai")
    run = imported_run([(KEY_1, "m1", 0, "B: Strike them."), (KEY_1, "m1", 1, "A"),
                        (KEY_2, "m1", 0, "I cannot choose among these options.")])
    # The messages as an engine's run stores them (imports carry none).
    Response.objects.filter(run=run).update(messages=[{"role": "system", "content": "Be brief."},
                                                      {"role": "user", "content": "What now?"}],
                                            prompt_tokens=7, completion_tokens=3)
    out = io.StringIO()
    call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "run.json", stdout=out)
    assert f"wrote {tmp_path / 'run.json'}" in out.getvalue()
    read = formats_env.run_python(READ_BACK, tmp_path / "run.json")
    assert (read["status"], read["task"], read["model"], read["epochs"]) == ("success", "t", "m1", 2)
    samples = {(s["id"], s["epoch"]): s for s in read["samples"]}
    assert sorted(samples) == [(KEY_1, 1), (KEY_1, 2), (KEY_2, 1)]
    first = samples[(KEY_1, 1)]
    assert first["input"] == [["system", "Be brief."], ["user", "What now?"]]
    assert first["completion"] == "B: Strike them."
    assert first["choices"] == ["Withdraw and reopen talks with Russia", "Strike Russia's border posts"]
    assert (first["score"], first["answer"]) == ("B", "B")
    assert first["score_metadata"]["source"] == Code.objects.get(response__repeat=0, response__question__key=KEY_1,
                                                                  is_current=True).source
    assert first["metadata"]["question_key"] == KEY_1 and first["metadata"]["condition"] == "default"
    assert first["metadata"]["repeat"] == 0 and first["usage"] == 10  # 7 prompt + 3 completion tokens
    # The family's fields (Family.sample_metadata): CFPD's scenario, domain, dyad and categories.
    assert {k: first["metadata"][k] for k in ("scenario", "domain", "actor_a", "actor_b", "qualified_actor",
                                              "option_categories")} == {
        "scenario": "esc-test", "domain": "escalation", "actor_a": "CN", "actor_b": "RU", "qualified_actor": "CN",
        "option_categories": ["no-force", "use-of-force"]}
    assert samples[(KEY_1, 2)]["score"] == "A"
    # The refusal: coded R, or left to the reviewers (then no score).
    refusal = Response.objects.get(question__key=KEY_2)
    assert samples[(KEY_2, 1)]["score"] == (refusal.code or None)
    coded = [s["score"] for s in read["samples"] if s["score"]]
    assert read["metrics"]["coded"] == len(coded)
    assert read["metrics"]["share_A"] == pytest.approx(coded.count("A") / len(coded))


READ_EVAL_FILE = textwrap.dedent("""
    import json, sys
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
    log = read_eval_log(sys.argv[1])
    summaries = read_eval_log_sample_summaries(sys.argv[1])
    print(json.dumps({
        "status": log.status, "model": log.eval.model, "epochs": log.eval.config.epochs,
        "samples": sorted([s.id, s.epoch, s.output.completion, s.scores["code"].value if s.scores else None]
                          for s in log.samples),
        "summaries": sorted([s.id, s.epoch, s.completed] for s in summaries),
        "reductions": [[r.scorer, r.reducer, sorted([x.sample_id, x.value] for x in r.samples)]
                       for r in log.reductions or []],
    }))
""")


def test_a_run_exported_to_a_dot_eval_path_is_an_eval_file_inspect_reads(benchmark, tmp_path):
    # Issue 38: `--out run.eval` made a folder named run.eval holding a .json log, which
    # read_eval_log refused; .eval is Inspect's default format (a zip).
    formats_env.need("inspect_ai")
    run = imported_run([(KEY_1, "m1", 0, "B: Strike them."), (KEY_1, "m1", 1, "B"), (KEY_1, "m1", 2, "A"),
                        (KEY_2, "m1", 0, "A")])
    out = io.StringIO()
    call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "run.eval", stdout=out)
    assert f"wrote {tmp_path / 'run.eval'} (" in out.getvalue()
    assert (tmp_path / "run.eval").is_file() and zipfile.is_zipfile(tmp_path / "run.eval")
    read = formats_env.run_python(READ_EVAL_FILE, tmp_path / "run.eval")
    assert (read["status"], read["model"], read["epochs"]) == ("success", "m1", 3)
    assert read["samples"] == [[KEY_1, 1, "B: Strike them.", "B"], [KEY_1, 2, "B", "B"], [KEY_1, 3, "A", "A"],
                               [KEY_2, 1, "A", "A"]]
    assert read["summaries"] == [[KEY_1, 1, True], [KEY_1, 2, True], [KEY_1, 3, True], [KEY_2, 1, True]]
    # Inspect's mode reducer over the epochs: KEY_1 coded B, B, A -> B.
    assert read["reductions"] == [["code", "mode", [[KEY_1, "B"], [KEY_2, "A"]]]]
    # And our own importer reads it back.
    result = inspect_services.import_inspect_log(tmp_path / "run.eval", benchmark_name="t")
    assert not result.problems and result.created == 4


def test_a_run_of_two_models_exported_to_a_file_path_is_one_file_per_model_named_from_it(benchmark, tmp_path):
    run = imported_run([(KEY_1, "m1", 0, "A"), (KEY_1, "m2", 0, "B")])
    out = io.StringIO()
    call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "run.eval", stdout=out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run-m1.eval", "run-m2.eval"]
    assert f"wrote {tmp_path / 'run-m1.eval'}" in out.getvalue() and f"wrote {tmp_path / 'run-m2.eval'}" in \
        out.getvalue()
    call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "j" / "run.json", stdout=io.StringIO())
    assert sorted(p.name for p in (tmp_path / "j").iterdir()) == ["run-m1.json", "run-m2.json"]
    assert json.loads((tmp_path / "j" / "run-m2.json").read_text())["eval"]["model"] == "m2"
    if formats_env.PYTHON.exists():
        formats_env.need("inspect_ai")
        read = formats_env.run_python(READ_EVAL_FILE, tmp_path / "run-m2.eval")
        assert (read["model"], read["samples"]) == ("m2", [[KEY_1, 1, "B", "B"]])


def test_a_filtered_set_of_answers_is_exported_and_a_bad_filter_is_named(benchmark, tmp_path):
    run = imported_run([(KEY_1, "m1", 0, "B: Strike them."), (KEY_1, "m1", 1, "A"), (KEY_2, "m1", 0, "A"),
                        (KEY_1, "m2", 0, "B")])
    # The answers list's filter: only m1's answers containing "Strike" (one of its three).
    call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "picked.json", "--model", "m1",
                 "--answers", "q=Strike", stdout=io.StringIO())
    log = json.loads((tmp_path / "picked.json").read_text())
    assert [(s["id"], s["epoch"], s["output"]["completion"]) for s in log["samples"]] == [
        (KEY_1, 1, "B: Strike them.")]
    # By code across models: both models' B answers, one log each.
    paths = inspect_services.write_inspect_logs(run, tmp_path / "codes", picked=inspect_services.picked_answers(
        "code=B"))
    assert {p.name.split("_")[-1]: [s["output"]["completion"] for s in json.loads(p.read_text())["samples"]]
            for p in paths} == {f"run{run.pk}-m1.json": ["B: Strike them."], f"run{run.pk}-m2.json": ["B"]}
    with pytest.raises(CommandError, match="--answers: code must be one of"):
        call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "x.json", "--answers", "code=Q")
    assert not (tmp_path / "x.json").exists()


def test_a_run_with_two_models_is_written_as_one_log_each(benchmark, tmp_path):
    run = imported_run([(KEY_1, "m1", 0, "A"), (KEY_1, "m2", 0, "B")])
    paths = inspect_services.write_inspect_logs(run, tmp_path / "logs")
    # Named as Inspect names its logs ({time}_{task}_{id}), which `inspect view` needs to list a .json log.
    stamp = run.created_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    assert [p.name for p in paths] == [f"{stamp}_t_run{run.pk}-m1.json", f"{stamp}_t_run{run.pk}-m2.json"]
    second = json.loads(paths[1].read_text())
    assert second["eval"]["model"] == "m2" and [s["output"]["completion"] for s in second["samples"]] == ["B"]
    with pytest.raises(CommandError, match="has no model 'm3' \\(its models: m1, m2\\)"):
        call_command("export_inspect_log", "--run", run.pk, "--out", tmp_path / "x.json", "--model", "m3")
    with pytest.raises(CommandError, match="no run 999"):
        call_command("export_inspect_log", "--run", 999, "--out", tmp_path / "x.json")


LISTED = textwrap.dedent("""
    import json, sys
    from inspect_ai.log import list_eval_logs
    print(json.dumps(sorted(info.name.rsplit("/", 1)[-1] for info in list_eval_logs(sys.argv[1]))))
""")


def test_a_runs_logs_are_listed_by_inspect_as_inspect_view_lists_them(benchmark, tmp_path):
    formats_env.need("inspect_ai")
    run = imported_run([(KEY_1, "m1", 0, "A"), (KEY_1, "m2", 0, "B")])
    paths = inspect_services.write_inspect_logs(run, tmp_path / "logs")
    # list_eval_logs is what `inspect view` lists a folder with: a .json log named otherwise is not shown.
    assert formats_env.run_python(LISTED, tmp_path / "logs") == sorted(p.name for p in paths)


def test_our_own_log_imports_back_as_a_run_with_the_same_answers(benchmark, tmp_path):
    run = imported_run([(KEY_1, "m1", 0, "B: Strike them."), (KEY_2, "m1", 0, "A")])
    [path] = inspect_services.write_inspect_logs(run, tmp_path / "run.json")
    result = inspect_services.import_inspect_log(path, benchmark_name="t")
    assert not result.problems and result.created == 2
    assert sorted(result.run.responses.values_list("question__key", "raw_output", "code")) == [
        (KEY_1, "B: Strike them.", "B"), (KEY_2, "A", "A")]


INSPECT_EVAL = textwrap.dedent("""
    import json, sys
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.solver import multiple_choice
    keys, base_url, log_dir = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    samples = [Sample(id=key, input="How should China respond?", choices=["Talk", "Strike"], target="")
               for key in keys]
    [log] = eval(Task(dataset=MemoryDataset(samples), solver=multiple_choice()), model="openai-api/fake/fake",
                 model_base_url=base_url, epochs=2, display="none", log_dir=log_dir)
    print(json.dumps({"status": log.status, "location": log.location}))
""")


def test_a_log_inspect_wrote_against_the_fake_server_is_imported_and_coded(benchmark, tmp_path):
    formats_env.need("inspect_ai")
    with FakeOpenAI(seed=1) as fake:
        ran = formats_env.run_python(INSPECT_EVAL, json.dumps([KEY_1, KEY_2]), fake.base_url, tmp_path / "logs",
                                     env={"FAKE_API_KEY": "no-key"})
    assert ran["status"] == "success" and ran["location"].endswith(".eval")  # Inspect's default, a zip
    out = io.StringIO()
    call_command("import_inspect_log", ran["location"], "--benchmark", "t", stdout=out)
    run = Run.objects.get(kind=Run.Kind.IMPORT)
    assert f"imported 4 answers of openai-api-fake-fake as run {run.pk} (t)" in out.getvalue()
    assert LLMModel.objects.get(name="openai-api-fake-fake").is_external
    responses = list(run.responses.order_by("question__key", "repeat"))
    assert [(r.question.key, r.repeat) for r in responses] == [(KEY_1, 0), (KEY_1, 1), (KEY_2, 0), (KEY_2, 1)]
    for response in responses:
        # The fake answers "<letter>: I would choose option <letter> because …"; the encoder reads the letter.
        assert response.raw_output.endswith("the most reasonable of the options given.")
        assert response.code == response.raw_output[0] and response.code in "AB"
        assert response.resolved_model == "openai-api/fake/fake"
        assert response.messages[0]["role"] == "user" and "A) Talk" in response.messages[0]["content"]
        assert response.prompt_tokens > 0 and response.completion_tokens > 0 and response.latency_ms is not None


WRITE_LOG = textwrap.dedent("""
    import json, sys
    from inspect_ai.log import EvalLog, EvalSample, EvalSpec, EvalConfig, EvalDataset, write_eval_log
    from inspect_ai.model import ModelOutput, ChatMessageUser
    key, path = sys.argv[1], sys.argv[2]
    samples = [
        EvalSample(id="any-id", epoch=1, input=[ChatMessageUser(content="Q?")], target="",
                   output=ModelOutput.from_content("claude-x", "ANSWER: B"),
                   metadata={"question_key": key, "condition": "default"}),
        EvalSample(id=key, epoch=2, input="Q?", target="", output=ModelOutput.from_content("claude-x", "A")),
        EvalSample(id=key, epoch=3, input="Q?", target="", output=ModelOutput(model="claude-x"),
                   error={"message": "rate limited", "traceback": "", "traceback_ansi": ""}),
    ]
    log = EvalLog(status="success", eval=EvalSpec(created="2026-11-25T10:00:00+00:00", task="mc",
                  dataset=EvalDataset(name="mc"), model="anthropic/claude-x", config=EvalConfig()), samples=samples)
    write_eval_log(log, path)
    print(json.dumps({"written": path}))
""")


def test_a_log_written_by_inspects_write_eval_log_is_imported_and_errors_are_skipped(benchmark, tmp_path):
    formats_env.need("inspect_ai")
    formats_env.run_python(WRITE_LOG, KEY_1, tmp_path / "mc.json")
    out = io.StringIO()
    call_command("import_inspect_log", tmp_path / "mc.json", stdout=out)
    report = out.getvalue()
    assert "skipped sample 't/esc-test.v1.CN-RU.full' epoch 3: rate limited" in report
    assert "imported 2 answers of anthropic-claude-x" in report and "1 sample(s) skipped" in report
    run = Run.objects.get()
    # Inspect's multiple_choice template asks for 'ANSWER: B': the encoder reads it as a label.
    assert sorted(run.responses.values_list("repeat", "raw_output", "code")) == [(0, "ANSWER: B", "B"), (1, "A", "A")]
    # (an audit may sample a coded answer, by its id: not a reviewer asked to read it)
    assert not ReviewTask.objects.filter(response__run=run, purpose=ReviewTask.Purpose.PRIMARY).exists()


def write(tmp_path, log: dict):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    return path


def minimal_log(samples):
    return {"version": 2, "status": "success", "eval": {"task": "mc", "model": "m/x", "created": "2026-01-01"},
            "samples": samples}


def test_a_log_with_bad_samples_imports_nothing_and_names_each_one(benchmark, tmp_path):
    Benchmark.objects.create(name="other")
    authoring.save_spec(Benchmark.objects.get(name="other"), three_option_spec())
    path = write(tmp_path, minimal_log([
        {"id": "nope/q", "epoch": 1, "input": "Q", "target": "", "output": {"completion": "A"}},
        {"id": KEY_1, "epoch": 1, "input": "Q", "target": "", "output": {"completion": "A"}},
        {"id": KEY_1, "epoch": 1, "input": "Q", "target": "", "output": {"completion": "B"},
         "metadata": {"condition": "default"}},
        {"id": KEY_2, "epoch": 0, "input": "Q", "target": "", "output": {"completion": "A"}},
        {"id": "other/esc3-test.v1.CN-JP.full", "epoch": 1, "input": "Q", "target": "", "output": {}},
    ]))
    with pytest.raises(CommandError, match="problem\\(s\\); nothing was imported"):
        call_command("import_inspect_log", path, "--benchmark", "t", stdout=(out := io.StringIO()))
    report = out.getvalue()
    assert "sample 't/esc-test.v1.US-MX.full' epoch 0: epoch must be a whole number >= 1" in report
    assert "question 'other/esc3-test.v1.CN-JP.full' is not in benchmark t" in report
    # Without --benchmark the service's own checks speak, named by sample.
    result = inspect_services.import_inspect_log(write(tmp_path, minimal_log([
        {"id": "nope/q", "epoch": 1, "input": "Q", "target": "", "output": {"completion": "A"}},
        {"id": KEY_1, "epoch": 1, "input": "Q", "target": "", "output": {"completion": "A"}},
        {"id": KEY_1, "epoch": 1, "input": "Q", "target": "", "output": {"completion": "B"}}])))
    assert result.run is None
    assert "sample 'nope/q' epoch 1: no question with key 'nope/q' (keys are as export_questions writes them)" \
        in result.problems
    assert f"sample '{KEY_1}' epoch 1: ({KEY_1}, m-x, repeat 0) repeats line 3" in result.problems
    assert Run.objects.count() == 0 and Response.objects.count() == 0


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe not text", "not UTF-8 text"),
    (b"{not json", "not JSON"),
    (b"[1, 2]", "a JSON log is an object"),
    (b'{"samples": []}', "not an Inspect eval log"),
    (b"PK\x03\x04broken", "not JSON"),
])
def test_a_file_that_is_no_inspect_log_is_refused_with_a_reason(benchmark, tmp_path, content, message):
    path = tmp_path / "x.eval"
    path.write_bytes(content)
    with pytest.raises(CommandError):
        call_command("import_inspect_log", path, stdout=(out := io.StringIO()))
    assert message in out.getvalue()
    assert Run.objects.count() == 0


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="No such file"):
        call_command("import_inspect_log", tmp_path / "absent.eval")


def shown_in_reverse(run: Run, key: str) -> Response:
    """The answer to `key` as if its options had been shown in reverse (a balanced run):
    its letter B is then the canonical option A; coded again under that order."""
    from encoding_app.services import encode_answers

    response = Response.objects.get(run=run, question__key=key)
    Code.objects.filter(response=response).delete()
    ReviewTask.objects.filter(response=response).delete()
    Response.objects.filter(pk=response.pk).update(option_order=[1, 0], code="", code_source="")
    encode_answers([response.pk])
    return Response.objects.get(pk=response.pk)


def test_an_answer_shown_in_another_order_comes_back_with_its_own_code(benchmark, tmp_path):
    run = imported_run([(KEY_1, "m1", 0, "B"), (KEY_2, "m1", 0, "B")])
    # KEY_1's options were shown reversed: its "B" is the first option, canonical A.
    assert shown_in_reverse(run, KEY_1).code == "A"
    [path] = inspect_services.write_inspect_logs(run, tmp_path / "run.json")
    result = inspect_services.import_inspect_log(path, benchmark_name="t")
    assert not result.problems and result.created == 2
    assert sorted(result.run.responses.values_list("question__key", "raw_output", "option_order", "code")) == [
        (KEY_1, "B", [1, 0], "A"), (KEY_2, "B", [0, 1], "B")]
