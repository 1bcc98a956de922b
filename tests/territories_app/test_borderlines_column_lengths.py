"""import_borderlines and a value longer than its column (issue 32): a 121-character
field of countries_info.json is a flaw of its file and key, never a DataError, on SQLite
(which would store it silently) as on PostgreSQL (which refuses the transaction); and
`--dry-run` lists exactly the flaws the import lists."""

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from territories_app import services
from territories_app.models import Country, Territory

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


def release_with(tmp_path, country="Vietnam", field="Religion", length=121):
    root = tmp_path / "release"
    shutil.copytree(SAMPLE, root)
    path = root / "countries_info.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data[country][field] = "x" * length
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return root


def command(*args):
    out = io.StringIO()
    try:
        call_command("import_borderlines", *map(str, args), stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), None


def flaw_lines(out):
    return [line for line in out.splitlines() if line.startswith("countries_info.json")]


def test_a_121_character_religion_is_a_flaw_naming_its_file_key_and_length(tmp_path):
    root = release_with(tmp_path)
    out, error = command(root)
    assert error and "nothing was imported" in error
    lines = flaw_lines(out)
    # One flaw for the country itself, one per territory Vietnam claims (Spratly, Paracel).
    assert lines[0] == ("countries_info.json[Vietnam]: Religion 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' is 121 "
                        "characters long; at most 120 fit: shorten it")
    assert any(line.startswith("countries_info.json[Vietnam] (Spratly Islands): claimant 'Vietnam'") for line in lines)
    assert any(line.startswith("countries_info.json[Vietnam] (Paracel Islands): claimant 'Vietnam'") for line in lines)
    assert Country.objects.count() == 0 and Territory.objects.count() == 0


def test_120_characters_fit_and_import(tmp_path):
    root = release_with(tmp_path, length=120)
    out, error = command(root)
    assert error is None, out
    assert Country.objects.get(name="Vietnam").religion == "x" * 120


def test_accepting_flaws_imports_the_rest_and_leaves_out_the_country_and_its_territories(tmp_path):
    root = release_with(tmp_path, field="Lang_Name_Native")
    out, error = command(root, "--accept-flaws")
    assert error is None, out
    assert not Country.objects.filter(name="Vietnam").exists()
    names = set(Territory.objects.values_list("name", flat=True))
    assert "Spratly Islands" not in names and "Paracel Islands" not in names
    assert "Senkaku Islands" in names  # Vietnam claims nothing there
    assert "left out: territory Spratly Islands" in out


@pytest.mark.parametrize("country,field,length", [
    ("Vietnam", "Religion", 121),
    ("Philippines", "Lang_Code", 17),        # Language.code is 16
    ("Japan", "Lang_Name", 81),              # Country.language_name and Language.name are 80
])
@pytest.mark.parametrize("accept", [False, True])
def test_the_dry_run_finds_exactly_the_flaws_the_import_finds(tmp_path, country, field, length, accept):
    root = release_with(tmp_path, country, field, length)
    extra = ["--accept-flaws"] if accept else []
    dry_out, _ = command(root, "--dry-run", *extra)
    dry = services.import_release(root, dry_run=True, accept_flaws=accept)
    real = services.import_release(root, accept_flaws=accept)
    assert dry.flaws and dry.flaws == real.flaws
    assert dry.left_out == real.left_out
    assert [line for line in dry_out.splitlines() if line in real.flaws] == real.flaws
    assert real.imported is accept


def test_a_key_of_121_characters_is_a_flaw_too(tmp_path):
    root = tmp_path / "release"
    shutil.copytree(SAMPLE, root)
    path = root / "countries_info.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["V" * 121] = data["Vietnam"]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    report = services.import_release(root, accept_flaws=True)
    assert f"countries_info.json[{'V' * 121}]: the country key 'VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV…' is 121 " \
           "characters long; at most 120 fit: shorten it" in report.flaws
    assert report.imported and not Country.objects.filter(name="V" * 121).exists()
