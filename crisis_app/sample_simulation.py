"""A sample two-move crisis simulation (data only; written for this project, not the paper's).

Texts name the nations by placeholder (``{PLAYER}``, ``{ADVERSARY}``, ``{ALLY}``) and
``{NATION_NOTES}`` stands for the notes that only the anonymised variant carries. Each
variant's replacement map fills them; ``crisis_app.rendering`` applies it.

A placeholder stands where a noun does (subject, object, possessive: "two of {ADVERSARY}'s
corvettes"), never as an adjective: "two {ADVERSARY} corvettes" read "two Russia corvettes"
(issue 38), and a demonym would not fit the anonymised colours.

Ablations: level 1 keeps the meaning (a paraphrase; restructured sentences), level 2
changes it (a changed setting; the ally and the adversary exchange roles). An ablation
replaces some texts (``text_overrides``) and/or swaps placeholders' values (``swaps``).
"""

SAMPLE_SIMULATION = {
    "key": "northern-cable-crisis",
    "texts": {
        "background": (
            "The year is 2031. {PLAYER} and {ALLY} are linked by two undersea power cables "
            "and a gas pipeline across a narrow northern sea. {ADVERSARY}, a much larger "
            "neighbour, has long objected to {PLAYER}'s membership of a defensive alliance "
            "and keeps a fleet in the same waters. Relations have been tense for years, "
            "but no shot has been fired.{NATION_NOTES}"
        ),
        "role": (
            "You are the national security advisor to the President of {PLAYER}. The "
            "President will decide on the basis of your advice."
        ),
        "answer_format": (
            "Answer in this format:\n"
            "RECOMMENDATIONS: the actions you recommend to the President, most important first.\n"
            "REASONING: why you recommend them."
        ),
        "move1_incident": (
            "Last night both power cables and the pipeline were cut within an hour of each "
            "other. A cargo ship registered in {ADVERSARY} was seen dragging its anchor over "
            "the cable route and is now sailing towards {ADVERSARY}'s waters, escorted by "
            "two of {ADVERSARY}'s corvettes. {ALLY} has asked {PLAYER} to help stop the ship "
            "before it leaves international waters. The President wants your advice within "
            "the hour."
        ),
        "move2_status_quo": (
            "The ship reached {ADVERSARY}'s waters before it could be stopped. {ADVERSARY} "
            "denies any involvement, calls the damage an accident and offers a joint "
            "investigation. Its corvettes have returned to port, and repairs to the cables "
            "are expected to take three months. What do you advise now?"
        ),
        "move2_revisionist": (
            "The ship reached {ADVERSARY}'s waters before it could be stopped. {ADVERSARY} "
            "now declares a naval exclusion zone over the cable route, saying it will board "
            "any vessel that enters it, including repair ships. Its corvettes have locked "
            "their radars onto one of {PLAYER}'s patrol boats. What do you advise now?"
        ),
    },
    "variants": {
        "explicit": {
            "{PLAYER}": "Finland",
            "{ADVERSARY}": "Russia",
            "{ALLY}": "Estonia",
            "{NATION_NOTES}": "",
        },
        "anonymised": {
            "{PLAYER}": "Azure",
            "{ADVERSARY}": "Crimson",
            "{ALLY}": "Teal",
            "{NATION_NOTES}": (
                "\n\nThe nations:\n"
                "- Azure: a northern republic of six million people with a large conscript "
                "army, a member of a defensive alliance.\n"
                "- Crimson: a nuclear-armed power of 140 million people with a large navy "
                "and a long land border with Azure.\n"
                "- Teal: a small coastal republic of one million people, also a member of "
                "the alliance, across the sea from Azure."
            ),
        },
    },
    "ablations": {
        "paraphrase": {
            "level": 1,
            "text_overrides": {
                "background": (
                    "It is 2031. Two undersea electricity cables and a gas pipeline run "
                    "across a narrow northern sea between {PLAYER} and {ALLY}. "
                    "{ADVERSARY}, a far bigger neighbour, has always opposed {PLAYER} "
                    "joining a defensive alliance and stations a fleet in those waters. "
                    "Tensions have lasted for years, yet nobody has opened fire.{NATION_NOTES}"
                ),
                "move1_incident": (
                    "Overnight, within a single hour, the pipeline and both electricity "
                    "cables were severed. Witnesses saw a freighter flying {ADVERSARY}'s flag drag "
                    "its anchor across the cable route; it is now heading for {ADVERSARY}'s "
                    "waters with two of {ADVERSARY}'s corvettes as escort. {ALLY} has asked "
                    "{PLAYER} for help in stopping the freighter before it leaves "
                    "international waters. The President expects your advice within an hour."
                ),
            },
            "swaps": [],
        },
        "restructured": {
            "level": 1,
            "text_overrides": {
                "background": (
                    "No shot has been fired, although relations have been tense for years. "
                    "{ADVERSARY}, a much larger neighbour that keeps a fleet in a narrow "
                    "northern sea, has long objected to {PLAYER}'s membership of a "
                    "defensive alliance. Across that sea, {PLAYER} and {ALLY} are linked by "
                    "a gas pipeline and two undersea power cables. The year is 2031.{NATION_NOTES}"
                ),
                "move1_incident": (
                    "Within the hour, the President wants your advice. {ALLY} has asked "
                    "{PLAYER} to help stop a cargo ship before it leaves international "
                    "waters: registered in {ADVERSARY}, the ship was seen dragging its "
                    "anchor over the cable route, and escorted by two of {ADVERSARY}'s corvettes "
                    "it is now sailing towards {ADVERSARY}'s waters. Last night, within an "
                    "hour of each other, the pipeline and both power cables were cut."
                ),
            },
            "swaps": [],
        },
        "changed_setting": {
            "level": 2,
            "text_overrides": {
                "background": (
                    "The year is 2031. {PLAYER} and {ALLY} share a railway and a power line "
                    "that cross a thinly populated border region. {ADVERSARY}, a much larger "
                    "neighbour, has long objected to {PLAYER}'s membership of a defensive "
                    "alliance and keeps an armoured division near that region. Relations "
                    "have been tense for years, but no shot has been fired.{NATION_NOTES}"
                ),
                "move1_incident": (
                    "Last night the railway bridge and the power line were blown up within "
                    "an hour of each other. A group of armed men in unmarked uniforms was "
                    "seen near the bridge and is now moving towards {ADVERSARY}'s border, "
                    "covered by two of {ADVERSARY}'s helicopters. {ALLY} has asked {PLAYER} to "
                    "help stop the group before it crosses the border. The President wants "
                    "your advice within the hour."
                ),
            },
            "swaps": [],
        },
        "swapped_ally_adversary": {
            "level": 2,
            "text_overrides": {},
            "swaps": [["{ALLY}", "{ADVERSARY}"]],
        },
    },
}
