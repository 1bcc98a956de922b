"""formats_app.inspect_log: Inspect eval logs written and read without Inspect (pure)."""

import json
import re
import zipfile
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats_app.inspect_log import (Answer, LogError, build_log, build_sample, model_slug, read_log,
                                     write_eval_archive)

WHEN = datetime(2026, 11, 25, 12, 0, 10, tzinfo=timezone.utc)


def answer(**changes):
    fields = dict(question_key="t/q1", condition="default", repeat=1,
                  messages=[{"role": "user", "content": "Q?"}], output="B: strike", choices=["Talk", "Strike"],
                  finish_reason="length", prompt_tokens=12, completion_tokens=3, latency_ms=2500, answered_at=WHEN,
                  code="B", presented_letter="B", code_metadata={"source": "rule", "reason": "leading-letter"})
    fields.update(changes)
    return Answer(**fields)


def test_a_sample_carries_the_answer_its_code_usage_and_time():
    sample = build_sample(answer(), "m/x", several_conditions=False)
    assert (sample["id"], sample["epoch"]) == ("t/q1", 2)  # repeat 1 is Inspect's second epoch
    assert sample["messages"][-1] == {"role": "assistant", "content": "B: strike", "source": "generate", "model": "m/x"}
    assert sample["output"]["choices"][0]["stop_reason"] == "max_tokens"  # OpenAI's "length"
    assert sample["output"]["usage"] == {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}
    assert sample["output"]["time"] == 2.5
    assert sample["started_at"] == "2026-11-25T12:00:07.500000+00:00"  # 12:00:10 minus 2.5 s
    assert sample["scores"]["code"] == {"value": "B", "answer": "B", "explanation": "leading-letter",
                                        "metadata": {"source": "rule", "reason": "leading-letter"}}
    assert sample["metadata"]["condition"] == "default" and sample["choices"] == ["Talk", "Strike"]


def test_an_uncoded_or_failed_answer_has_no_score_and_a_failure_its_error():
    failed = build_sample(answer(code="", error="timed out", output=""), "m/x", several_conditions=True)
    assert "scores" not in failed and failed["error"]["message"] == "timed out"
    assert failed["output"]["choices"] == [] and failed["id"] == "t/q1@default"


def test_the_logs_metrics_are_the_shares_of_each_code():
    answers = [answer(code="A"), answer(code="A", repeat=2), answer(code="R", repeat=3), answer(code="", repeat=4)]
    log = build_log(task="t", model="m/x", answers=answers, run_id=7, created=WHEN, started=WHEN, finished=WHEN,
                    repeats=5)
    metrics = log["results"]["scores"][0]["metrics"]
    # 3 coded answers: A twice (2/3), R once (1/3); the uncoded one counts in unscored_samples.
    assert metrics["coded"]["value"] == 3
    assert metrics["share_A"]["value"] == pytest.approx(0.666667) and metrics["share_R"]["value"] == pytest.approx(
        0.333333)
    assert log["results"]["scores"][0]["unscored_samples"] == 1
    assert log["stats"]["model_usage"]["m/x"] == {"input_tokens": 48, "output_tokens": 12, "total_tokens": 60}
    assert log["eval"]["dataset"]["sample_ids"] == ["t/q1"] and log["eval"]["config"]["epochs"] == 5


def test_a_written_log_reads_back(tmp_path):
    log = build_log(task="t", model="openai/gpt-x", answers=[answer(), answer(condition="hawk", repeat=0)],
                    run_id=1, created=WHEN, started=WHEN, finished=WHEN)
    (tmp_path / "a.json").write_text(json.dumps(log))
    read = read_log(tmp_path / "a.json")
    assert read.model == "openai/gpt-x" and not read.problems
    assert [(a.question_key, a.condition, a.repeat, a.output, a.finish_reason, a.latency_ms) for a in read.answers] \
        == [("t/q1", "default", 1, "B: strike", "length", 2500), ("t/q1", "hawk", 0, "B: strike", "length", 2500)]
    assert read.answers[0].messages == [{"role": "user", "content": "Q?"}]


def test_an_eval_archive_with_attachments_reads(tmp_path):
    header = {"eval": {"task": "mc", "model": "m/x"}}
    sample = {"id": "t/q2", "epoch": 1, "input": "attachment://abc",
              "messages": [{"role": "user", "content": "attachment://abc"}, {"role": "assistant", "content": "A"}],
              "output": {"completion": "A"}, "attachments": {"abc": "The long prompt"}}
    with zipfile.ZipFile(tmp_path / "x.eval", "w") as archive:
        archive.writestr("header.json", json.dumps(header))
        archive.writestr("samples/t/q2_epoch_1.json", json.dumps(sample))
    read = read_log(tmp_path / "x.eval")
    assert [(a.question_key, a.output, a.messages) for a in read.answers] == [
        ("t/q2", "A", [{"role": "user", "content": "The long prompt"}])]


