"""Provider error text is redacted before it is stored: keys, bearer tokens, key=value
credentials and long secrets go; the rest of the message, model names included, stays."""

import pytest

from gateway.llm import LLMError, classify
from gateway.redaction import redact


@pytest.mark.parametrize("text, secret", [
    ("Incorrect API key provided: sk-proj-AbC123xyz456DEF.", "sk-proj-AbC123xyz456DEF"),
    ("invalid x-api-key sk-ant-api03-abcdefGHIJ1234567890", "sk-ant-api03-abcdefGHIJ1234567890"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abc", "eyJhbGciOiJIUzI1NiJ9abc"),
    ("request to https://host/v1/models?key=AIzaSyA1234567890abcdefghijklmnopqrstuv failed",
     "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("{'api_key': 'my-own-secret-value'}", "my-own-secret-value"),
    ("password=hunter2x was refused", "hunter2x"),
    ("token 0123456789abcdef0123456789abcdef expired", "0123456789abcdef0123456789abcdef"),
    ("aws AKIAIOSFODNN7EXAMPLE denied", "AKIAIOSFODNN7EXAMPLE"),
    ("signature QWxhZGRpbjpvcGVuIHNlc2FtZQ1234567890abcdefXYZ== bad", "QWxhZGRpbjpvcGVuIHNlc2FtZQ1234567890abcdefXYZ"),
])
def test_it_removes_anything_that_looks_like_a_secret(text, secret):
    cleaned = redact(text)
    assert secret not in cleaned and "[redacted]" in cleaned


@pytest.mark.parametrize("text", [
    "RateLimitError: litellm.RateLimitError: OpenAIException - Rate limit reached",
    "model anthropic/claude-3-5-sonnet-20241022 not found",
    "meta-llama/Llama-3.1-70B-Instruct-Turbo-with-a-very-long-suffix-name does not exist",
    "max_tokens: 4096 is more than the model allows",
    "KeyError: 'choices'",
])
def test_it_keeps_ordinary_error_text(text):
    assert redact(text) == text


def test_every_llm_error_is_redacted_when_made():
    error = LLMError("auth", "bad key sk-live-ABCDEF123456", transient=False)
    assert error.message == str(error) == "bad key [redacted]"


def test_a_key_at_the_500_character_cut_is_not_left_half_visible():
    # The message is cut to 500 characters after redaction, not before.
    key = "sk-" + "Ab1" * 20
    error = classify(RuntimeError("word " * 94 + key))  # the key starts at character 470
    assert "Ab1Ab1" not in error.message and len(error.message) <= 500
