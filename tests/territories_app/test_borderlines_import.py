"""import_borderlines / export_borderlines / compare_borderlines and benchmark_stats on a
release-shaped directory: the sample, and copies of it with a flaw injected."""

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks_app.models import Benchmark, Condition, Question
from scenarios_app.models import Actor
from territories_app.models import Claimant, Country, Territory, TerritoryQuestion

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def copy_sample(tmp_path, name="release"):
    root = tmp_path / name
    shutil.copytree(SAMPLE, root)
    return root


def set_controller(root, territory, controller):
    path = root / "disputed_territories.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    for row in rows[1:]:
        if row[0] == territory:
            row[2] = controller
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def rename_country(root, old, new):
    path = root / "countries_info.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data = {(new if key == old else key): value for key, value in data.items()}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def counts():
    return (Benchmark.objects.count(), Territory.objects.count(), Question.objects.count(), Country.objects.count())


def test_the_sample_imports_its_territories_questions_and_countries():
    out = run("import_borderlines", str(SAMPLE), "--snapshot", "2026-11-01")
    benchmark = Benchmark.objects.get(name="borderlines")
    assert benchmark.family == "borderlines" and benchmark.borderlines_table.snapshot.isoformat() == "2026-11-01"
    assert Territory.objects.count() == 17 and Question.objects.filter(benchmark=benchmark).count() == 52
    assert "imported 17 territories, 15 languages into 'borderlines': questions 52 created" in out
    # Every territory has its English control; Spratly: six claimants, six languages (+ en).
    spratly = Territory.objects.get(name="Spratly Islands")
    assert spratly.controller is None and spratly.claimants.count() == 6
    keys = sorted(Question.objects.filter(borderlines__territory=spratly).values_list("language", flat=True))
    assert keys == sorted(["vi", "tl", "zhs", "zht", "ms", "en"])  # Malaysia and Brunei share ms: one question
    assert Question.objects.filter(language="en").count() == 17
    # ISO countries are linked to their actors; the one that is none is added as an entity, and said.
    assert Country.objects.get(name="Vietnam").actor.code == "VN"
    assert Country.objects.get(name="People's Republic of China").actor.code == "CN"
    sahrawi = Country.objects.get(name="Sahrawi Arab Democratic Republic").actor
    assert sahrawi.kind == Actor.Kind.DISPUTED
    # Republic of China is no alias of CN (pycountry's fuzzy search would say CN, the other claimant)
    # nor of TW ('Taiwan, Province of China'): without the demo's ROC actor it is an entity of its own.
    roc = Country.objects.get(name="Republic of China").actor
    assert roc.kind == Actor.Kind.DISPUTED and roc.code not in ("CN", "TW")
    assert ("actors added (not ISO countries): Republic of China (REPUBLIC_O), Sahrawi Arab Democratic Republic "
            "(SAHRAWI_AR)") in out
    assert "matched by official name: People's Republic of China → CN" in out
    assert "matched by alias: Brunei → BN, Russia → RU" in out


def test_a_question_carries_its_choices_in_claimant_order_and_their_english_names():
    run("import_borderlines", str(SAMPLE))
    question = Question.objects.get(key="borderlines/bl:crimea:ru")
    detail = question.borderlines
    assert detail.claimants_en == ["Russia", "Ukraine"] and detail.controller == "Russia"
    assert question.choice_count == 2 and question.option_order == [0, 1]
    assert [o["claimant"] for o in question.options] == ["Russia", "Ukraine"]
    assert "A) " in question.text and "B) " in question.text


def test_importing_again_changes_nothing_and_keeps_the_question_ids():
    run("import_borderlines", str(SAMPLE))
    ids = dict(Question.objects.values_list("key", "pk"))
    out = run("import_borderlines", str(SAMPLE))
    assert "questions 0 created, 0 updated, 0 retired" in out
    assert dict(Question.objects.values_list("key", "pk")) == ids


def test_a_dry_run_writes_nothing():
    out = run("import_borderlines", str(SAMPLE), "--dry-run")
    assert "dry run: 17 territories, 15 languages would be imported" in out
    assert counts() == (0, 0, 0, 0)


