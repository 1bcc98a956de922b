"""A benchmark as an Inspect AI task (pure: no Django): a dataset file (JSON lines, one
record per question) and a small task module that reads it with Inspect's own
`json_dataset` and asks with Inspect's own solvers, so Inspect users run our questions
with their own models and bring the log back with `import_inspect_log`:

- `prompt=ours` (the default): the chat messages this product sends (the family's
  rendering, options lettered in canonical order) and Inspect's `generate()`;
- `prompt=inspect`: the question text and its options through Inspect's
  `multiple_choice()` template (questions without options left out).

Each sample's id is the question's key and its metadata carries `question_key` and
`condition`, which `import_inspect_log` reads; repeats are Inspect's epochs.
"""

from __future__ import annotations

import json
import re

DATASET_FILE = "dataset.jsonl"


def task_name(benchmark: str) -> str:
    """A Python identifier for the task function: 'demo-2' -> 'cfpd_demo_2'."""
    return "cfpd_" + (re.sub(r"\W+", "_", benchmark, flags=re.ASCII).strip("_") or "benchmark")


def record(*, key: str, messages: list[dict], text: str, choices: list[str] | None, metadata: dict) -> str:
    """One dataset line."""
    return json.dumps({"id": key, "input": messages, "question": text, "choices": choices or None, "target": "",
                       "metadata": metadata}, ensure_ascii=False)


TEMPLATE = '''"""Inspect AI task: the CFPD Workbench benchmark {benchmark!r} ({title}).

Written by `export_inspect_task`; {count} questions in {dataset} (one JSON record each).
These questions have no right answer: nothing is scored here. Bring the log back to CFPD
Workbench (`import_inspect_log LOG`), where each answer is coded (the option chosen, or a
refusal) and counted.

    inspect eval {module} --model openai/gpt-4o-mini --epochs 5
    inspect eval {module} -T prompt=inspect --model openai/gpt-4o-mini   # Inspect's multiple_choice template

prompt=ours (default): the chat messages CFPD Workbench sends{condition_note}, asked with generate().
prompt=inspect: the question and its options through Inspect's multiple_choice() (questions with options only).
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.solver import generate, multiple_choice

DATASET = Path(__file__).with_name({dataset!r})
_ROLES = {{"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}}


def _ours(record):
    messages = [_ROLES[m["role"]](content=m["content"]) for m in record["input"]]
    return Sample(id=record["id"], input=messages, choices=record["choices"], target="", metadata=record["metadata"])


def _inspect(record):
    return Sample(id=record["id"], input=record["question"], choices=record["choices"], target="",
                  metadata=record["metadata"])


@task
def {name}(prompt: str = "ours"):
    if prompt == "ours":
        dataset, solver = json_dataset(str(DATASET), _ours, name={benchmark!r}), generate()
    elif prompt == "inspect":
        dataset = json_dataset(str(DATASET), _inspect, name={benchmark!r}).filter(lambda sample: bool(sample.choices))
        solver = multiple_choice()
    else:
        raise ValueError(f"prompt must be 'ours' or 'inspect', not {{prompt!r}}")
    return Task(dataset=dataset, solver=solver, config=GenerateConfig(temperature={temperature!r},
                max_tokens={max_tokens!r}), metadata={{"producer": "cfpd-workbench", "benchmark": {benchmark!r}}})
'''


def task_module(*, benchmark: str, title: str, count: int, condition: str, temperature: float = 0.0,
                max_tokens: int = 256) -> tuple[str, str]:
    """(file name, source) of the task module."""
    name = task_name(benchmark)
    module = f"{name}.py"
    note = "" if condition == "default" else f" under the condition {condition!r}"
    source = TEMPLATE.format(benchmark=benchmark, title=(title or benchmark).replace('"""', "'''"), count=count,
                             dataset=DATASET_FILE, module=module, condition_note=note, name=name,
                             temperature=temperature, max_tokens=max_tokens)
    return module, source
