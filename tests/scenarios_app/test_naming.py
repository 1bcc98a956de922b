import pytest

from scenarios_app.naming import (
    ActorName, MissingNameForm, actor_slots, country_prompt_name, forms_used, malformed_slots, substitute_actors,
    takes_definite_article,
)

BRAZIL = ActorName("Brazil")
US = ActorName("United States", article=True)
NL = ActorName("Netherlands", article=True)


def test_it_substitutes_a_possessive_slot_with_the_name_and_s():
    assert substitute_actors("Accept [Actor A]'s offer", BRAZIL, US) == "Accept Brazil's offer"


def test_it_writes_the_possessive_of_a_name_ending_in_s_with_an_apostrophe_only():
    assert substitute_actors("[Actor B]'s navy", BRAZIL, US) == "The United States' navy"


def test_it_puts_the_article_in_lower_case_mid_sentence_and_capitalised_at_a_sentence_start():
    text = "[Actor B] warned [Actor A]. [Actor B] then waited. Why did [Actor B] wait?"
    assert substitute_actors(text, BRAZIL, US) == (
        "The United States warned Brazil. The United States then waited. Why did the United States wait?")


def test_it_accepts_a_curly_apostrophe():
    assert substitute_actors("[Actor A]’s coast", NL, BRAZIL) == "The Netherlands' coast"


def test_it_does_not_double_an_article_the_author_already_wrote():
    assert substitute_actors("Aid to the [Actor B] is slow", BRAZIL, US) == "Aid to the United States is slow"
    assert substitute_actors("Aid to the [Actor A] is slow", BRAZIL, US) == "Aid to Brazil is slow"


def test_it_capitalises_after_a_line_break_and_an_opening_quote():
    assert substitute_actors("Note:\n[Actor B] said “[Actor B] will act”", BRAZIL, US) == (
        "Note:\nThe United States said “The United States will act”")


@pytest.mark.parametrize("alpha_2, name, common, expected", [
    ("KR", "Korea, Republic of", "South Korea", "South Korea"),
    ("VG", "Virgin Islands, British", None, "British Virgin Islands"),
    ("PS", "Palestine, State of", None, "State of Palestine"),
    ("CD", "Congo, The Democratic Republic of the", None, "Democratic Republic of the Congo"),
    ("BQ", "Bonaire, Sint Eustatius and Saba", None, "Bonaire, Sint Eustatius and Saba"),
    ("RU", "Russian Federation", None, "Russia"),
    ("BR", "Brazil", None, "Brazil"),
])
def test_it_chooses_the_short_name_a_prompt_uses(alpha_2, name, common, expected):
    assert country_prompt_name(alpha_2, name, common) == expected


@pytest.mark.parametrize("name, expected", [
    ("United States", True), ("United Kingdom", True), ("Netherlands", True), ("Philippines", True),
    ("Czech Republic", True), ("Solomon Islands", True), ("European Union", True), ("State of Palestine", True),
    ("Brazil", False), ("Cyprus", False), ("Laos", False), ("Barbados", False),
])
def test_it_knows_which_names_take_the_definite_article(name, expected):
    assert takes_definite_article(name) is expected


def test_it_lists_the_slots_a_text_uses_and_the_malformed_ones():
    assert actor_slots("[Actor A] and [Actor A]'s ally") == {"A"}
    assert malformed_slots("[Actor C] met [actor a] and [Actor B]") == ["[Actor C]", "[actor a]"]


RUSSIA_RU = ActorName("Россия", forms={"nominative": "Россия", "genitive": "России", "dative": "России"})
CHINA_RU = ActorName("Китай", forms={"nominative": "Китай", "instrumental": "Китаем"})


def test_a_slot_with_a_form_takes_the_name_in_that_form():
    text = "Армия [Actor A:genitive] стоит у границы с [Actor B:instrumental]. Как ответить [Actor A:dative]?"
    assert substitute_actors(text, RUSSIA_RU, CHINA_RU) == (
        "Армия России стоит у границы с Китаем. Как ответить России?")
    assert substitute_actors("[Actor A] и [Actor B:nominative]", RUSSIA_RU, CHINA_RU) == "Россия и Китай"


def test_a_form_the_name_lacks_is_an_error_not_a_guess():
    with pytest.raises(MissingNameForm, match="Китай has no genitive form"):
        substitute_actors("посты [Actor B:genitive]", RUSSIA_RU, CHINA_RU)


def test_forms_used_names_each_actor_and_form_once():
    assert forms_used("[Actor A:genitive] [Actor A:genitive] [Actor B] [Actor B:dative]") == {
        ("A", "genitive"), ("B", "dative")}
    assert forms_used("[Actor A] and [Actor B]'s") == set()
