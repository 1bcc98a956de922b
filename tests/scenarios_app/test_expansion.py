from scenarios_app.expansion import NO_MIDDLE, TemplateOption, expand_scenario, middle_index, question_key
from scenarios_app.naming import ActorName

NAMES = {"BR": ActorName("Brazil"), "US": ActorName("United States", True), "CN": ActorName("China")}
TWO = [TemplateOption("Accept [Actor B]'s terms", "no-force", 0),
       TemplateOption("Strike [Actor B]", "use-of-force", 2)]
THREE = [TemplateOption("Strike [Actor B]", "use-of-force", 2),
         TemplateOption("Stand down", "no-force", 0),
         TemplateOption("Warn [Actor B]", "threat-of-force", 1)]


def test_it_makes_one_question_per_dyad_with_names_in_text_and_options():
    questions = expand_scenario("demo/s1", 1, "[Actor A] faces [Actor B]'s army. How should [Actor A] respond?",
                                TWO, "A", [("BR", "US"), ("US", "BR")], NAMES)
    assert [q.key for q in questions] == ["demo/s1.v1.BR-US.full", "demo/s1.v1.US-BR.full"]
    assert questions[0].text == "Brazil faces the United States' army. How should Brazil respond?"
    assert questions[0].options == ("Accept the United States' terms", "Strike the United States")
    assert questions[1].text == "The United States faces Brazil's army. How should the United States respond?"
    assert questions[1].qualified_actor == "US"
    assert questions[0].option_order == (0, 1)


def test_a_three_option_scenario_is_also_asked_without_its_middle_option():
    questions = expand_scenario("k", 2, "[Actor A] and [Actor B]?", THREE, "B", [("CN", "BR")], NAMES)
    assert [(q.variant, q.choice_count) for q in questions] == [("full", 3), (NO_MIDDLE, 2)]
    two = questions[1]
    # The middle (rank 1, "Warn") is the third option as written: dropped, the others keep their order.
    assert two.options == ("Strike Brazil", "Stand down")
    assert two.categories == ("use-of-force", "no-force")
    assert two.key == "k.v2.CN-BR.no-middle"
    assert two.qualified_actor == "BR"


def test_the_middle_option_is_the_one_ranked_between_the_others():
    assert middle_index(THREE) == 2
    assert middle_index(TWO) is None
    unordered = [TemplateOption("x", "balancing"), TemplateOption("y", "bandwagoning"), TemplateOption("z", "x")]
    assert middle_index(unordered) is None


def test_expansion_is_deterministic():
    args = ("k", 1, "[Actor A] vs [Actor B]", THREE, "A", [("CN", "US"), ("US", "CN")], NAMES)
    assert expand_scenario(*args) == expand_scenario(*args)


def test_question_keys_are_readable_and_stable():
    assert question_key("demo/esc2-river", 3, "IN", "PK", "full") == "demo/esc2-river.v3.IN-PK.full"
