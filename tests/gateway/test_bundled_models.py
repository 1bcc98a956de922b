"""The real bundled local models, run in this process by torch and reached through
LiteLLM's `cfpd-local` provider (the weights are converted once into the test models folder)."""

import math

import pytest

from gateway import local_provider
from runs_app import execution
from runs_app.models import LLMModel, Response, Run
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.factories import three_option_spec

pytestmark = pytest.mark.embedded_pass(reason=(
    "the bundled local models are the embedded default's (the demo's); their subject is torch "
    "and LiteLLM, not the database"))


@pytest.fixture
def unit(db):
    def make(model_name, **model_changes):
        model = LLMModel.objects.get(name=model_name)
        for name, value in model_changes.items():
            setattr(model, name, value)
        model.save()
        benchmark, _ = Benchmark.objects.get_or_create(name="t")
        scenario = authoring.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")])).scenario
        question = scenario.questions.get(cfpd__variant="full")
        run = Run.objects.create(benchmark=benchmark, use_cache=False)
        return Response.objects.create(run=run, question=question, model=model, option_order=[0, 1, 2])

    return make


@pytest.mark.parametrize("model_name", ["local-smollm2", "local-gemma3"])
def test_choice_mode_returns_a_letter_and_every_options_log_probability(unit, model_name):
    response = unit(model_name)
    assert execution.execute(response.pk).action == "done"
    response.refresh_from_db()
    assert response.status == "done" and response.chosen_letter in {"A", "B", "C"}
    assert set(response.option_logprobs) == {"A", "B", "C"}
    assert all(value is not None and value < 0 for value in response.option_logprobs.values())
    # The chosen letter is the most probable of the three, and the three are a part of
    # the full-vocabulary distribution (their probabilities sum to at most 1).
    assert response.chosen_letter == max(response.option_logprobs, key=response.option_logprobs.get)
    assert sum(math.exp(v) for v in response.option_logprobs.values()) <= 1 + 1e-6
    assert response.messages[1]["content"].endswith("C: Announce live-fire drills near Japan's convoy\nAnswer:")
    assert response.params["extra_body"] == {"guided_choice": ["A", "B", "C"]}
    assert response.resolved_model.startswith("cfpd-local/") and response.prompt_tokens > 50


def test_choice_mode_is_deterministic(unit):
    first, second = unit("local-smollm2"), unit("local-smollm2")
    for response in (first, second):
        execution.execute(response.pk)
        response.refresh_from_db()
    assert first.option_logprobs == second.option_logprobs


def test_generate_mode_returns_text(unit):
    response = unit("local-smollm2", answer_mode="generate", temperature=0.7, max_tokens=24)
    assert execution.execute(response.pk).action == "done"
    response.refresh_from_db()
    assert response.status == "done" and response.raw_output.strip()
    assert response.chosen_letter == "" and response.option_logprobs is None
    assert response.params["temperature"] == 0.7 and 1 <= response.completion_tokens <= 24


@pytest.mark.parametrize("alias", ["smollm2", "gemma3"])
def test_continuation_scores_are_log_probabilities_that_add_up(settings, alias):
    """Scoring " Paris" after a prompt equals the sum of its tokens' next-token
    log-probabilities, and a two-part continuation scores as its parts chained."""
    local_provider.configure(settings.CFPD_MODELS_DIR, 1)
    model = local_provider.runtime().model(alias)
    prompt = "The capital of France is"
    scores = model.score_continuations(prompt, [" Paris", " Paris, France", " a banana"])
    assert all(s["logprob"] < 0 and s["tokens"] >= 1 for s in scores)
    assert scores[0]["logprob"] > scores[2]["logprob"]  # even a 135M model knows this much
    # Chaining: log P(" Paris, France") = log P(" Paris") + log P(", France" | prompt + " Paris"),
    # when " Paris" tokenises the same inside both strings.
    tail = model.score_continuations(prompt + " Paris", [", France"])[0]
    if scores[1]["tokens"] == scores[0]["tokens"] + tail["tokens"]:
        assert scores[1]["logprob"] == pytest.approx(scores[0]["logprob"] + tail["logprob"], abs=1e-3)
    assert scores[1]["mean_logprob"] == pytest.approx(scores[1]["logprob"] / scores[1]["tokens"])


def test_sampled_text_is_reproducible_with_a_seed_and_stops_at_the_token_limit(settings):
    local_provider.configure(settings.CFPD_MODELS_DIR, 1)
    model = local_provider.runtime().model("smollm2")
    messages = [{"role": "user", "content": "Name three rivers of Europe."}]
    first = model.generate(messages, max_tokens=12, temperature=0.9, seed=7)
    again = model.generate(messages, max_tokens=12, temperature=0.9, seed=7)
    assert first == again and first["completion_tokens"] <= 12
    greedy = model.generate(messages, max_tokens=5, temperature=0)
    assert greedy["completion_tokens"] <= 5 and greedy == model.generate(messages, max_tokens=5, temperature=0)
    assert greedy["finish_reason"] in ("stop", "length")


