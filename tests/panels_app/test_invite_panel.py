"""invite_panel --panel P --count N --out FILE: a CSV with a column url, each link opening
its own respondent's consent page; bad input named, nothing written."""

import csv

import pytest
from django.core.management import CommandError, call_command

from panels_app.models import Respondent
from tests.panels_app.support import make_benchmark, make_panel

pytestmark = pytest.mark.django_db


def test_it_writes_n_single_use_links(tmp_path, client):
    panel = make_panel(make_benchmark()[0])
    out = tmp_path / "links.csv"
    call_command("invite_panel", "--panel", panel.name, "--count", "3", "--out", str(out),
                 "--base-url", "https://survey.example.org")
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == ["url"] and len(rows) == 3
    tokens = [row["url"].rsplit("/", 2)[-2] for row in rows]
    assert all(row["url"] == f"https://survey.example.org/p/{t}/" for row, t in zip(rows, tokens))
    assert set(Respondent.objects.values_list("token", flat=True)) == set(tokens)
    assert client.get(f"/p/{tokens[0]}/").status_code == 200


def test_it_names_what_is_wrong(tmp_path):
    panel = make_panel(make_benchmark()[0])
    with pytest.raises(CommandError, match=r"no panel named 'nobody' \(panels: IR scholars\)"):
        call_command("invite_panel", "--panel", "nobody", "--count", "3", "--out", str(tmp_path / "a.csv"))
    with pytest.raises(CommandError, match="count: must be a whole number from 1 to 10,000"):
        call_command("invite_panel", "--panel", panel.name, "--count", "0", "--out", str(tmp_path / "b.csv"))
    with pytest.raises(CommandError, match="--out: cannot write"):
        call_command("invite_panel", "--panel", panel.name, "--count", "1", "--out", str(tmp_path / "no" / "c.csv"))
    assert not Respondent.objects.exists()
