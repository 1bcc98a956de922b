"""Rank classification through the LiteLLM seam (`llm.score_continuations`): against the
fake OpenAI-compatible server (a known winner, errors sorted into transient and permanent)
and against the real bundled models through LiteLLM's `cfpd-local` provider (the same
numbers as the runtime's own `score_continuations`)."""

import pytest

from gateway import llm, local_provider
from tests.fakes.fake_openai import word_logprob
from tests.fakes.fixtures import fake, server  # noqa: F401  (fixtures)

PROMPT = "Question: Which country do the Spratly Islands belong to?\nAnswer: The Spratly Islands belong to"
CLAIMANTS = [" China", " the Philippines", " Vietnam"]


def fake_request(fake, **changes):
    return llm.LLMRequest(model="openai/fake", messages=[], api_base=fake.base_url, **changes)


def test_the_fake_servers_most_probable_claimant_wins(fake):
    fake.configure(word_logprobs={"China": -2.0, "the": -0.5, "Philippines": -1.0, "Vietnam": -1.75})
    result = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    # China -2.0 (1 token); the Philippines -0.5 + -1.0 = -1.5 (2 tokens, mean -0.75);
    # Vietnam -1.75: the highest sum is the Philippines'.
    assert [(s.text, s.logprob, s.tokens, s.mean_logprob) for s in result.scores] == [
        (" China", -2.0, 1, -2.0), (" the Philippines", -1.5, 2, -0.75), (" Vietnam", -1.75, 1, -1.75)]
    assert result.winner == 1 and result.winner_text == " the Philippines"
    assert result.resolved_model == "fake"
    assert result.params == {"echo": True, "logprobs": 1, "max_tokens": 0, "temperature": 0, "timeout": 120,
                             "num_retries": 0, "api_base": fake.base_url}
    # The prompt's 15 words + each claimant's, as the fake counts tokens: 15 * 3 + 1 + 2 + 1.
    assert result.prompt_tokens == 15 * 3 + 4
    assert result.latency_ms >= 0 and result.cost is None  # no price for "fake"
    stats = fake.stats()
    assert stats["total_requests"] == stats["successes"] == 1  # one request for the three claimants


def test_without_a_table_the_sums_are_the_fakes_hashed_values(fake):
    result = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    expected = [word_logprob(" China"), word_logprob(" the") + word_logprob(" Philippines"), word_logprob(" Vietnam")]
    assert [s.logprob for s in result.scores] == pytest.approx(expected)
    assert result.winner == max(range(3), key=lambda i: (expected[i], -i))
    again = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)  # same request, same scores
    assert again.scores == result.scores and again.winner == result.winner


def test_a_bos_marker_in_the_servers_offsets_does_not_shift_the_span(fake):
    fake.configure(echo_bos="<bos>", word_logprobs={"to": -7.0, "China": -1.0, "the": -0.5, "Philippines": -1.0,
                                                   "Vietnam": -3.0})
    result = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    # Offsets 5 characters late would count the prompt's last word " to" (-7.0) too.
    assert [s.logprob for s in result.scores] == [-1.0, -1.5, -3.0]


def test_a_space_ending_the_prompt_is_scored_with_each_continuation(fake):
    # "... belong to " + "China" sends the text of "... belong to" + " China"; the fake's
    # token " China" begins at the prompt's space, so it is the continuation's in both.
    spaced = llm.score_continuations(fake_request(fake), PROMPT + " ", [c.strip() for c in CLAIMANTS])
    plain = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    assert [s.logprob for s in spaced.scores] == [s.logprob for s in plain.scores]
    assert [s.text for s in spaced.scores] == ["China", "the Philippines", "Vietnam"]


def test_a_price_from_the_model_row_gives_the_cost(fake):
    result = llm.score_continuations(fake_request(fake, input_cost_per_token=1e-6), PROMPT, CLAIMANTS)
    assert result.cost == pytest.approx(49 * 1e-6)  # 49 prompt tokens, nothing generated


@pytest.mark.parametrize("kind, error_kind, transient", [
    ("429", "rate_limit", True), ("500", "server", True), ("malformed", "server", True),
    ("400", "bad_request", False), ("401_echo", "auth", False)])
def test_errors_are_sorted_as_complete_sorts_them(fake, monkeypatch, kind, error_kind, transient):
    secret = "sk-proj-" + "Q7x9" * 10
    monkeypatch.setenv("CFPD_LOCAL_API_KEY", secret)
    fake.configure(fault_rate=1, fault_kinds=[kind], retry_after=0.5)
    with pytest.raises(llm.LLMError) as caught:
        llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    assert (caught.value.kind, caught.value.transient) == (error_kind, transient)
    assert secret not in caught.value.message
    if kind == "429":
        assert caught.value.retry_after == 0.5
    # No retry inside LiteLLM: the engine retries. A 400 to the list of prompts is tried once with the
    # first prompt alone (a server that takes one string per request), whose 400 is then the answer.
    assert fake.stats()["total_requests"] == (2 if kind == "400" else 1)


def test_a_server_that_takes_one_prompt_per_request_is_asked_once_per_continuation(fake):
    listed = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    fake.reset_stats()
    fake.configure(one_prompt_only=True)
    single = llm.score_continuations(fake_request(fake), PROMPT, CLAIMANTS)
    # The list is refused (400), then each of the 3 continuations is its own request: 1 + 3 requests.
    assert fake.stats()["total_requests"] == 4
    assert [s.logprob for s in single.scores] == [s.logprob for s in listed.scores]
    assert single.winner == listed.winner and single.prompt_tokens == listed.prompt_tokens


