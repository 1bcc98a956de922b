"""The bundled models as a LiteLLM provider, `cfpd-local/<alias>`: every call still goes
through `litellm.completion`, and the answer comes back in OpenAI's shape (message,
first-token log-probabilities, usage), so the run engine reads it exactly as it reads
vLLM or a provider. No Django here; `configure` is called once Django's settings are read.

Choice mode is recognised the way a vLLM server recognises it: `extra_body.guided_choice`
(or a llama.cpp GBNF grammar listing letters) with one token to generate.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from pathlib import Path

from .local_runtime import LocalModelError, LocalRuntime

PROVIDER = "cfpd-local"
_GRAMMAR_LETTER = re.compile(r'"([A-Z])"')

_config = {"models_dir": Path(os.environ.get("CFPD_MODELS_DIR", "var/models")), "threads": 1}
_runtime: LocalRuntime | None = None
_runtime_lock = threading.Lock()


def configure(models_dir: Path, threads: int = 1) -> None:
    global _runtime
    with _runtime_lock:
        if _config != {"models_dir": Path(models_dir), "threads": threads}:
            _config.update(models_dir=Path(models_dir), threads=threads)
            _runtime = None


def runtime() -> LocalRuntime:
    """This process's runtime (models load on first use and stay loaded)."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = LocalRuntime(_config["models_dir"], _config["threads"])
        return _runtime


def choice_letters(optional_params: dict) -> list[str] | None:
    extra = optional_params.get("extra_body") or {}
    if isinstance(extra.get("guided_choice"), list):
        return [str(letter) for letter in extra["guided_choice"]]
    if isinstance(extra.get("grammar"), str):
        return _GRAMMAR_LETTER.findall(extra["grammar"]) or None
    return None


@functools.cache
def handler():
    """The LiteLLM handler, built on first use (LiteLLM is imported lazily, see llm.py)."""
    from litellm.llms.custom_llm import CustomLLM, CustomLLMError
    from litellm.types.utils import ChatCompletionTokenLogprob, ChoiceLogprobs, TopLogprob, Usage

    def choice_logprobs(result: dict) -> ChoiceLogprobs:
        top = [TopLogprob(token=token, logprob=value, bytes=None) for token, value in result["token_logprobs"]]
        chosen = result["letter"]
        return ChoiceLogprobs(content=[ChatCompletionTokenLogprob(
            token=chosen, logprob=result["letter_logprobs"][chosen], bytes=None, top_logprobs=top)])

    class LocalProvider(CustomLLM):
        def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,
                       encoding, api_key, logging_obj, optional_params, *args, **kwargs):
            try:
                loaded = runtime().model(model.split("/", 1)[-1])
                letters = choice_letters(optional_params)
                if letters:
                    result = loaded.choice(messages, letters)
                    text, completion_tokens, finish = result["letter"], 1, "stop"
                    logprobs = choice_logprobs(result)
                else:
                    result = loaded.generate(messages, max_tokens=optional_params.get("max_tokens") or 256,
                                             temperature=optional_params.get("temperature") or 0.0,
                                             top_p=optional_params.get("top_p"), seed=optional_params.get("seed"))
                    text, completion_tokens = result["text"], result["completion_tokens"]
                    finish, logprobs = result["finish_reason"], None
            except LocalModelError as exc:
                raise CustomLLMError(status_code=400, message=str(exc)) from exc
            model_response.model = f"{PROVIDER}/{loaded.alias}"
            choice = model_response.choices[0]
            choice.message.content = text
            choice.finish_reason = finish
            if logprobs is not None:
                choice.logprobs = logprobs
            model_response.usage = Usage(prompt_tokens=result["prompt_tokens"], completion_tokens=completion_tokens,
                                         total_tokens=result["prompt_tokens"] + completion_tokens)
            return model_response

    return LocalProvider()
