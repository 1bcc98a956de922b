"""Hugging Face dataset folders (issue 30): our exports loaded by `datasets.load_dataset`
itself with the right features, and a folder `datasets` wrote imported as a run."""

import io
import textwrap

import pyarrow.parquet as pq
import pytest
import yaml
from django.core.management import CommandError, call_command

from formats_app import hf_services
from runs_app import services
from runs_app.models import Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests import formats_env
from tests.factories import escalation_spec

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.embedded_pass(reason=(
        "a file format (Hugging Face dataset folders) read by datasets itself; the answer rows it "
        "imports go through the one importer tested in both passes"))]

KEY_1, KEY_2 = "t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full"

LOAD = textwrap.dedent("""
    import json, sys
    import datasets
    loaded = datasets.load_dataset(sys.argv[1])
    split = loaded["test"]
    print(json.dumps({"splits": list(loaded), "features": split.features.to_dict(), "rows": split.to_list()},
                     default=str))
""")


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t", title="Test escalation")
    authoring.save_spec(benchmark, escalation_spec())
    return benchmark


def test_the_questions_load_with_their_features(benchmark, tmp_path):
    formats_env.need("datasets")
    out = io.StringIO()
    call_command("export_hf_dataset", "--benchmark", "t", "--out", tmp_path / "q", stdout=out)
    assert "(2 rows," in out.getvalue()
    card = (tmp_path / "q" / "README.md").read_text()
    assert card.startswith("---\npretty_name: \"Test escalation: questions\"") and "num_examples: 2" in card
    # The Hub's benchmark file: one task, the card's config and split.
    assert yaml.safe_load((tmp_path / "q" / "eval.yaml").read_text())["tasks"] == [
        {"id": "t", "config": "default", "split": "test"}]
    loaded = formats_env.run_python(LOAD, tmp_path / "q", cwd=tmp_path)
    assert loaded["splits"] == ["test"]
    features = loaded["features"]
    assert features["question_key"] == {"dtype": "string", "_type": "Value"}
    assert features["choices"] == {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}
    assert features["choice_count"] == {"dtype": "int32", "_type": "Value"}
    first = loaded["rows"][0]
    assert first["question_key"] == KEY_1 and first["choices"] == ["Withdraw and reopen talks with Russia",
                                                                   "Strike Russia's border posts"]
    assert first["choice_count"] == 2 and first["family"] == "cfpd"
    # CFPD's own fields as columns (Family.sample_metadata), typed from their values.
    assert (first["domain"], first["qualified_actor"], first["scenario_version"]) == ("escalation", "CN", 1)
    assert features["scenario_version"]["dtype"] == "int64"
    assert features["option_categories"] == {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}


def test_a_runs_answers_load_with_their_codes_and_come_back_as_a_run(benchmark, tmp_path):
    formats_env.need("datasets")
    text = f"question_key,model,repeat,output\n{KEY_1},m1,0,B: Strike\n{KEY_1},m1,1,A\n{KEY_2},m1,0,I refuse.\n"
    run = services.import_responses(text).run
    call_command("export_hf_dataset", "--benchmark", "t", "--run", run.pk, "--out", tmp_path / "a",
                 stdout=io.StringIO())
    assert not (tmp_path / "a" / "eval.yaml").exists()  # a run's answers are no benchmark
    loaded = formats_env.run_python(LOAD, tmp_path / "a", cwd=tmp_path)
    features = loaded["features"]
    assert features["repeat"]["dtype"] == "int32" and features["chosen_option"]["dtype"] == "int32"
    assert features["answered_at"]["dtype"] == "timestamp[us, tz=UTC]"
    rows = {(r["question_key"], r["repeat"]): r for r in loaded["rows"]}
    assert (rows[(KEY_1, 0)]["code"], rows[(KEY_1, 0)]["chosen_option"], rows[(KEY_1, 0)]["chosen_text"]) == (
        "B", 1, "Strike Russia's border posts")  # B is the second option, index 1
    assert rows[(KEY_1, 1)]["chosen_option"] == 0 and rows[(KEY_1, 1)]["output"] == "A"
    out = io.StringIO()
    call_command("import_hf_dataset", tmp_path / "a", "--benchmark", "t", stdout=out)
    back = Run.objects.exclude(pk=run.pk).get()
    assert f"imported 3 answers as run {back.pk} (t)" in out.getvalue()
    assert sorted(back.responses.values_list("question__key", "repeat", "raw_output", "code")) == sorted(
        run.responses.values_list("question__key", "repeat", "raw_output", "code"))


