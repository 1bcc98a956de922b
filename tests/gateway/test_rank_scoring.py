"""Rank classification's arithmetic (gateway/llm.py): which echoed tokens belong to a
continuation, their sum and mean, the winner. Hand-made `text_offset` / `token_logprobs`
as a completions endpoint returns them; no server, no database."""

import pytest

from gateway.llm import ContinuationScore, _read_continuation, continuation_logprobs, echo_offsets, winner

PROMPT = "Q: Whose? A:"  # 12 characters


def choice(tokens, values):
    """A completions choice echoing "".join(tokens), offsets summed from the tokens' lengths."""
    offsets, at = [], 0
    for token in tokens:
        offsets.append(at)
        at += len(token)
    return {"index": 0, "text": "".join(tokens),
            "logprobs": {"tokens": tokens, "token_logprobs": values, "text_offset": offsets}}


def test_it_sums_the_tokens_that_begin_at_or_after_the_prompt():
    # "Q: Whose? A:" + " Ch" + "ina": the prompt's tokens begin at 0, 2, 9; " Ch" at 12,
    # "ina" at 15, so the continuation's are [-1.0, -0.5].
    values = continuation_logprobs([0, 2, 9, 12, 15], [None, -3.0, -2.0, -1.0, -0.5], 12, 12 + len(" China"))
    assert values == [-1.0, -0.5]
    score = _read_continuation(choice(["Q:", " Whose?", " A:", " Ch", "ina"], [None, -3.0, -2.0, -1.0, -0.5]),
                               PROMPT, " China")
    # sum -1.0 + -0.5 = -1.5 over 2 tokens; mean -1.5 / 2 = -0.75
    assert score == ContinuationScore(text=" China", logprob=-1.5, tokens=2, mean_logprob=-0.75)


def test_a_generated_token_after_the_continuation_is_left_out():
    # max_tokens=1 on a server that refuses 0: " yes" at 18 lies past 12 + 6 = 18's end
    # (the span is [12, 18)), so only " China" (-0.25) counts.
    assert continuation_logprobs([0, 2, 9, 12, 18], [None, -3.0, -2.0, -0.25, -4.0], 12, 18) == [-0.25]


def test_a_token_that_begins_inside_the_prompt_belongs_to_the_prompt():
    # The prompt "Q: Whose? A" (11 characters) and continuation ": China": the token " A:"
    # (characters 9-11) begins in the prompt and runs into the continuation, so it is the
    # prompt's; the continuation's tokens are " China" at 12 alone: -1.25.
    assert continuation_logprobs([0, 2, 9, 12], [None, -3.0, -2.0, -1.25], 11, 11 + len(": China")) == [-1.25]


def test_a_continuation_without_its_own_token_cannot_be_scored():
    # "A" + ":" merged into the prompt's last token " A:" (begins at 9 < 11): nothing
    # begins in [11, 12).
    with pytest.raises(ValueError, match="no token begins"):
        continuation_logprobs([0, 2, 9], [None, -3.0, -2.0], 11, 12)


def test_a_continuation_token_without_a_log_probability_cannot_be_scored():
    # A server that echoes the prompt without its log-probabilities (null after the first).
    with pytest.raises(ValueError, match="no log-probability"):
        continuation_logprobs([0, 2, 9, 12], [None, None, None, None], 12, 18)


def test_a_bos_marker_counted_in_the_offsets_is_taken_out():
    # vLLM, Gemma: tokens "<bos>", "Q:", " Whose?", " A:", " China"; offsets summed over
    # the decoded tokens: 0, 5, 7, 14, 17 — 5 too many for the echoed text "Q: Whose? A: China"
    # (18 characters; the last token ends at 17 + 6 = 23 = 18 + len("<bos>")).
    tokens = ["<bos>", "Q:", " Whose?", " A:", " China"]
    assert echo_offsets(tokens, [0, 5, 7, 14, 17], 18) == [0, 0, 2, 9, 12]
    # Uncorrected, " A:" (14) would be counted with " China": -2.0 + -1.0 = -3.0.
    assert continuation_logprobs([0, 5, 7, 14, 17], [None, None, -3.0, -2.0, -1.0], 12, 18) == [-2.0, -1.0]
    assert continuation_logprobs(echo_offsets(tokens, [0, 5, 7, 14, 17], 18),
                                 [None, None, -3.0, -2.0, -1.0], 12, 18) == [-1.0]


def test_offsets_that_add_up_are_left_alone():
    tokens = ["Q:", " Whose?", " A:", " China"]
    assert echo_offsets(tokens, [0, 2, 9, 12], 18) == [0, 2, 9, 12]
    # A first token that is not a marker is never taken out, even if the lengths overshoot.
    assert echo_offsets(["Q:", " Whose?", " A:", " China"], [0, 4, 11, 14], 20) == [0, 4, 11, 14]
    # No tokens to measure with (a server that sends only offsets): as given.
    assert echo_offsets(None, [0, 2, 9, 12], 18) == [0, 2, 9, 12]


def test_the_highest_sum_wins_and_a_tie_goes_to_the_first():
    # -1.5 > -2.0 > -9.69
    assert winner([-2.0, -1.5, -9.69]) == 1
    assert winner([-1.5, -2.0, -1.5]) == 0
    assert winner([-0.5]) == 0


def test_the_sum_not_the_mean_decides():
    # " the Philippines": -1.0 + -1.0 = -2.0 (mean -1.0); " China": -1.5 (mean -1.5).
    # By sum China wins (-1.5 > -2.0), though its mean is lower.
    philippines = _read_continuation(choice(["Q:", " Whose?", " A:", " the", " Philippines"],
                                            [None, -3.0, -2.0, -1.0, -1.0]), PROMPT, " the Philippines")
    china = _read_continuation(choice(["Q:", " Whose?", " A:", " China"], [None, -3.0, -2.0, -1.5]), PROMPT, " China")
    assert (philippines.logprob, philippines.mean_logprob) == (-2.0, -1.0)
    assert (china.logprob, china.mean_logprob) == (-1.5, -1.5)
    assert winner([philippines.logprob, china.logprob]) == 1
