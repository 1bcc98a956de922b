"""Hugging Face dataset folders (pure: no Django): a table written as Parquet under
`data/` with a dataset card (`README.md`) whose YAML header names the config, its data
files, its split and its features, so that `datasets.load_dataset(folder)` loads it with
those features; the same features ride in the Parquet schema's `huggingface` metadata,
which `datasets` also reads. Written with pyarrow (the product's), without `datasets`.

A benchmark's questions folder also gets an `eval.yaml` (`eval_yaml`), the file that makes
a dataset repository a *Benchmark* on the Hugging Face Hub (its leaderboard collects the
results models' repositories file under `.eval_results/`): a name, a description, the
framework that evaluates it and one task per config and split.

Read back (`read_table`): the Parquet files of a folder's data/ as plain rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SPLIT = "test"  # the questions and answers of an evaluation: Hugging Face's test split
DATA_DIR = "data"
MAX_ROWS_READ = 5_000_000


def _dtype(arrow_type: pa.DataType):
    """Hugging Face's name of an Arrow type (`Value` dtypes; `List` of one)."""
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return {"list": _dtype(arrow_type.value_type)}
    if pa.types.is_timestamp(arrow_type):
        return f"timestamp[{arrow_type.unit}" + (f", tz={arrow_type.tz}]" if arrow_type.tz else "]")
    names = {pa.string(): "string", pa.large_string(): "large_string", pa.int64(): "int64", pa.int32(): "int32",
             pa.int16(): "int16", pa.float64(): "float64", pa.float32(): "float32", pa.bool_(): "bool"}
    if arrow_type not in names:
        raise ValueError(f"no Hugging Face dtype for {arrow_type}")
    return names[arrow_type]


def features_dict(schema: pa.Schema) -> dict:
    """The features as `datasets.Features.to_dict()` writes them (the Parquet metadata)."""
    def feature(arrow_type):
        kind = _dtype(arrow_type)
        if isinstance(kind, dict):
            return {"feature": feature(arrow_type.value_type), "_type": "List"}
        return {"dtype": kind, "_type": "Value"}
    return {field.name: feature(field.type) for field in schema}


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def card(*, schema: pa.Schema, rows: int, pretty_name: str, description: str, bytes_written: int,
         tags: list[str], task_categories: list[str], body: str) -> str:
    """The dataset card: YAML metadata (configs, dataset_info with features and the split)
    and a Markdown body."""
    lines = ["---", f"pretty_name: {_scalar(pretty_name)}", "language:", "- en",
             "task_categories:", *[f"- {c}" for c in task_categories], "tags:", *[f"- {_scalar(t)}" for t in tags],
             "configs:", "- config_name: default", "  data_files:", f"  - split: {SPLIT}",
             f"    path: {DATA_DIR}/{SPLIT}-*.parquet", "dataset_info:", "  features:"]
    for field in schema:
        kind = _dtype(field.type)
        lines.append(f"  - name: {_scalar(field.name)}")
        if isinstance(kind, dict):
            lines.append(f"    list: {_scalar(kind['list'])}")
        else:
            lines.append(f"    dtype: {_scalar(kind)}")
    lines += ["  splits:", f"  - name: {SPLIT}", f"    num_bytes: {bytes_written}", f"    num_examples: {rows}",
              "---", "", f"# {pretty_name}", "", description, "", body.rstrip(), ""]
    return "\n".join(lines)


EVAL_FILE = "eval.yaml"


def eval_yaml(*, name: str, description: str, task_id: str, framework: str) -> str:
    """The Hub's benchmark file (huggingface.co/docs/hub/eval-results): one task, the
    folder's default config and its split."""
    lines = [f"name: {_scalar(name)}", f"description: {_scalar(description)}",
             f"evaluation_framework: {_scalar(framework)}", "tasks:", f"  - id: {_scalar(task_id)}",
             "    config: default", f"    split: {SPLIT}", ""]
    return "\n".join(lines)


def write_folder(out: str | Path, table: pa.Table, *, pretty_name: str, description: str, tags: list[str],
                 task_categories: list[str], body: str, benchmark: dict | None = None) -> tuple[Path, Path]:
    """(parquet path, card path) of the table written as a dataset folder; `benchmark`
    (eval_yaml's task_id and framework) adds the Hub's eval.yaml."""
    out = Path(out)
    (out / DATA_DIR).mkdir(parents=True, exist_ok=True)
    metadata = {b"huggingface": json.dumps({"info": {"features": features_dict(table.schema)}}).encode()}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    parquet = out / DATA_DIR / f"{SPLIT}-00000-of-00001.parquet"
    pq.write_table(table, parquet)
    readme = out / "README.md"
    readme.write_text(card(schema=table.schema, rows=table.num_rows, pretty_name=pretty_name, description=description,
                           bytes_written=parquet.stat().st_size, tags=tags, task_categories=task_categories,
                           body=body), encoding="utf-8")
    if benchmark is not None:
        (out / EVAL_FILE).write_text(eval_yaml(name=pretty_name, description=description, **benchmark),
                                     encoding="utf-8")
    return parquet, readme


def infer_type(values: list) -> pa.DataType:
    """The Arrow type of a family's field from its values (None ignored): text, whole
    numbers, numbers, booleans, lists of text; anything else is carried as JSON text."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64()
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.float64()
    if present and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in present):
        return pa.list_(pa.string())
    return pa.string()


def as_type(value: Any, arrow_type: pa.DataType) -> Any:
    if value is None or arrow_type != pa.string() or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class FolderError(ValueError):
    pass


def read_table(folder: str | Path) -> pa.Table:
    """The rows of a dataset folder: every Parquet file under data/ (or the folder itself), one table."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FolderError("not a folder")
    files = sorted((folder / DATA_DIR).glob("*.parquet")) or sorted(folder.glob("*.parquet"))
    if not files:
        raise FolderError(f"no Parquet file in {DATA_DIR}/ (a folder export_hf_dataset --run wrote)")
    tables = []
    for path in files:
        try:
            tables.append(pq.read_table(path))
        except (pa.ArrowInvalid, OSError) as exc:
            raise FolderError(f"{path.name}: not a readable Parquet file ({exc})") from None
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise FolderError(f"the Parquet files do not share their columns ({exc})") from None
    if table.num_rows > MAX_ROWS_READ:
        raise FolderError(f"{table.num_rows:,} rows: more than {MAX_ROWS_READ:,} are refused")
    return table
