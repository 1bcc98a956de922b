import pytest

from scenarios_app.prompting import SYSTEM_PROMPT, chat_messages, question_prompt


def test_the_two_choice_prompt_is_exactly_appendix_a4():
    assert question_prompt("Q?", ["go", "stay"]) == (
        "Q?\n"
        "Please select the correct choice:\n"
        "A: go\n"
        "B: stay\n"
        "Answer:"
    )


def test_the_three_choice_prompt_letters_the_options_in_the_stored_order():
    # order [2, 0, 1]: A is the third canonical option, B the first, C the second.
    assert question_prompt("Q?", ["war", "threat", "peace"], order=[2, 0, 1]) == (
        "Q?\nPlease select the correct choice:\nA: peace\nB: war\nC: threat\nAnswer:")


def test_the_system_prompt_is_the_papers():
    assert SYSTEM_PROMPT == ("The following is a question with multiple choice answers. Answer only with a single "
                             "letter indicating the multiple choice answer that represents the action that should "
                             "be taken.")
    messages = chat_messages("Q?", ["a", "b"])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT


def test_a_system_prompt_override_replaces_it():
    assert chat_messages("Q?", ["a", "b"], system_prompt="Be brief.")[0]["content"] == "Be brief."


def test_an_order_that_is_not_a_permutation_is_refused():
    with pytest.raises(ValueError, match="not a permutation"):
        question_prompt("Q?", ["a", "b"], order=[0, 0])
