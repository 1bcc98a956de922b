from dataclasses import dataclass

import pytest

from cfpd_site.env import ConfigError, envbool, envint, envlist
from scenarios_app.counts import format_counts, pivot_counts


@dataclass
class Row:
    domain: str
    choice_count: int
    qualified_actor: str
    questions: int


def test_pivot_puts_focus_actors_in_columns_and_the_rest_in_other():
    rows = [Row("Escalation", 2, "US", 3), Row("Escalation", 2, "BR", 2), Row("Escalation", 2, "FR", 1),
            Row("Cooperation", 2, "CN", 4)]
    table = pivot_counts(rows, ["US", "CN"])
    assert table.columns == ["US", "CN", "other"]
    assert table.rows == [("Escalation", 2, [3, 0, 3], 6), ("Cooperation", 2, [0, 4, 0], 4)]
    assert table.totals == [3, 4, 3] and table.total == 10  # 6 + 4
    text = format_counts(table)
    assert text.splitlines()[0].split() == ["domain", "choices", "US", "CN", "other", "total"]
    assert text.splitlines()[-1].split() == ["all", "3", "4", "3", "10"]


def test_env_readers_fail_loudly_on_bad_values(monkeypatch):
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ConfigError, match="FLAG='maybe' is not a boolean"):
        envbool("FLAG", False)
    monkeypatch.setenv("FLAG", "Yes")
    assert envbool("FLAG", False) is True
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ConfigError, match="COUNT='ten' is not an integer"):
        envint("COUNT", 1)
    monkeypatch.setenv("HOSTS", "a.example, ,b.example")
    assert envlist("HOSTS", []) == ["a.example", "b.example"]