def test_an_answer_to_options_shown_in_another_order_comes_back_with_its_own_code(benchmark, tmp_path):
    from encoding_app.models import Code, ReviewTask
    from encoding_app.services import encode_answers
    from runs_app.models import Response

    run = services.import_responses(f"question_key,model,repeat,output\n{KEY_1},m1,0,B\n{KEY_2},m1,0,B\n").run
    # KEY_1's options shown reversed (a balanced run): its letter B named the first option, A.
    reversed_answer = Response.objects.get(run=run, question__key=KEY_1)
    Code.objects.filter(response=reversed_answer).delete()
    ReviewTask.objects.filter(response=reversed_answer).delete()
    Response.objects.filter(pk=reversed_answer.pk).update(option_order=[1, 0], code="", code_source="")
    encode_answers([reversed_answer.pk])
    hf_services.write_hf_dataset(benchmark, tmp_path / "a", run=Run.objects.get(pk=run.pk))
    table = pq.read_table(next((tmp_path / "a").rglob("*.parquet")))
    assert sorted(zip(table.column("question_key").to_pylist(), table.column("option_order").to_pylist(),
                      table.column("code").to_pylist())) == [(KEY_1, [1, 0], "A"), (KEY_2, [0, 1], "B")]
    back = hf_services.import_hf_answers(tmp_path / "a", benchmark_name="t")
    assert not back.problems
    assert sorted(back.run.responses.values_list("question__key", "option_order", "code")) == [
        (KEY_1, [1, 0], "A"), (KEY_2, [0, 1], "B")]


WRITE = textwrap.dedent("""
    import json, sys
    import datasets
    folder = sys.argv[1]
    rows = {"question_key": [sys.argv[2], sys.argv[2]], "model": ["org/model-x", "org/model-x"],
            "repeat": [0, 1], "output": ["A", "The answer is B."]}
    datasets.Dataset.from_dict(rows).to_parquet(folder + "/data/test-00000-of-00001.parquet")
    print(json.dumps({"ok": True}))
""")


def test_a_folder_datasets_wrote_is_imported(benchmark, tmp_path):
    formats_env.need("datasets")
    (tmp_path / "d" / "data").mkdir(parents=True)
    formats_env.run_python(WRITE, tmp_path / "d", KEY_2, cwd=tmp_path)
    result = hf_services.import_hf_answers(tmp_path / "d")
    assert not result.problems and result.created == 2
    assert sorted(result.run.responses.values_list("model__name", "repeat", "code")) == [
        ("org-model-x", 0, "A"), ("org-model-x", 1, "B")]


def test_bad_folders_are_refused_with_a_reason(benchmark, tmp_path):
    assert hf_services.import_hf_answers(tmp_path / "absent").problems == ["folder: not a folder"]
    (tmp_path / "e").mkdir()
    assert "no Parquet file" in hf_services.import_hf_answers(tmp_path / "e").problems[0]
    (tmp_path / "e" / "data").mkdir()
    (tmp_path / "e" / "data" / "x.parquet").write_bytes(b"not parquet")
    assert "x.parquet: not a readable Parquet file" in hf_services.import_hf_answers(tmp_path / "e").problems[0]
    call_command("export_hf_dataset", "--benchmark", "t", "--out", tmp_path / "q", stdout=io.StringIO())
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_hf_dataset", tmp_path / "q", stdout=(out := io.StringIO()))
    assert "missing column(s) model, repeat, output" in out.getvalue()
    table = pq.read_table(tmp_path / "q" / "data" / "test-00000-of-00001.parquet")
    assert table.schema.metadata[b"huggingface"].startswith(b'{"info": {"features"')
    assert Run.objects.count() == 0