def test_a_controller_that_is_not_a_claimant_imports_nothing_and_names_the_line(tmp_path):
    root = copy_sample(tmp_path)
    set_controller(root, "Crimea", "Poland")
    with pytest.raises(CommandError, match="nothing was imported"):
        run("import_borderlines", str(root))
    assert counts() == (0, 0, 0, 0)


def test_a_misspelt_country_key_is_reported_with_the_claimants_it_leaves_without_a_country(tmp_path):
    root = copy_sample(tmp_path)
    rename_country(root, "Ukraine", "Ukriane")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_borderlines", str(root), stdout=out, stderr=io.StringIO())
    report = out.getvalue()
    assert "countries_info.json[Ukriane]" in report and "claimant 'Ukraine' has no entry in countries_info.json" \
        in report
    assert counts() == (0, 0, 0, 0)


def test_accepting_flaws_imports_what_is_sound_and_lists_what_was_left_out(tmp_path):
    root = copy_sample(tmp_path)
    set_controller(root, "Crimea", "Poland")
    out = run("import_borderlines", str(root), "--accept-flaws")
    assert "left out: territory Crimea" in out
    assert Territory.objects.count() == 16 and not Territory.objects.filter(name="Crimea").exists()
    assert not Question.objects.filter(key__startswith="borderlines/bl:crimea:").exists()


def test_a_territory_dropped_from_a_later_import_is_retired_not_deleted(tmp_path):
    run("import_borderlines", str(SAMPLE))
    root = copy_sample(tmp_path)
    set_controller(root, "Crimea", "Poland")
    out = run("import_borderlines", str(root), "--accept-flaws")
    assert "retired" in out
    crimea = Question.objects.filter(key__startswith="borderlines/bl:crimea:")
    assert crimea.exists() and not crimea.filter(is_current=True).exists()


def test_export_writes_the_sample_back_byte_for_byte(tmp_path):
    run("import_borderlines", str(SAMPLE))
    target = tmp_path / "out"
    run("export_borderlines", str(target))
    written = sorted(p.relative_to(target) for p in target.rglob("*") if p.is_file())
    expected = sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*") if p.is_file())
    assert written == expected
    for relative in expected:
        assert (target / relative).read_bytes() == (SAMPLE / relative).read_bytes(), relative


def test_export_refuses_a_directory_that_is_not_empty(tmp_path):
    run("import_borderlines", str(SAMPLE))
    (tmp_path / "x").write_text("keep me")
    with pytest.raises(CommandError, match="is not empty"):
        run("export_borderlines", str(tmp_path))
    assert (tmp_path / "x").read_text() == "keep me"


def test_two_snapshots_compare_by_controller_and_territory(tmp_path):
    run("import_borderlines", str(SAMPLE), "--benchmark", "bl-2025")
    root = copy_sample(tmp_path)
    set_controller(root, "Crimea", "Ukraine")
    run("import_borderlines", str(root), "--benchmark", "bl-2026")
    assert "controller changed: Crimea: Russia -> Ukraine" in run("compare_borderlines", "bl-2025", "bl-2026")


def test_benchmark_stats_prints_territories_and_languages_before_the_total():
    run("import_borderlines", str(SAMPLE))
    lines = run("benchmark_stats", "--benchmark", "borderlines").strip().splitlines()
    assert lines[-1] == "total questions: 52"
    assert "territories: 17" in lines and "languages: 15" in lines
    assert lines.index("territories: 17") < lines.index("languages: 15") < len(lines) - 1


