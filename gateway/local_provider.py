"""The bundled models as a LiteLLM provider, `cfpd-local/<alias>`: every call still goes
through `litellm.completion`, and the answer comes back in OpenAI's shape (message,
first-token log-probabilities, usage), so the run engine reads it exactly as it reads
vLLM or a provider. No Django here; `configure` is called once Django's settings are read.

Choice mode is recognised the way a vLLM server recognises it: `extra_body.guided_choice`
(or a llama.cpp GBNF grammar listing letters) with one token to generate.

Rank classification comes as a vLLM server gets it: `litellm.text_completion` with a list
of prompts (prompt + each continuation), `echo=True`, `logprobs`, `max_tokens=0`, and
answers in OpenAI's completions shape (`text_offset`, `token_logprobs` per choice). One
difference: `extra_body.logprobs_from` says where the continuations begin (a character
offset shared by every prompt), because only their positions are scored — Gemma's
262k-word vocabulary makes every prompt position's log-probabilities the cost — so the
echoed prompt comes back as one unscored piece.
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


def stop_strings(stop) -> list[str]:
    """OpenAI's `stop` (a string or a list of them) as a list."""
    if isinstance(stop, str):
        return [stop]
    return [str(s) for s in stop or [] if s]


def echoed_prompts(messages: list[dict], optional_params: dict) -> tuple[list[str], int]:
    """The prompts of an echo request (LiteLLM's `text_completion` sends each as a user
    message) and where their scored part begins; LocalModelError names what is wrong."""
    prompts = [m.get("content") for m in messages]
    if not prompts or not all(isinstance(p, str) for p in prompts):
        raise LocalModelError("an echo request needs one or more text prompts")
    if optional_params.get("max_tokens") != 0:
        raise LocalModelError("the bundled models echo without generating: send max_tokens=0 with echo=True")
    start = (optional_params.get("extra_body") or {}).get("logprobs_from")
    if isinstance(start, bool) or not isinstance(start, int) or not 0 < start <= min(len(p) for p in prompts):
        raise LocalModelError("an echo request to the bundled models needs extra_body.logprobs_from: the "
                              "character where the scored part of every prompt begins (0 < it <= the shortest)")
    if any(p[:start] != prompts[0][:start] for p in prompts):
        raise LocalModelError("every prompt of an echo request must share its first logprobs_from characters")
    return prompts, start


@functools.cache
def handler():
    """The LiteLLM handler, built on first use (LiteLLM is imported lazily, see llm.py)."""
    from litellm.llms.custom_llm import CustomLLM, CustomLLMError
    from litellm.types.utils import (ChatCompletionTokenLogprob, ChoiceLogprobs, Logprobs, TextChoices,
                                     TextCompletionResponse, TopLogprob, Usage)

    def choice_logprobs(result: dict) -> ChoiceLogprobs:
        top = [TopLogprob(token=token, logprob=value, bytes=None) for token, value in result["token_logprobs"]]
        chosen = result["letter"]
        return ChoiceLogprobs(content=[ChatCompletionTokenLogprob(
            token=chosen, logprob=result["letter_logprobs"][chosen], bytes=None, top_logprobs=top)])

    def echo_scores(loaded, prompts: list[str], start: int, want_logprobs: bool) -> TextCompletionResponse:
        """Each prompt echoed, with its continuation's tokens scored, in OpenAI's completions
        shape, as vLLM answers it except that the shared prompt comes back as one unscored
        piece at offset 0; then the continuation's tokens at their offsets."""
        prompt = prompts[0][:start]
        scores = loaded.score_continuations(prompt, [p[start:] for p in prompts])
        prompt_tokens = len(loaded.text_ids(prompt))
        choices = []
        for index, (text, score) in enumerate(zip(prompts, scores)):
            # Every token scored is the continuation's, so every offset lies inside it, even
            # where decoding a prefix gives more characters than the continuation has.
            offsets = [start + min(offset, len(text) - start - 1) for offset in score["token_offsets"]]
            ends = offsets[1:] + [len(text)]
            logprobs = Logprobs(
                text_offset=[0, *offsets], token_logprobs=[None, *score["token_logprobs"]],
                tokens=[prompt, *(text[a:b] for a, b in zip(offsets, ends))],
                top_logprobs=[None, *({text[a:b]: v} for a, b, v in zip(offsets, ends, score["token_logprobs"]))])
            choices.append(TextChoices(index=index, text=text, finish_reason="length",
                                       logprobs=logprobs if want_logprobs else None))
        response = TextCompletionResponse()
        response.model = f"{PROVIDER}/{loaded.alias}"
        response.choices = choices
        total = sum(prompt_tokens + score["tokens"] for score in scores)
        response.usage = Usage(prompt_tokens=total, completion_tokens=0, total_tokens=total)
        return response

    class LocalProvider(CustomLLM):
        def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose,
                       encoding, api_key, logging_obj, optional_params, *args, **kwargs):
            # LiteLLM's text_completion reaches a custom provider's `completion` with
            # `litellm_params["text_completion"]` set and the completions parameters (echo,
            # logprobs, max_tokens) in optional_params, and returns a TextCompletionResponse
            # from it unchanged (litellm 1.105, main.text_completion).
            if (kwargs.get("litellm_params") or {}).get("text_completion") and optional_params.get("echo"):
                try:
                    prompts, start = echoed_prompts(messages, optional_params)
                    return echo_scores(runtime().model(model.split("/", 1)[-1]), prompts, start,
                                       optional_params.get("logprobs") is not None)
                except LocalModelError as exc:
                    raise CustomLLMError(status_code=400, message=str(exc)) from exc
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
                                             top_p=optional_params.get("top_p"), seed=optional_params.get("seed"),
                                             stop=stop_strings(optional_params.get("stop")))
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
