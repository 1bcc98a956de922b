"""The automatic encoder's self-check (encoding_app.auto_encoder.known_answers, and the
start-up check encoding.E001 that runs it)."""

from encoding_app import checks
from encoding_app.auto_encoder import known_answers


def test_the_rules_give_every_known_code():
    assert known_answers.check() == []


def test_rules_that_code_otherwise_fail_the_check_and_start_up(monkeypatch):
    from encoding_app.auto_encoder.reading import Encoding

    # Rules broken so that every answer reads as A: "A" stays right, the six others are named.
    monkeypatch.setattr(known_answers, "encode", lambda answer, options: Encoding("A", "broken", 1.0, ""))
    problems = known_answers.check()
    assert len(problems) == 6
    assert problems[0] == "'Answer: B' is coded 'A', known 'B'"
    errors = checks.automatic_encoder(None)
    assert [e.id for e in errors] == ["encoding.E001"]
    assert errors[0].msg.startswith("the automatic encoder failed its self-check: 'Answer: B' is coded 'A'")

