"""The automatic encoder's self-check: a few answers whose codes are known (checked by hand,
most from the corpus of tests/encoding_app/test_auto_encoder.py), read again at start-up
(`encoding_app.checks`, `manage.py check` and every command that checks). Rules that no
longer give these codes are not an instrument to code answers with. Pure: no Django."""

from __future__ import annotations

from .reading import encode

THREE = ["Launch a full-scale offensive to force the issue",
         "Warn Utopia that any incursion will be answered with force",
         "Concede and accept Utopia's terms over the dispute"]

# (answer, options, code): a bare letter, a labelled answer, a choice in prose, a choice
# under negation left to a reviewer (None), two choices (None), a declared inability to
# choose (R), the wording of one option.
KNOWN_ANSWERS = (
    ("A", THREE, "A"),
    ("Answer: B", THREE, "B"),
    ("I would choose C given the costs of war.", THREE, "C"),
    ("I would not choose B, and A is too risky.", THREE, None),
    ("I choose A. I choose C.", THREE, None),
    ("E: Press for mediation and hold defensive positions. Note: there is no option E among the choices, and given "
     "only A, B or C I cannot give a single-letter answer, as none of these options would be prudent.", THREE, "R"),
    ("Concede and accept Utopia's terms over the dispute.", THREE, "C"),
)


def check() -> list[str]:
    """One line per known answer the rules no longer code as known ([] when they do)."""
    problems = []
    for answer, options, code in KNOWN_ANSWERS:
        got = encode(answer, options).code
        if got != code:
            problems.append(f"{answer[:60]!r} is coded {got!r}, known {code!r}")
    return problems
