"""formats_app.hf_dataset: a dataset card's YAML and the types of families' fields (pure)."""

import pyarrow as pa
import pytest
import yaml

from formats_app.hf_dataset import as_type, card, features_dict, infer_type


def test_the_card_names_config_split_and_features():
    schema = pa.schema([("key", pa.string()), ("choices", pa.list_(pa.string())), ("n", pa.int32()),
                        ("at", pa.timestamp("us", tz="UTC"))])
    text = card(schema=schema, rows=3, pretty_name='Q "x"', description="d", bytes_written=10, tags=["a"],
                task_categories=["multiple-choice"], body="b")
    header = yaml.safe_load(text.split("---")[1])
    assert header["pretty_name"] == 'Q "x"'
    assert header["configs"] == [{"config_name": "default", "data_files": [{"split": "test",
                                                                            "path": "data/test-*.parquet"}]}]
    assert header["dataset_info"]["features"] == [
        {"name": "key", "dtype": "string"}, {"name": "choices", "list": "string"}, {"name": "n", "dtype": "int32"},
        {"name": "at", "dtype": "timestamp[us, tz=UTC]"}]
    assert header["dataset_info"]["splits"] == [{"name": "test", "num_bytes": 10, "num_examples": 3}]
    assert features_dict(schema)["choices"] == {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}


@pytest.mark.parametrize("values, expected", [
    (["a", None], pa.string()), ([1, 2, None], pa.int64()), ([1, 2.5], pa.float64()), ([True, None], pa.bool_()),
    ([["CN", "RU"], []], pa.list_(pa.string())), ([{"a": 1}], pa.string()), ([None], pa.string()),
    ([1, True], pa.string()),  # a mix of numbers and booleans is carried as JSON text
])
def test_a_family_fields_type_follows_its_values(values, expected):
    assert infer_type(values) == expected


def test_other_values_are_carried_as_json_text():
    assert as_type({"a": 1}, pa.string()) == '{"a": 1}' and as_type(True, pa.string()) == "true"
    assert as_type(3, pa.int64()) == 3 and as_type(None, pa.string()) is None


def test_the_eval_yaml_names_the_benchmark_its_framework_and_its_one_task():
    from formats_app.hf_dataset import eval_yaml

    text = eval_yaml(name='Demo: "questions"', description="Two lines\nof text", task_id="demo",
                     framework="cfpd-workbench")
    assert yaml.safe_load(text) == {
        "name": 'Demo: "questions"', "description": "Two lines\nof text", "evaluation_framework": "cfpd-workbench",
        "tasks": [{"id": "demo", "config": "default", "split": "test"}]}
