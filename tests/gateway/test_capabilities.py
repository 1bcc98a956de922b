"""gateway.capabilities: a connection test's answers read into findings, and the launch's
verdict per model and answer mode. Pure: no Django, no server."""

from hypothesis import given
from hypothesis import strategies as st

from gateway import capabilities as caps
from gateway.capabilities import ModelFacts, Observed

REFUSED_422 = "UnprocessableEntityError: Unexpected fields in the request: {'guided_choice'}"


def facts(mode="choice", strategy="logprobs", findings=None, temperature=0.0, **state):
    capabilities = {**state, "findings": findings} if findings is not None else state
    return ModelFacts(name="smol", endpoint="http://127.0.0.1:8000/v1", mode=mode, strategy=strategy,
                      temperature=temperature, capabilities=capabilities, checked_at="2026-11-26 12:04")


def served(**overrides):
    """Findings of a server that supports everything, with some overridden."""
    findings = {
        "answers": caps.read_answers(Observed(text="Yes", latency_ms=120)),
        "logprobs": caps.read_logprobs(Observed(text="A", top=[("A", -0.1), ("B", -2.4)]), 20),
        "guided_choice": caps.read_constrained(Observed(text="Q"), "guided_choice"),
        "grammar": caps.read_constrained(Observed(text="Z"), "grammar"),
        "echo": caps.read_echo(Observed(text=" Paris")),
    }
    findings["prompt_list"] = caps.read_prompt_list(Observed(text=" Paris", requests=1), findings["echo"])
    findings["temperature"] = caps.read_temperature([Observed(text=t) for t in ("a", "b", "a")], 1.0)
    findings.update(overrides)
    return findings


def test_an_answer_is_found_with_its_latency_and_a_failure_with_the_servers_message():
    assert caps.read_answers(Observed(text="Yes.", latency_ms=1234)) == {
        "ok": True, "summary": "answered 'Yes.' in 1,234 ms", "message": "", "latency_ms": 1234}
    failed = caps.read_answers(Observed(error_kind="connection", error="Connection refused"))
    assert failed["ok"] is False and failed["message"] == "Connection refused"


def test_log_probabilities_are_counted_and_their_absence_is_a_no():
    found = caps.read_logprobs(Observed(text="A", top=[("A", -0.1), ("B", -2.0)]), 20)
    assert found["ok"] is True and found["top"] == 2
    assert "top 2 log-probabilities, fewer than the 20 asked for" in found["summary"]
    none = caps.read_logprobs(Observed(text="A"), 20)
    assert none["ok"] is False and none["top"] == 0
    assert none["summary"].startswith("the server returns no log-probabilities")
    # A timeout says nothing either way.
    assert caps.read_logprobs(Observed(error_kind="timeout", error="Timeout"), 20)["ok"] is None


def test_a_constrained_field_is_followed_refused_or_ignored():
    assert caps.read_constrained(Observed(text="Z"), "grammar")["ok"] is True
    refused = caps.read_constrained(Observed(error_kind="bad_request", error=REFUSED_422), "guided_choice")
    assert refused["ok"] is False and refused["message"] == REFUSED_422
    assert "refuses the guided_choice field" in refused["summary"]
    ignored = caps.read_constrained(Observed(text="Hello there"), "guided_choice")
    assert ignored["ok"] is False and "does not follow it" in ignored["summary"]
    assert caps.read_constrained(Observed(error_kind="no_choice", error="no letter"), "grammar")["ok"] is False
    # LiteLLM's empty answer (its drop_params swallows the 422): refused, no server text to show.
    swallowed = caps.read_constrained(Observed(error_kind="bad_request", error=caps.NO_ANSWER + ": it refused a "
                                               "parameter this answer mode sends (guided_choice)."), "guided_choice")
    assert swallowed["ok"] is False and swallowed["message"] == "" and "passed on no answer" in swallowed["summary"]


def test_echo_and_prompt_lists():
    assert caps.read_echo(Observed(text=" Paris"))["ok"] is True
    assert caps.read_echo(Observed(error_kind="no_logprobs", error="none"))["ok"] is False
    # A server error once is not an answer; twice (the probe asks again) it is.
    assert caps.read_echo(Observed(error_kind="server", error="500"))["ok"] is None
    assert caps.read_echo(Observed(error_kind="server", error="500", requests=2))["ok"] is False
    echo = {"ok": True}
    one_each = caps.read_prompt_list(Observed(text=" Paris", requests=2), echo)
    assert one_each["ok"] is False and "one request per option (2 for 2 options)" in one_each["summary"]
    assert caps.read_prompt_list(Observed(requests=1), echo)["ok"] is True
    assert caps.read_prompt_list(None, {"ok": False})["ok"] is None


