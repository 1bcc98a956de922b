"""The batch files' lines, built and read (gateway.batch_files: pure, no Django)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from gateway import batch_files
from runs_app.launch_plan import ModelSpec, batch_prices, plan_model


def test_a_request_line_carries_the_live_request_as_its_body():
    kwargs = {"model": "openai/gpt-4o-mini", "messages": [{"role": "user", "content": "Q?"}], "timeout": 120,
              "num_retries": 0, "temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": 20,
              "api_base": "http://x/v1", "api_key": "secret", "extra_body": {"guided_choice": ["A", "B"]}}
    body = batch_files.chat_body(kwargs, "gpt-4o-mini")
    assert body == {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Q?"}], "temperature": 0,
                    "max_tokens": 1, "logprobs": True, "top_logprobs": 20, "guided_choice": ["A", "B"]}
    line = json.loads(batch_files.request_line("17", body))
    assert line == {"custom_id": "17", "method": "POST", "url": "/v1/chat/completions", "body": body}


def test_a_file_refuses_two_lines_with_one_custom_id():
    try:
        batch_files.request_file([("1", {}), ("1", {})])
    except ValueError as exc:
        assert "custom_id" in str(exc)
    else:
        raise AssertionError("two lines with one custom_id were accepted")


def _output(custom_id, status=200, body=None, error=None):
    response = None if status is None else {"status_code": status, "body": body}
    return json.dumps({"id": "r", "custom_id": custom_id, "response": response, "error": error})


COMPLETION = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}}], "model": "m"}


def test_results_are_read_by_custom_id_with_errors_classified_as_the_live_path_does():
    text = "\n".join([
        _output("1", 200, COMPLETION),
        _output("2", 400, {"error": {"message": "Invalid value", "code": None}}),
        _output("3", 429, {"error": {"message": "slow down"}}),
        _output("4", 500, {"error": {"message": "oops"}}),
        _output("5", 401, {"error": {"message": "bad key"}}),
        _output("6", None, error={"code": "batch_expired", "message": "not run in time"}),
        _output("7", 400, {"error": {"message": "too long", "code": "context_length_exceeded"}}),
        _output("8", 200, {"no": "choices"}),
        "not json",
        json.dumps({"response": {}}),
        _output("1", 500, {}),  # a second line for 1: the first is kept
    ])
    results, problems = batch_files.parse_results(text)
    assert results["1"].body == COMPLETION and results["1"].error is None
    kinds = {cid: (r.error.kind, r.error.transient) for cid, r in results.items() if r.error}
    assert kinds == {"2": ("bad_request", False), "3": ("rate_limit", True), "4": ("server", True),
                     "5": ("auth", False), "6": ("server", True), "7": ("context", False), "8": ("malformed", True)}
    assert "batch_expired" in results["6"].error.message and "Invalid value" in results["2"].error.message
    assert len(problems) == 3 and "line 9" in problems[0] and "line 10" in problems[1] and "seen before" in problems[2]


@given(st.text(max_size=300))
def test_reading_any_text_never_raises(text):
    results, problems = batch_files.parse_results(text)
    assert all(isinstance(key, str) for key in results)


@given(st.lists(st.integers(min_value=1, max_value=10**9), unique=True, max_size=30))
def test_every_unit_written_is_read_back_under_its_own_id(ids):
    content = batch_files.request_file([(str(i), {"messages": [], "n": i}) for i in ids]).decode()
    lines = [json.loads(raw) for raw in content.splitlines()]
    assert [batch_files.unit_of(line["custom_id"]) for line in lines] == ids
    assert [line["body"]["n"] for line in lines] == ids


def test_batch_prices_come_from_the_table_else_half_of_live():
    # The table's batch prices where it has them.
    assert batch_prices(2e-6, 8e-6, 1e-6, 4e-6) == (1e-6, 4e-6, "batch price")
    # None in the table: half the live price, said so.
    assert batch_prices(2e-6, 8e-6, None, None) == (1e-6, 4e-6, "half of live")
    assert batch_prices(None, None, None, None) == (None, None, "unknown")


def test_the_plan_shows_batch_cost_beside_live():
    spec = ModelSpec(name="m", mode="generate", repeats=2, max_tokens=10, max_concurrency=4,
                     requests_per_minute=None, input_cost_per_token=2e-6, output_cost_per_token=8e-6)
    plan = plan_model(spec, [40, 80])
    # prompt tokens: (40/4 + 80/4) × 2 repeats = 60; completion: 4 units × 10 = 40
    # live: 60 × 2e-6 + 40 × 8e-6 = 0.00044; batch at half: 0.00022
    assert (plan.prompt_tokens, plan.completion_tokens) == (60, 40)
    assert abs(plan.cost - 0.00044) < 1e-12 and abs(plan.batch_cost - 0.00022) < 1e-12
    assert plan.batch_price_source == "half of live"
    refused = plan_model(ModelSpec(**{**spec.__dict__, "batch_refusal": "no batch interface"}), [40, 80])
    assert refused.batch_cost is None and refused.batch_refusal
