"""The bundled local models as registered models, and their weights made ready (the
runtime's `prepare`, `check_ready`, re-exported: the engine's commands reach the weights
through this registry, part of the gateway's interface). No Django here.

They run in the worker's own process (`local_runtime.py`, torch on the CPU) behind the
LiteLLM provider `cfpd-local` (`local_provider.py`): no server, no port, no key.
"""

from __future__ import annotations

from dataclasses import dataclass

from .local_runtime import WEIGHTS, LocalModelError, check_ready, prepare
from .model_stack import loading  # the one lock every loader of a model or an encoder runs under

__all__ = ["BUNDLED", "BY_NAME", "RANK_SUFFIX", "TEXT_SUFFIX", "BundledModel", "LocalModelError", "WEIGHTS",
           "check_ready", "loading", "prepare", "rank_registration", "registration", "text_registration"]


@dataclass(frozen=True)
class BundledModel:
    name: str  # registered model name
    alias: str  # the runtime's model id: `cfpd-local/<alias>`

    @property
    def description(self) -> str:
        return WEIGHTS[self.alias].description


BUNDLED = [BundledModel("local-smollm2", "smollm2"), BundledModel("local-gemma3", "gemma3")]
# The same weights answering in free text (generate mode), so that the automatic encoder
# and the reviewers have real verbose answers to code.
TEXT_SUFFIX = "-text"
RANK_SUFFIX = "-rank"
BY_NAME = ({bundled.name: bundled for bundled in BUNDLED}
           | {bundled.name + TEXT_SUFFIX: bundled for bundled in BUNDLED}
           | {bundled.name + RANK_SUFFIX: bundled for bundled in BUNDLED})


def registration(bundled: BundledModel) -> dict:
    """Choice mode, constrained to the option letters (`guided_choice`): the letter with
    the highest probability among the options, every option's log-probability recorded.
    Gemma 3 270M base would rarely start with a letter unconstrained."""
    return {
        "litellm_model": f"cfpd-local/{bundled.alias}", "is_bundled": True, "api_base": "",
        "answer_mode": "choice", "choice_strategy": "guided_choice", "top_logprobs": 20, "temperature": 0,
        "max_tokens": 64, "max_concurrency": 1, "timeout_seconds": 120, "notes": bundled.description,
    }


def text_registration(bundled: BundledModel) -> dict:
    """The free-text variant's model row: sampled answers of a few dozen tokens."""
    return {**registration(bundled), "answer_mode": "generate", "temperature": 0.7, "max_tokens": 48,
            "notes": bundled.description + "; free text (generate mode), coded by the automatic encoder "
                                           "and reviewers"}


def rank_registration(bundled: BundledModel) -> dict:
    """The rank-classification variant: each option's text scored as the continuation of
    the question (BorderLines scores claimant names this way)."""
    return {**registration(bundled), "answer_mode": "rank",
            "notes": bundled.description + "; rank classification (log-probability of each option's text)"}
