"""An answer's cost from LiteLLM's price table, through the blocking and the async call."""

import asyncio

import pytest

from gateway import llm
from tests.fakes.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    with FakeOpenAI(seed=1) as server:
        yield server


def request(fake, model):
    return llm.LLMRequest(model=model, api_base=fake.base_url, timeout=10, mode="generate",
                          messages=[{"role": "user", "content": "Which option? A) wait B) act"}],
                          params={"temperature": 0, "max_tokens": 20})


def test_a_priced_model_costs_its_tokens_at_litellms_prices_in_both_calls(fake):
    prices = llm.litellm.model_cost["gpt-4o-mini"]
    blocking = llm.complete(request(fake, "openai/gpt-4o-mini"))
    awaited = asyncio.run(llm.acomplete(request(fake, "openai/gpt-4o-mini")))
    for result in (blocking, awaited):
        expected = (result.prompt_tokens * prices["input_cost_per_token"]
                    + result.completion_tokens * prices["output_cost_per_token"])
        assert result.prompt_tokens and result.completion_tokens
        assert result.cost == pytest.approx(expected, rel=1e-9)


def test_a_model_missing_from_the_price_table_has_no_cost_never_zero(fake):
    assert llm.complete(request(fake, "openai/not-a-priced-model")).cost is None
    assert asyncio.run(llm.acomplete(request(fake, "openai/not-a-priced-model"))).cost is None