def test_identical_samples_mean_the_temperature_is_ignored():
    same = caps.read_temperature([Observed(text="The sea is calm.")] * 3, 1.0)
    assert same["ok"] is False and same["samples"] == 3 and same["distinct"] == 1
    varied = caps.read_temperature([Observed(text="a"), Observed(text="b"), Observed(text="a ")], 1.0)
    # "a " is "a" once stripped: 2 distinct of 3.
    assert varied["ok"] is True and varied["distinct"] == 2
    assert caps.read_temperature([Observed(text="a"), Observed(error_kind="timeout")], 1.0)["ok"] is None


def test_the_recommended_strategies_prefer_a_guaranteed_letter():
    assert caps.recommended(served()) == {"choice": "guided_choice", "rank": "one request", "generate": True}
    no_guided = served(guided_choice={"ok": False}, grammar={"ok": False})
    assert caps.recommended(no_guided)["choice"] == "logprobs"
    nothing = served(guided_choice={"ok": False}, grammar={"ok": False}, logprobs={"ok": False},
                     echo={"ok": False}, prompt_list={"ok": None})
    assert caps.recommended(nothing) == {"choice": None, "rank": None, "generate": True}


def test_choice_mode_is_refused_plainly_when_the_server_sends_no_log_probabilities():
    findings = served(logprobs=caps.read_logprobs(Observed(text="B"), 20),
                      guided_choice=caps.read_constrained(Observed(error_kind="bad_request", error=REFUSED_422),
                                                          "guided_choice"),
                      grammar=caps.read_constrained(Observed(error_kind="bad_request", error="refused"), "grammar"),
                      echo=caps.read_echo(Observed(error_kind="server", error="500", requests=2)))
    check = caps.mode_check(facts(findings=findings))
    assert check.level == "refuse"
    assert check.text == ("smol at http://127.0.0.1:8000/v1: choice mode cannot work — the server returns no "
                          "log-probabilities (found 2026-11-26 12:04 by Test connection); use generate mode (its "
                          "answers are coded by the encoder).")
    # A refused guided_choice names the server's own words; another strategy that works is offered.
    check = caps.mode_check(facts(strategy="guided_choice", findings=served(guided_choice=findings["guided_choice"])))
    assert check.level == "refuse" and REFUSED_422 in check.text
    assert "set its choice strategy to grammar (found to work)" in check.text


def test_a_model_never_probed_is_said_so_and_a_working_one_needs_no_word():
    never = caps.mode_check(facts())
    assert never.level == "note" and never.never_probed and "never probed" in never.text
    running = caps.mode_check(facts(status="running"))
    assert running.never_probed and "under way" in running.text
    assert caps.mode_check(facts(findings=served())) is None
    assert caps.mode_check(facts(mode="rank", findings=served())) is None
    bundled = ModelFacts(name="local", endpoint="cfpd-local/smollm2", mode="choice", strategy="logprobs",
                         temperature=0, capabilities={}, bundled=True)
    assert caps.mode_check(bundled) is None


def test_rank_and_generate_modes_read_their_own_findings():
    no_echo = served(echo=caps.read_echo(Observed(error_kind="no_logprobs", error="no echo")))
    check = caps.mode_check(facts(mode="rank", findings=no_echo))
    assert check.level == "refuse" and "rank classification cannot work" in check.text and "(no echo)" in check.text
    one_each = served(prompt_list=caps.read_prompt_list(Observed(requests=3), {"ok": True}))
    assert caps.mode_check(facts(mode="rank", findings=one_each)).level == "note"
    greedy = served(temperature=caps.read_temperature([Observed(text="x")] * 3, 1.0))
    check = caps.mode_check(facts(mode="generate", temperature=0.7, findings=greedy))
    assert check.level == "warn" and "ignore the temperature" in check.text
    assert caps.mode_check(facts(mode="generate", temperature=0.0, findings=greedy)) is None
    silent = served(answers=caps.read_answers(Observed(error_kind="connection", error="refused")))
    assert caps.mode_check(facts(mode="generate", findings=silent)).level == "warn"


@given(st.lists(st.text(max_size=12), min_size=2, max_size=6))
def test_temperature_is_ignored_exactly_when_every_answer_is_the_same(texts):
    found = caps.read_temperature([Observed(text=t) for t in texts], 1.0)
    assert found["ok"] is (len({t.strip() for t in texts}) > 1)
    assert found["distinct"] == len({t.strip() for t in texts})