def test_a_prompts_head_is_computed_once_and_changes_no_answer(settings):
    """Issue 45: the head a benchmark's prompts share (the chat template's opening and the
    system prompt) is computed once and its keys and values kept; the logits after a
    prompt are those of the whole prompt computed at once, whatever was asked before."""
    import torch

    local_provider.configure(settings.CFPD_MODELS_DIR, 1)
    model = local_provider.runtime().model("smollm2")
    system = {"role": "system", "content": "Answer with a single letter."}
    asks = [[system, {"role": "user", "content": f"Question {n}: should Actor A act? A: yes B: no\nAnswer:"}]
            for n in range(3)]
    other = [{"role": "system", "content": "You advise a government."}, asks[0][1]]
    ids = [model.prompt_ids(messages) for messages in asks]
    heads = {model.head_length(messages, i) for messages, i in zip(asks, ids)}
    assert len(heads) == 1 and 5 < heads.pop() < len(ids[0])  # one head, shorter than a prompt
    # It ends where the question's text begins: the head decodes to no part of it.
    head = model.head_length(asks[0], ids[0])
    assert "Question" not in model.tokenizer.decode(ids[0][:head])
    assert "Question" in model.tokenizer.decode(ids[0][head:head + 3])
    model._heads.clear()
    in_order = [model.choice(messages, ["A", "B"]) for messages in asks]
    assert len(model._heads) == 1  # three prompts, one head kept
    model.choice(other, ["A", "B"])
    assert len(model._heads) == 2  # another system prompt: a head of its own
    model._heads.clear()
    reversed_order = [model.choice(messages, ["A", "B"]) for messages in reversed(asks)][::-1]
    assert in_order == reversed_order  # exactly the same numbers, cold or warm
    with torch.inference_mode():
        whole = model.model(torch.tensor([ids[1]]), logits_to_keep=1).logits[0, -1]
    split = model.last_logits(asks[1], ids[1])
    assert torch.allclose(whole, split, atol=1e-3)  # the same prompt computed at once (float32 sums in another order)


def test_cut_at_stop_is_the_earliest_stop_string():
    from gateway.local_runtime import cut_at_stop

    # "ab\n\nText: c": "\n\n" at 2, "\nText:" at 3 → 2; none held → None; an empty stop is no stop.
    assert cut_at_stop("ab\n\nText: c", ["\nText:", "\n\n"]) == 2
    assert cut_at_stop("abc", ["\n\n"]) is None and cut_at_stop("abc", [""]) is None


def test_a_base_models_few_shot_head_is_kept_and_its_reply_ends_at_the_stop(settings):
    """Issue 41: a draft asks Gemma 3 (a base model, no chat template) sentence by sentence
    after the same head (the instruction and worked examples, as a system message). The
    head is computed once and kept; the greedy reply is the one the whole prompt gives;
    the reply ends before the next example's label (`stop`), as OpenAI's parameter."""
    from scenarios_app import draft_segments

    local_provider.configure(settings.CFPD_MODELS_DIR, 1)
    model = local_provider.runtime().model("gemma3")
    head = draft_segments.head("English", "en", "Chinese", "zh", draft_segments.examples_for(
        "en", "zh", draft_segments.load_examples()))
    messages = [{"role": "system", "content": head},
                {"role": "user", "content": draft_segments.segment_prompt("How should [Actor A] respond?")}]
    ids = model.prompt_ids(messages)
    kept = model.head_length(messages, ids, plain=True)
    assert model.head_length(messages, ids) == 0  # `choice` keeps no head of a base model's prompt
    assert "Answer: [Actor B]应如何回应？" in model.tokenizer.decode(ids[:kept])  # the examples are the head
    assert "[Actor A] respond" in model.tokenizer.decode(ids[kept:])
    model._heads.clear()
    with_head = model.generate(messages, max_tokens=40, stop=draft_segments.STOP)
    assert len(model._heads) == 1
    model.keep_heads = False
    try:
        whole = model.generate(messages, max_tokens=40, stop=draft_segments.STOP)
    finally:
        model.keep_heads = True
    assert with_head == whole
    assert with_head["text"] and "\n\n" not in with_head["text"] and "Text:" not in with_head["text"]
    unstopped = model.generate(messages, max_tokens=40)
    assert unstopped["text"].startswith(with_head["text"])


def test_stop_reaches_a_bundled_model_through_litellm(db):
    """`ask_text`'s `stop` goes through LiteLLM to the local provider: the reply ends before
    the stop string and spends fewer tokens than the same greedy reply without it."""
    from runs_app.single_calls import ask_text

    model = LLMModel.objects.get(name="local-smollm2")
    prompt = "Count: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12"
    whole = ask_text(model, prompt, max_tokens=40)
    cut = whole.text.find("1")
    assert cut > 0  # the greedy reply holds a "1" after some text (it goes on counting or explaining)
    stopped = ask_text(model, prompt, max_tokens=40, stop=["1"])
    assert stopped.text == whole.text[:cut].strip() and "1" not in stopped.text
