"""What a server that lacks a capability answers is told as what it is, once, not retried:
no log-probabilities in choice mode (transformers serve ignores `logprobs`), and LiteLLM's
empty answer when a server refuses a parameter it does not know (guided_choice, grammar)."""

import pytest

from gateway import llm
from tests.fakes.fixtures import fake, server  # noqa: F401  (fixtures)

QUESTION = "Which option?\nA: Talk\nB: Strike\nAnswer with one letter."


def choice_request(fake, strategy="logprobs"):
    return llm.LLMRequest(model="openai/fake", api_base=fake.base_url, mode="choice", strategy=strategy,
                          letters=["A", "B"], messages=[{"role": "user", "content": QUESTION}])


def test_choice_mode_reads_the_letter_from_the_servers_log_probabilities(fake):
    result = llm.complete(choice_request(fake))
    assert result.chosen_letter in ("A", "B") and set(result.option_logprobs) == {"A", "B"}


def test_a_server_that_sends_no_log_probabilities_is_told_so_not_that_its_letter_is_no_option(fake):
    fake.configure(no_logprobs=True)
    with pytest.raises(llm.LLMError) as caught:
        llm.complete(choice_request(fake))
    error = caught.value
    assert (error.kind, error.transient) == ("no_choice", False)
    assert error.message.startswith("the server sent no log-probabilities (it answered '")
    assert "Register the model in generate mode" in error.message and "constrained" not in error.message
    assert fake.stats()["total_requests"] == 1


@pytest.mark.parametrize("strategy, named", [("guided_choice", "guided_choice"), ("grammar", "a grammar")])
def test_an_empty_answer_from_litellm_is_a_refused_parameter_not_a_malformed_response(strategy, named):
    request = llm.LLMRequest(model="openai/x", mode="choice", strategy=strategy, letters=["A", "B"], messages=[])
    with pytest.raises(llm.LLMError) as caught:
        llm.read_completion(request, None, 12)
    assert (caught.value.kind, caught.value.transient) == ("bad_request", False)
    assert f"it refused a parameter this answer mode sends ({named})" in caught.value.message