def test_a_zip_that_is_no_eval_log_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "x.eval", "w") as archive:
        archive.writestr("other.txt", "hello")
    with pytest.raises(LogError, match="without header.json"):
        read_log(tmp_path / "x.eval")


@given(st.text(max_size=200))
def test_a_model_slug_is_always_a_registrable_name(name):
    slug = model_slug(name)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,80}", slug)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                 max_size=4), max_leaves=20)
_sample = st.fixed_dictionaries({}, optional={
    "id": _json | st.text(max_size=10), "epoch": _json | st.integers(1, 3),
    "input": _json, "messages": _json, "metadata": _json, "error": _json,
    "attachments": _json,
    "output": st.fixed_dictionaries({}, optional={"completion": _json, "choices": _json, "usage": _json,
                                                  "time": _json})})


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.fixed_dictionaries({"eval": st.fixed_dictionaries({"model": st.text(max_size=30)}),
                              "samples": st.lists(_sample | _json, max_size=5)}))
def test_any_json_log_is_read_or_refused_with_a_reason_never_a_crash(tmp_path_factory, log):
    path = tmp_path_factory.mktemp("fuzz") / "log.json"
    path.write_text(json.dumps(log))
    try:
        read = read_log(path)
    except LogError:
        return
    for answer in read.answers:
        assert isinstance(answer.output, str) and isinstance(answer.question_key, str) and answer.repeat >= 0
        assert all(isinstance(m["content"], str) and m["role"] in {"system", "user", "assistant", "tool"}
                   for m in answer.messages)


def test_a_log_file_is_named_as_inspect_view_lists_it():
    import re
    from datetime import datetime, timedelta, timezone

    from formats_app.inspect_log import log_file_name

    name = log_file_name(created=datetime(2026, 11, 26, 9, 5, 7, tzinfo=timezone(timedelta(hours=1))),
                         task="my_bench", run_id=4, model="local/gemma_3")
    assert name == "2026-11-26T08-05-07+00-00_my-bench_run4-local-gemma-3.json"  # 09:05 at +01:00 is 08:05 UTC
    # inspect_ai.log._file: a .json log is listed when its name matches this, and split on "_".
    assert re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*$", name) and len(name.split("_")) == 3


def test_the_logs_epochs_are_the_repeats_its_answers_carry_not_the_runs_setting():
    # A run set up with 5 repeats whose answers were asked once (choice mode asks once):
    # Inspect shows samples x epochs, so 5 would read as "0.4 x 5 samples" for 2 answers.
    answers = [answer(repeat=0), answer(question_key="t/q2", repeat=0)]
    log = build_log(task="t", model="m/x", answers=answers, run_id=7, created=WHEN, started=WHEN, finished=WHEN,
                    repeats=5)
    assert log["eval"]["config"]["epochs"] == 1 and log["eval"]["dataset"]["samples"] == 2


def test_an_eval_archive_has_inspects_members_and_reads_back(tmp_path):
    answers = [answer(repeat=0, code="B"), answer(repeat=1, code="A"), answer(repeat=2, code="B"),
               answer(question_key="t/q2", repeat=0, code="", error="timed out", output="")]
    log = build_log(task="t", model="m/x", answers=answers, run_id=7, created=WHEN, started=WHEN, finished=WHEN)
    write_eval_archive(log, tmp_path / "run.eval")
    with zipfile.ZipFile(tmp_path / "run.eval") as archive:
        names = archive.namelist()
        header = json.loads(archive.read("header.json"))
        summaries = json.loads(archive.read("summaries.json"))
        reductions = json.loads(archive.read("reductions.json"))
        start = json.loads(archive.read("_journal/start.json"))
    assert names == ["_journal/start.json", "samples/t/q1_epoch_1.json", "samples/t/q1_epoch_2.json",
                     "samples/t/q1_epoch_3.json", "samples/t/q2_epoch_1.json", "summaries.json",
                     "reductions.json", "header.json"]
    assert "samples" not in header and header["eval"] == log["eval"] and header["results"] == log["results"]
    assert set(start) == {"version", "eval", "plan"}
    assert [(s["id"], s["epoch"], s["error"], s["completed"]) for s in summaries] == [
        ("t/q1", 1, None, True), ("t/q1", 2, None, True), ("t/q1", 3, None, True), ("t/q2", 1, "timed out", True)]
    assert "messages" not in summaries[0] and "output" not in summaries[0]
    # Inspect's mode reducer: t/q1 coded B, A, B -> B; t/q2 has no code, so no reduction.
    assert reductions == [{"scorer": "code", "reducer": "mode", "samples": [{"value": "B", "sample_id": "t/q1"}]}]
    read = read_log(tmp_path / "run.eval")
    assert [(a.question_key, a.repeat, a.output) for a in read.answers] == [
        ("t/q1", 0, "B: strike"), ("t/q1", 1, "B: strike"), ("t/q1", 2, "B: strike")]
    assert read.skipped == ["sample 't/q2' epoch 1: timed out"]