def test_export_questions_writes_territory_language_choices_and_english_claimants(tmp_path):
    run("import_borderlines", str(SAMPLE))
    path = tmp_path / "questions.csv"
    call_command("export_questions", str(path), stderr=io.StringIO())
    rows = {row["question_key"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}
    crimea = rows["borderlines/bl:crimea:uk"]
    assert (crimea["territory"], crimea["language"]) == ("Crimea", "uk")
    assert json.loads(crimea["claimants_en"]) == ["Russia", "Ukraine"] and len(json.loads(crimea["choices"])) == 2


def test_the_strategies_are_conditions_of_the_family():
    names = set(Condition.objects.filter(family="borderlines").values_list("name", flat=True))
    assert names == {"bl-vanilla", "bl-un-peacekeeper", "bl-nationalist", "bl-input-demographics",
                     "bl-output-demographic-reasoning"}


def test_a_bad_benchmark_name_or_snapshot_is_refused():
    with pytest.raises(CommandError, match="--benchmark"):
        run("import_borderlines", str(SAMPLE), "--benchmark", "bad name")
    with pytest.raises(CommandError, match="--snapshot"):
        run("import_borderlines", str(SAMPLE), "--snapshot", "yesterday")
    assert counts() == (0, 0, 0, 0)


def test_a_cfpd_benchmark_is_not_overwritten():
    Benchmark.objects.create(name="demo")
    with pytest.raises(CommandError, match="CFPD"):
        run("import_borderlines", str(SAMPLE), "--benchmark", "demo")
    assert not TerritoryQuestion.objects.exists() and not Claimant.objects.exists()


def test_a_language_is_named_after_its_first_speaker_and_each_country_keeps_its_own_names(tmp_path):
    from territories_app.models import Language

    run("import_borderlines", str(SAMPLE))
    japanese = Language.objects.get(code="ja")
    assert (japanese.name, japanese.native_name, japanese.template) == ("Japanese", "日本語",
                                                                        "XX は YY と ZZ のいずれの領土ですか？")
    # Korean is 조선말 in the North and 한국어 in the South: both kept on the countries, both written back.
    assert Country.objects.get(name="North Korea").language_native == "조선말"
    assert Country.objects.get(name="South Korea").language_native == "한국어"
    assert Language.objects.get(code="ko").native_name == "한국어"  # South Korea comes first in the file
    run("export_borderlines", str(tmp_path / "out"))
    assert (tmp_path / "out" / "countries_info.json").read_bytes() == (SAMPLE / "countries_info.json").read_bytes()


# --- a release-shaped directory of our own: a misspelt key, countries in everyday English ---
# tests/data/borderlines_everyday: 7 territories. Suriname's entry is under the key
# 'Suri_Lang_Name' (difflib ratio 0.73 against 'Suriname': too far for a 0.8 'did you mean'),
# Nimba Ridge's controller is no claimant, and the claimants are written Turkey, Ivory Coast,
# Democratic Republic of Congo and Republic of Kosovo, as BorderLines writes them.

EVERYDAY = Path(__file__).resolve().parents[1] / "data" / "borderlines_everyday"


def test_a_misspelt_key_is_named_beside_the_claimant_and_every_flaw_names_its_territory():
    out = io.StringIO()
    with pytest.raises(CommandError, match="4 flaw"):
        call_command("import_borderlines", str(EVERYDAY), stdout=out, stderr=io.StringIO())
    assert out.getvalue().splitlines() == [
        "disputed_territories.csv:8 (Nimba Ridge): controller 'Guinea' is not among the claimants "
        "(Liberia, Ivory Coast)",
        "disputed_territories.csv:6 (Tigri Area): claimant 'Suriname' has no entry in countries_info.json; "
        "its entry is probably the misspelt key 'Suri_Lang_Name' (rename it 'Suriname')",
        "disputed_territories.csv:7 (Marowijne Bank): claimant 'Suriname' has no entry in countries_info.json; "
        "its entry is probably the misspelt key 'Suri_Lang_Name' (rename it 'Suriname')",
        "countries_info.json[Suri_Lang_Name]: key 'Suri_Lang_Name' is probably 'Suriname' misspelt: no territory "
        "names it, and 'Suriname' has no entry, which leaves disputed_territories.csv lines 6 (Tigri Area), "
        "7 (Marowijne Bank) without a country; rename the key to 'Suriname' (it is not imported as an actor)",
    ]
    assert counts() == (0, 0, 0, 0)


def test_accepting_flaws_never_makes_the_misspelt_key_an_actor_and_matches_everyday_names_to_iso():
    actors_before = Actor.objects.count()
    out = run("import_borderlines", str(EVERYDAY), "--accept-flaws", "--benchmark", "everyday")
    assert not Actor.objects.filter(prompt_name="Suri_Lang_Name").exists()
    assert not Country.objects.filter(name="Suri_Lang_Name").exists()
    assert "not imported: country key 'Suri_Lang_Name', probably 'Suriname' misspelt (no actor made)" in out
    assert sorted(Territory.objects.values_list("name", flat=True)) == [
        "Cavally Strip", "Kosovo", "Northern Cyprus", "Ruzizi Plain"]  # Tigri, Marowijne, Nimba left out
    actor_of = dict(Country.objects.values_list("name", "actor__code"))
    assert actor_of == {"Serbia": "RS", "Republic of Kosovo": "XK", "Republic of Cyprus": "CY", "Turkey": "TR",
                        "Democratic Republic of Congo": "CD", "Rwanda": "RW", "Ivory Coast": "CI", "Liberia": "LR",
                        "Guyana": "GY", "Moldova": "MD"}
    # XK is no pycountry entry: the import made the state actor once, and said nothing was added as an entity.
    kosovo = Actor.objects.get(code="XK")
    assert (kosovo.kind, kosovo.prompt_name, kosovo.iso_alpha3) == (Actor.Kind.STATE, "Kosovo", "XKX")
    assert Actor.objects.count() == actors_before + 1 and "actors added" not in out
    lines = out.splitlines()
    assert "matched by name: Serbia → RS, Rwanda → RW, Liberia → LR, Guyana → GY" in lines
    assert "matched by official name: Republic of Cyprus → CY" in lines
    assert "matched by common name: Moldova → MD" in lines  # pycountry's name: 'Moldova, Republic of'
    assert ("matched by alias: Republic of Kosovo → XK, Turkey → TR, Democratic Republic of Congo → CD, "
            "Ivory Coast → CI") in lines
    # Again: the countries keep the actors they have (said so), and XK is not made twice.
    again = run("import_borderlines", str(EVERYDAY), "--accept-flaws", "--benchmark", "everyday")
    assert Actor.objects.filter(code="XK").count() == 1 and Actor.objects.count() == actors_before + 1
    assert "matched by earlier import: Serbia → RS, Republic of Kosovo → XK" in again


def test_a_flaw_of_a_translated_question_names_its_territory_too(tmp_path):
    root = tmp_path / "release"
    shutil.copytree(EVERYDAY, root)
    choices = root / "translate" / "prompts_mc_q" / "choices.tr"
    choices.write_text('["Kıbrıs Cumhuriyeti"]\n', encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_borderlines", str(root), stdout=out, stderr=io.StringIO())
    assert ("translate/prompts_mc_q/choices.tr:1 (Northern Cyprus): 1 choice for Northern Cyprus, which has 2 "
            "claimants (Republic of Cyprus, Turkey)") in out.getvalue()


def set_query_id(root, territory, query_id):
    path = root / "disputed_territories.csv"
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    for row in rows[1:]:
        if row[0] == territory:
            row[rows[0].index("QueryID")] = query_id
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


def test_a_query_id_as_long_as_the_public_releases_longest_imports_whole(tmp_path):
    # The public release's longest QueryID is 47 characters; the column once held 40 and the
    # importer refused the release for it. 47 characters fit now; 201 (over the column's 200)
    # is refused by name and nothing is written.
    root = copy_sample(tmp_path)
    long_id = "Some_Island_Group_and_the_Farther_Southern_I_en"
    assert len(long_id) == 47
    table = list(csv.reader(io.StringIO((root / "disputed_territories.csv").read_text(encoding="utf-8"))))
    territory = table[1][0]
    set_query_id(root, territory, long_id)
    run("import_borderlines", str(root))
    assert Territory.objects.get(name=territory).query_id == long_id

    set_query_id(root, territory, "Q" * 201)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 flaw"):
        call_command("import_borderlines", str(root), stdout=out, stderr=err)
    assert "is 201 characters long; at most 200 fit" in out.getvalue() + err.getvalue()
    assert Territory.objects.get(name=territory).query_id == long_id  # nothing half-written
