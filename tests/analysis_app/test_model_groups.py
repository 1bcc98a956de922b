"""analysis_app.model_groups: which rows are one model, its canonical name, and which
figures are alike (same answer mode)."""

from analysis_app.model_groups import ModelRow, alike, canonical_name, group_of, groups, pick
from analysis_app.results import Figure

SMOL = [ModelRow("local-smollm2-text", "cfpd-local/smollm2", "", "generate"),
        ModelRow("local-smollm2", "cfpd-local/smollm2", "", "choice"),
        ModelRow("local-smollm2-rank", "cfpd-local/smollm2", "", "rank")]
GEMMA = [ModelRow("local-gemma3", "cfpd-local/gemma3", "", "choice"),
         ModelRow("local-gemma3-text", "cfpd-local/gemma3", "", "generate")]


def test_rows_of_one_litellm_model_are_one_group_named_by_the_shortest():
    found = groups(SMOL + GEMMA)
    assert [g.name for g in found] == ["local-gemma3", "local-smollm2"]
    assert found[1].names == ["local-smollm2", "local-smollm2-rank", "local-smollm2-text"]  # canonical, then by name
    assert found[1].kinds == {"local-smollm2": "choice", "local-smollm2-rank": "rank",
                              "local-smollm2-text": "generate"}
    assert group_of("local-smollm2-text", SMOL + GEMMA).name == "local-smollm2"
    assert group_of("nobody", SMOL) is None


def test_the_canonical_name_is_the_shortest_then_the_first_alphabetically():
    assert canonical_name(["gpt-4o-t1", "gpt-4o", "gpt-4o-rank"]) == "gpt-4o"
    assert canonical_name(["b-x", "a-x", "c-xy"]) == "a-x"


def test_a_different_server_is_a_different_model_and_a_trailing_slash_is_not():
    rows = [ModelRow("llama-a", "openai/llama", "http://gpu1:8000/v1"),
            ModelRow("llama-b", "openai/llama", "http://gpu2:8000/v1"),
            ModelRow("llama-a2", "openai/llama", "http://gpu1:8000/v1/")]
    assert [g.names for g in groups(rows)] == [["llama-a", "llama-a2"], ["llama-b"]]


def test_rows_without_an_address_and_external_rows_stand_alone():
    rows = [ModelRow("one", ""), ModelRow("two", "  "), ModelRow("gpt4", "imported/x", external=True),
            ModelRow("gpt4-again", "imported/x", external=True)]
    assert [g.names for g in groups(rows)] == [["gpt4"], ["gpt4-again"], ["one"], ["two"]]


def figure(model, estimate, metric="m"):
    return Figure(benchmark="b", family="f", model=model, metric=metric, label="M", estimate=estimate)


def test_alike_keeps_the_figures_of_rows_of_the_same_mode():
    kinds = {"local-smollm2": "choice", "local-gemma3": "choice", "local-gemma3-text": "generate"}
    figures = [figure("local-smollm2", 0.1), figure("local-gemma3", 0.2), figure("local-gemma3-text", 0.3),
               figure("unregistered", 0.4)]
    assert [f.model for f in alike(figures, kinds, "choice")] == ["local-smollm2", "local-gemma3"]
    assert [f.model for f in alike(figures, kinds, "generate")] == ["local-gemma3-text"]


def test_pick_takes_the_groups_first_row_of_the_mode_with_a_figure():
    kinds = {"a": "choice", "a-t1": "choice", "a-text": "generate"}
    by_row = {"a-t1": figure("a-t1", 0.5), "a-text": figure("a-text", 0.6)}
    assert pick(by_row, ["a", "a-t1", "a-text"], kinds, "choice").model == "a-t1"  # "a" has none
    assert pick(by_row, ["a", "a-t1", "a-text"], kinds, "generate").model == "a-text"
    assert pick(by_row, ["a", "a-t1", "a-text"], kinds, "rank") is None
