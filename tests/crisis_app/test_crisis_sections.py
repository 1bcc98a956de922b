from crisis_app.sections import ScoredText, SectionSpec, scored_text


def test_it_scores_the_text_between_recommendations_and_reasoning():
    answer = "RECOMMENDATIONS: Open talks.\nSend aid.\nREASONING: Talks lower the risk."
    assert scored_text(answer) == ScoredText("Open talks.\nSend aid.", True)


def test_it_tolerates_markdown_and_case():
    answer = (
        "Here is my advice.\n\n**Recommendations:**\n1. Open talks.\n\n"
        "## Reasoning\nTalks lower the risk."
    )
    result = scored_text(answer)
    assert result.text == "1. Open talks."
    assert result.section_found


def test_it_accepts_the_colon_outside_the_bold_label():
    answer = "**RECOMMENDATIONS**: Hold the line.\n**REASONING**: Deterrence."
    assert scored_text(answer).text == "Hold the line."


def test_it_scores_the_rest_of_the_answer_when_reasoning_is_missing():
    assert scored_text("RECOMMENDATIONS: Hold the line. Call allies.") == ScoredText(
        "Hold the line. Call allies.", section_found=True
    )


def test_a_bare_reasoning_word_in_prose_does_not_end_the_section():
    answer = "RECOMMENDATIONS: Follow the reasoning of our allies and wait.\nREASONING: Unity."
    assert scored_text(answer).text == "Follow the reasoning of our allies and wait."


def test_it_falls_back_to_the_whole_text_without_the_section():
    answer = "  I recommend that we open talks.  "
    assert scored_text(answer) == ScoredText("I recommend that we open talks.", False)


def test_recommendations_without_a_colon_in_prose_is_not_the_section():
    answer = "My recommendations are to open talks. REASONING: calm."
    assert scored_text(answer).section_found is False


def test_an_empty_section_falls_back_to_the_whole_text():
    answer = "RECOMMENDATIONS:\nREASONING: none."
    assert scored_text(answer) == ScoredText(answer, False)


def test_none_is_an_empty_unsectioned_text():
    assert scored_text(None) == ScoredText("", False)


def test_the_section_labels_are_configurable():
    spec = SectionSpec(start_label="DECISION:", end_label="WHY")
    answer = "Decision: Evacuate.\nWhy: the city is shelled."
    assert scored_text(answer, spec) == ScoredText("Evacuate.", True)