def test_a_timeout_is_transient(fake):
    fake.configure(fault_rate=1, fault_kinds=["timeout"], timeout_sleep=3)
    with pytest.raises(llm.LLMError) as caught:
        llm.score_continuations(fake_request(fake, timeout=0.5), PROMPT, CLAIMANTS)
    assert (caught.value.kind, caught.value.transient) == ("timeout", True)


def test_an_answer_without_echoed_log_probabilities_is_a_permanent_error():
    choice = {"index": 0, "text": PROMPT + " China", "logprobs": None}  # llama.cpp's server, a chat model
    with pytest.raises(llm.LLMError) as caught:
        llm._read_continuation(choice, PROMPT, " China")
    assert (caught.value.kind, caught.value.transient) == ("no_logprobs", False)


def test_no_continuations_is_a_permanent_error(fake):
    for continuations in ([], [" China", ""]):
        with pytest.raises(llm.LLMError) as caught:
            llm.score_continuations(fake_request(fake), PROMPT, continuations)
        assert (caught.value.kind, caught.value.transient) == ("bad_request", False)
    assert fake.stats()["total_requests"] == 0


# -- the bundled models, in this process (weights converted once into CFPD_MODELS_DIR) ----------

@pytest.fixture
def bundled(settings):
    local_provider.configure(settings.CFPD_MODELS_DIR, 1)
    return local_provider.runtime()


@pytest.mark.parametrize("alias", ["smollm2", "gemma3"])
def test_bundled_models_rank_claimants_through_litellm(bundled, alias):
    request = llm.LLMRequest(model=f"cfpd-local/{alias}", messages=[])
    result = llm.score_continuations(request, PROMPT, CLAIMANTS)
    direct = bundled.model(alias).score_continuations(PROMPT, CLAIMANTS)
    for score, expected in zip(result.scores, direct):
        assert score.logprob == pytest.approx(expected["logprob"], abs=1e-4)
        assert score.tokens == expected["tokens"]
        assert score.mean_logprob == pytest.approx(expected["mean_logprob"], abs=1e-4)
        assert score.logprob < 0
    sums = [score.logprob for score in result.scores]
    assert result.winner == sums.index(max(sums))
    assert result.resolved_model == f"cfpd-local/{alias}"
    assert result.params["extra_body"] == {"logprobs_from": len(PROMPT)}
    prompt_ids = len(bundled.model(alias).text_ids(PROMPT))
    assert result.prompt_tokens == sum(prompt_ids + expected["tokens"] for expected in direct)
    again = llm.score_continuations(request, PROMPT, CLAIMANTS)
    assert again.scores == result.scores and again.winner == result.winner  # deterministic
    spaced = llm.score_continuations(request, PROMPT + " ", [c.strip() for c in CLAIMANTS])
    assert [s.logprob for s in spaced.scores] == [s.logprob for s in result.scores]


def test_bundled_models_echo_in_the_completions_shape(bundled):
    """The provider answers LiteLLM's text_completion as vLLM would: the prompt echoed as one
    unscored piece, then each token of the continuation at its character offset."""
    response = llm.litellm.text_completion(**llm.rank_call_kwargs(
        llm.LLMRequest(model="cfpd-local/smollm2", messages=[]), PROMPT, [" the Philippines", " Việt Nam"]))
    direct = bundled.model("smollm2").score_continuations(PROMPT, [" the Philippines", " Việt Nam"])
    for choice, continuation, expected in zip(response.choices, [" the Philippines", " Việt Nam"], direct):
        assert choice.text == PROMPT + continuation
        logprobs = choice.logprobs
        assert logprobs.tokens[0] == PROMPT and logprobs.token_logprobs[0] is None and logprobs.text_offset[0] == 0
        assert "".join(logprobs.tokens) == PROMPT + continuation
        assert logprobs.token_logprobs[1:] == expected["token_logprobs"]
        offsets = logprobs.text_offset[1:]
        assert offsets == sorted(offsets) and offsets[0] == len(PROMPT) and offsets[-1] < len(choice.text)
    assert response.choices[0].logprobs.tokens[1:] == [" the", " Philippines"]
    assert response.usage.completion_tokens == 0


@pytest.mark.parametrize("extra_body, max_tokens, message", [
    (None, 0, "logprobs_from"), ({"logprobs_from": 0}, 0, "logprobs_from"), ({"logprobs_from": 5}, 3, "max_tokens=0")])
def test_bundled_models_refuse_an_echo_they_cannot_score(bundled, extra_body, max_tokens, message):
    kwargs = llm.rank_call_kwargs(llm.LLMRequest(model="cfpd-local/smollm2", messages=[]), PROMPT, CLAIMANTS)
    kwargs.pop("extra_body")
    kwargs.update(max_tokens=max_tokens, **({"extra_body": extra_body} if extra_body else {}))
    with pytest.raises(Exception) as caught:
        llm.litellm.text_completion(**kwargs)
    error = llm.classify(caught.value)
    assert (error.kind, error.transient) == ("bad_request", False) and message in error.message
