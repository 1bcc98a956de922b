"""Reading and writing the BorderLines release layout (territories_app.release).

The sample directory (territories_app/sample_borderlines) round-trips byte for byte;
a small hand-made directory reads into exactly the dataclasses expected; and every flaw
the importer knows is injected into a copy of the sample, one at a time, and reported
with its file and line (or key) and nothing else. Sample rows: the table's line is the
row index + 2 (the header is line 1): Spratly Islands 2, Scarborough Shoal 4, Crimea 12,
Gibraltar 13.
"""

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from territories_app.release import (
    Country, Flaw, LeftOut, Query, Release, Territory, read_release, write_release,
)

SAMPLE = Path(__file__).resolve().parents[2] / "territories_app" / "sample_borderlines"


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def sample():
    return read_release(SAMPLE)


# --- the sample and the round trip -----------------------------------------------------

def test_the_sample_reads_without_a_flaw(sample):
    assert [str(f) for f in sample.flaws] == []


def test_the_sample_covers_what_the_importer_must_handle(sample):
    territories = sample.territories
    assert len(territories) == 17
    assert len(sample.templates) == 15 and {"zhs", "zht", "ja", "ko", "ru", "ar", "he", "hi"} <= set(sample.templates)
    assert [t.name for t in territories if t.controller is None] == ["Spratly Islands", "Western Sahara", "Abyei"]
    assert [t.name for t in territories if len(t.claimants) >= 3] == [
        "Spratly Islands", "Paracel Islands", "Scarborough Shoal", "Senkaku Islands", "Liancourt Rocks", "Aksai Chin"]
    shared = [t.name for t in territories if any(len(s) > 1 for s in sample.languages_of(t).values())]
    assert shared == ["Spratly Islands", "Liancourt Rocks", "Western Sahara", "Hala'ib Triangle"]
    # translated queries: one per (territory, claimant language), English included
    assert sum(len(q) for q in sample.translations.values()) == sum(len(sample.languages_of(t)) for t in territories)
    assert len(sample.controls) == 17


def test_a_territory_row_reads_into_its_dataclass(sample):
    assert sample.territories[13] == Territory(
        index=13, name="Abyei", claimants=("Sudan", "South Sudan"), controller=None, region="Africa",
        population=140000, query="Is Abyei a territory of A) Sudan or B) South Sudan?", query_id="Abyei_en")
    assert sample.territories[13].line == 15
    assert sample.countries["Republic of China"] == Country(
        "Republic of China", "zht", "Chinese (Traditional)", "繁體中文", "Folk religion", 23400000)


def test_translated_queries_keep_their_line_and_territory(sample):
    ru = sample.translations["ru"]
    assert ru == (
        Query("ru", 5, "South Kuril Islands", "Южные Курилы — территория какой страны: A) Россия или B) Япония?",
              ("Россия", "Япония")),
        Query("ru", 10, "Crimea", "Крым — территория какой страны: A) Россия или B) Украина?", ("Россия", "Украина")),
    )
    assert [q.line for q in ru] == [1, 2]


def test_read_write_read_is_equal_and_byte_identical(sample, tmp_path):
    write_release(sample, tmp_path / "copy")
    assert files_of(tmp_path / "copy") == files_of(SAMPLE)
    again = read_release(tmp_path / "copy")
    assert again == sample and again.flaws == ()


def test_term_translations_add_the_choices_names_and_english_identity(sample):
    terms = sample.term_translations()
    assert terms["ko"]["North Korea"] == "조선민주주의인민공화국"
    assert terms["en"]["Crimea"] == "Crimea"


# --- a small hand-made directory ---------------------------------------------------------

def write_files(root: Path, files: dict[str, str]):
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8", newline="")


SMALL = {
    "disputed_territories.csv": (
        "Territory,Claimants,Controller,Region,Population,Query,QueryID\n"
        "Isla,Alfa;Beta;Gamma,Unknown,Sea,12,Is Isla a territory of A) Alfa or B) Beta or C) Gamma?,Isla_en\n"
        '"Cape, North",Beta;Alfa,Beta,Land,3.5,"Is Cape, North a territory of A) Beta or B) Alfa?",Cape_North_en\n'),
    "countries_info.json": json.dumps({
        "Alfa": {"Lang_Code": "en", "Lang_Name": "English", "Lang_Name_Native": "English",
                 "Religion": "None", "Population": 10},
        "Beta": {"Lang_Code": "es", "Lang_Name": "Spanish", "Lang_Name_Native": "español",
                 "Religion": "Christianity", "Population": 20},
        # the GitHub copy's lower-case fields are read too
        "Gamma": {"code": "es", "name": "Spanish", "name_native": "español", "religion": "Christianity",
                  "population": 30}}),
    "templates_q.tsv": "code\ttemplate\nen\tIs XX a territory of YY or ZZ?\nes\t¿Es XX territorio de YY o ZZ?\n",
    "translate/prompts_mc_q/prompts.es": ("¿Es Isla territorio de A) Alfa o B) Beta o C) Gama?\n"
                                          "¿Es Cabo Norte territorio de A) Beta o B) Alfa?\n"),
    "translate/prompts_mc_q/choices.es": '["Alfa", "Beta", "Gama"]\n["Beta", "Alfa"]\n',
    "translate/terms/line_inds.es.txt": "0\n1\n",  # one index per line is read as well
    "translate/prompts_mc_q/prompts.en": ("Is Isla a territory of A) Alfa or B) Beta or C) Gamma?\n"
                                          "Is Cape, North a territory of A) Beta or B) Alfa?\n"),
    "translate/prompts_mc_q/choices.en": '["Alfa", "Beta", "Gamma"]\n["Beta", "Alfa"]\n',
    "translate/terms/line_inds.en.txt": "[0, 1]",
    "prompts/prompts_q_mc.txt": ("Is Isla a territory of A) Alfa or B) Beta or C) Gamma?\n"
                                 "Is Cape, North a territory of A) Beta or B) Alfa?\n"),
    "prompts/choices.txt": '["Alfa", "Beta", "Gamma"]\n["Beta", "Alfa"]\n',
}


def test_a_small_directory_reads_into_exactly_these_dataclasses(tmp_path):
    write_files(tmp_path, SMALL)
    release = read_release(tmp_path)
    isla_en = "Is Isla a territory of A) Alfa or B) Beta or C) Gamma?"
    cape_en = "Is Cape, North a territory of A) Beta or B) Alfa?"
    assert release == Release(
        territories=(
            Territory(0, "Isla", ("Alfa", "Beta", "Gamma"), None, "Sea", 12, isla_en, "Isla_en"),
            Territory(1, "Cape, North", ("Beta", "Alfa"), "Beta", "Land", 3.5, cape_en, "Cape_North_en"),
        ),
        countries={"Alfa": Country("Alfa", "en", "English", "English", "None", 10),
                   "Beta": Country("Beta", "es", "Spanish", "español", "Christianity", 20),
                   "Gamma": Country("Gamma", "es", "Spanish", "español", "Christianity", 30)},
        templates={"en": "Is XX a territory of YY or ZZ?", "es": "¿Es XX territorio de YY o ZZ?"},
        translations={
            "en": (Query("en", 0, "Isla", isla_en, ("Alfa", "Beta", "Gamma")),
                   Query("en", 1, "Cape, North", cape_en, ("Beta", "Alfa"))),
            "es": (Query("es", 0, "Isla", "¿Es Isla territorio de A) Alfa o B) Beta o C) Gama?", ("Alfa", "Beta", "Gama")),
                   Query("es", 1, "Cape, North", "¿Es Cabo Norte territorio de A) Beta o B) Alfa?", ("Beta", "Alfa"))),
        },
        controls=(Query("en", 0, "Isla", isla_en, ("Alfa", "Beta", "Gamma")),
                  Query("en", 1, "Cape, North", cape_en, ("Beta", "Alfa"))),
    )
    assert release.flaws == ()
    assert [t.line for t in release.territories] == [2, 3]


def test_a_small_directory_round_trips_to_equal_data(tmp_path):
    write_files(tmp_path / "in", SMALL)
    first = read_release(tmp_path / "in")
    write_release(first, tmp_path / "out")
    assert read_release(tmp_path / "out") == first
    # the canonical form: line_inds as a JSON list, countries with the layout's field names
    assert (tmp_path / "out/translate/terms/line_inds.es.txt").read_text() == "[0, 1]"
    assert '"Lang_Code": "es"' in (tmp_path / "out/countries_info.json").read_text()


def test_a_directory_that_is_not_there_is_one_flaw(tmp_path):
    release = read_release(tmp_path / "nowhere")
    assert [str(f) for f in release.flaws] == [f"{tmp_path / 'nowhere'}: not a directory"]
    assert release.territories == ()


def test_missing_countries_leave_every_claimant_without_a_language(tmp_path):
    write_files(tmp_path, {k: v for k, v in SMALL.items() if k != "countries_info.json"})
    assert [str(f) for f in read_release(tmp_path).flaws] == [
        "countries_info.json: missing file",
        "disputed_territories.csv:2 (Isla): claimant 'Alfa' has no entry in countries_info.json",
        "disputed_territories.csv:2 (Isla): claimant 'Beta' has no entry in countries_info.json",
        "disputed_territories.csv:2 (Isla): claimant 'Gamma' has no entry in countries_info.json",
        "disputed_territories.csv:3 (Cape, North): claimant 'Beta' has no entry in countries_info.json",
        "disputed_territories.csv:3 (Cape, North): claimant 'Alfa' has no entry in countries_info.json",
    ]


def test_a_flaw_renders_as_file_line_or_file_key():
    assert str(Flaw("a.csv", 3, "bad")) == "a.csv:3: bad"
    assert str(Flaw("b.json", "Spain", "bad")) == "b.json[Spain]: bad"
    assert str(Flaw("c.txt", None, "missing file")) == "c.txt: missing file"


# --- each flaw, injected into a copy of the sample -------------------------------------------

def flawed(tmp_path, *mutations) -> Release:
    root = tmp_path / "release"
    shutil.copytree(SAMPLE, root)
    for mutate in mutations:
        mutate(root)
    return read_release(root)


def edit_lines(relative, edit):
    def mutate(root):
        lines = (root / relative).read_text(encoding="utf-8").split("\n")[:-1]
        (root / relative).write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")
    return mutate


def set_line(relative, number, new):
    return edit_lines(relative, lambda lines: lines[:number - 1] + [new] + lines[number:])


def edit_table(edit):
    def mutate(root):
        path = root / "disputed_territories.csv"
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(edit(rows))
        path.write_text(out.getvalue(), encoding="utf-8")
    return mutate


def set_cell(row_index, column, value):
    def edit(rows):
        rows[row_index + 1][rows[0].index(column)] = value
        return rows
    return edit_table(edit)


def edit_json(relative, edit):
    def mutate(root):
        path = root / relative
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(edit(data), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return mutate


def flaws_of(release) -> list[str]:
    return [str(f) for f in release.flaws]


def test_a_file_that_is_not_utf8_is_a_flaw_on_the_line_of_the_bad_byte(tmp_path):
    def latin1(root):
        path = root / "translate/prompts_mc_q/prompts.ru"
        path.write_bytes(path.read_bytes().replace("Крым".encode(), "Crimée".encode("latin-1")))
    release = flawed(tmp_path, latin1)
    assert flaws_of(release) == ["translate/prompts_mc_q/prompts.ru:2: not UTF-8 text (byte 0xe9); save it as UTF-8"]
    assert release.flaws[0].language == "ru"


def test_a_binary_file_is_a_flaw_on_the_line_of_its_nul_byte(tmp_path):
    def nul(root):
        path = root / "templates_q.tsv"
        path.write_bytes(path.read_bytes().replace(b"es\t", b"es\x00\t"))  # es is line 4
    assert flaws_of(flawed(tmp_path, nul)) == ["templates_q.tsv:4: binary file (a NUL byte), not text"]


def test_an_unreadable_file_is_a_flaw(tmp_path):
    def folder(root):
        (root / "prompts/choices.txt").unlink()
        (root / "prompts/choices.txt").mkdir()
    assert flaws_of(flawed(tmp_path, folder)) == ["prompts/choices.txt: not a file"]


def test_a_missing_required_file_is_a_flaw(tmp_path):
    assert flaws_of(flawed(tmp_path, lambda root: (root / "prompts/prompts_q_mc.txt").unlink())) == [
        "prompts/prompts_q_mc.txt: missing file"]


def test_a_missing_choices_file_leaves_its_language_out(tmp_path):
    release = flawed(tmp_path, lambda root: (root / "translate/prompts_mc_q/choices.ja").unlink())
    assert flaws_of(release) == ["translate/prompts_mc_q/choices.ja: missing file"]
    sound, left_out = release.sound()
    assert [str(x) for x in left_out] == ["language ja: translate/prompts_mc_q/choices.ja: missing file"]
    assert "ja" not in sound.translations and len(sound.territories) == 17


def test_a_missing_column_is_a_flaw_on_the_header(tmp_path):
    drop_region = edit_table(lambda rows: [row[:3] + row[4:] for row in rows])
    assert flaws_of(flawed(tmp_path, drop_region)) == ["disputed_territories.csv:1: missing column Region"]


def test_a_short_row_is_a_flaw_on_its_line(tmp_path):
    short = edit_table(lambda rows: rows[:11] + [rows[11][:6]] + rows[12:])  # Crimea, without QueryID
    release = flawed(tmp_path, short)
    assert flaws_of(release) == ["disputed_territories.csv:12 (Crimea): row has 6 fields, the header 7"]
    assert release.flaws[0].territory == "Crimea"


def test_an_empty_claimant_name_is_a_malformed_row(tmp_path):
    assert flaws_of(flawed(tmp_path, set_cell(10, "Claimants", "Russia;;Ukraine"))) == [
        "disputed_territories.csv:12 (Crimea): empty claimant name in 'Russia;;Ukraine'"]


def test_a_choices_line_that_is_not_a_json_list_is_a_flaw_of_that_question(tmp_path):
    release = flawed(tmp_path, set_line("translate/prompts_mc_q/choices.vi", 2, "Việt Nam; Trung Hoa"))
    assert flaws_of(release) == [
        "translate/prompts_mc_q/choices.vi:2 (Paracel Islands): expected a JSON list of names, got 'Việt Nam; Trung Hoa'"]
    assert (release.flaws[0].territory, release.flaws[0].language) == ("Paracel Islands", "vi")


def test_a_template_line_without_a_tab_is_malformed_and_leaves_its_language_without_template(tmp_path):
    release = flawed(tmp_path, set_line("templates_q.tsv", 6, "hi XX किसका क्षेत्र है: YY या ZZ?"))
    assert flaws_of(release) == [
        "templates_q.tsv:6: expected code<TAB>template, got 'hi XX किसका क्षेत्र है: YY या ZZ?'",
        "templates_q.tsv[hi]: no template for hi, the language of India",
    ]


def test_a_template_without_a_placeholder_is_a_flaw_of_its_language(tmp_path):
    release = flawed(tmp_path, set_line("templates_q.tsv", 10, "ru\tXX — территория какой страны: YY?"))
    assert flaws_of(release) == [
        "templates_q.tsv:10: template lacks the placeholder ZZ (XX the territory, YY and ZZ the claimants, once each)"]
    assert release.flaws[0].language == "ru"


def test_a_misspelt_country_key_is_reported_on_the_key_and_on_each_orphaned_claimant(tmp_path):
    def misspell(data):
        return {("Phillipines" if name == "Philippines" else name): info for name, info in data.items()}
    release = flawed(tmp_path, edit_json("countries_info.json", misspell))
    assert flaws_of(release) == [
        "disputed_territories.csv:2 (Spratly Islands): claimant 'Philippines' has no entry in countries_info.json; "
        "its entry is probably the misspelt key 'Phillipines' (rename it 'Philippines')",
        "disputed_territories.csv:4 (Scarborough Shoal): claimant 'Philippines' has no entry in countries_info.json; "
        "its entry is probably the misspelt key 'Phillipines' (rename it 'Philippines')",
        "countries_info.json[Phillipines]: key 'Phillipines' is probably 'Philippines' misspelt: no territory names "
        "it, and 'Philippines' has no entry, which leaves disputed_territories.csv lines 2 (Spratly Islands), "
        "4 (Scarborough Shoal) without a country; rename the key to 'Philippines' (it is not imported as an actor)",
    ]
    assert release.misspelt_keys == {"Phillipines": "Philippines"}
    sound, left_out = release.sound()
    assert [x.territory for x in left_out] == ["Spratly Islands", "Scarborough Shoal"]
    assert len(sound.territories) == 15 and sound.translations["tl"] == ()
    # the misspelt key is no country of its own: what is imported does not carry it
    assert "Phillipines" not in sound.countries and "Vietnam" in sound.countries


def test_a_controller_that_is_not_a_claimant_is_a_flaw(tmp_path):
    release = flawed(tmp_path, set_cell(11, "Controller", "Britain"))
    assert flaws_of(release) == [
        "disputed_territories.csv:13 (Gibraltar): controller 'Britain' is not among the claimants (United Kingdom, Spain)"]
    sound, left_out = release.sound()
    assert "Gibraltar" not in [t.name for t in sound.territories]
    assert [q.territory for q in sound.translations["es"]] == ["Falkland Islands", "Essequibo"]
    assert [str(x) for x in left_out] == [
        "territory Gibraltar: disputed_territories.csv:13 (Gibraltar): controller 'Britain' is not among the claimants "
        "(United Kingdom, Spain)"]


def test_choices_of_the_wrong_count_are_a_flaw_of_that_question(tmp_path):
    release = flawed(tmp_path, set_line("translate/prompts_mc_q/choices.ru", 2, '["Россия"]'))
    assert flaws_of(release) == [
        "translate/prompts_mc_q/choices.ru:2 (Crimea): 1 choice for Crimea, which has 2 claimants (Russia, Ukraine)"]
    sound, left_out = release.sound()
    assert [str(x) for x in left_out] == [
        "question Crimea [ru]: translate/prompts_mc_q/choices.ru:2 (Crimea): 1 choice for Crimea, which has 2 claimants "
        "(Russia, Ukraine)"]
    assert [q.territory for q in sound.translations["ru"]] == ["South Kuril Islands"]
    assert "Crimea" in [t.name for t in sound.territories]


def test_a_choice_that_differs_from_the_known_translation_is_a_flaw(tmp_path):
    release = flawed(tmp_path, set_line("translate/prompts_mc_q/choices.ru", 2, '["Российская Федерация", "Украина"]'))
    assert flaws_of(release) == [
        "translate/prompts_mc_q/choices.ru:2 (Crimea): choice A) 'Российская Федерация' for Russia differs from 'Россия' "
        "in terms_gt.ru.json",
        "translate/prompts_mc_q/prompts.ru:2 (Crimea): the query does not offer A) Российская Федерация",
    ]


def test_without_a_terms_file_an_earlier_line_gives_the_known_translation(tmp_path):
    release = flawed(tmp_path, lambda root: (root / "translate/terms/terms_gt.ru.json").unlink(),
                     set_line("translate/prompts_mc_q/choices.ru", 2, '["Российская Федерация", "Украина"]'))
    assert flaws_of(release)[0] == ("translate/prompts_mc_q/choices.ru:2 (Crimea): choice A) 'Российская Федерация' for "
                                    "Russia differs from 'Россия' in line 1")


def test_an_index_out_of_range_is_a_flaw_on_its_json_key(tmp_path):
    release = flawed(tmp_path, lambda root: (root / "translate/terms/line_inds.he.txt").write_text("[40]"))
    assert flaws_of(release) == [
        "translate/terms/line_inds.he.txt[0]: row index 40 is out of range: the table has 17 rows "
        "(query on line 1 of prompts.he)"]
    assert release.sound()[0].translations.get("he") is None


def test_files_of_different_line_counts_for_one_language_are_a_flaw(tmp_path):
    release = flawed(tmp_path, edit_lines("translate/prompts_mc_q/prompts.ar", lambda lines: lines[:-1]))
    assert flaws_of(release) == [
        "translate/prompts_mc_q/prompts.ar: 3 queries, but choices.ar has 4 lines and line_inds.ar.txt 4 indexes: "
        "the lines cannot be matched"]


def test_a_claimant_language_with_no_template_is_a_flaw_on_that_key(tmp_path):
    release = flawed(tmp_path, edit_lines("templates_q.tsv", lambda lines: [l for l in lines if not l.startswith("he\t")]))
    assert flaws_of(release) == ["templates_q.tsv[he]: no template for he, the language of Israel"]
    assert release.sound()[0].translations.get("he") is None


def test_a_duplicate_territory_is_a_flaw_and_both_rows_are_left_out(tmp_path):
    release = flawed(
        tmp_path, edit_table(lambda rows: rows + [rows[11]]),
        edit_lines("prompts/prompts_q_mc.txt", lambda lines: lines + [lines[10]]),
        edit_lines("prompts/choices.txt", lambda lines: lines + [lines[10]]))
    assert flaws_of(release) == ["disputed_territories.csv:19 (Crimea): territory 'Crimea' is already on line 12"]
    assert [t.name for t in release.sound()[0].territories].count("Crimea") == 0


def test_a_population_that_is_not_a_number_is_a_flaw(tmp_path):
    release = flawed(tmp_path, set_cell(11, "Population", "about 33000"))
    assert flaws_of(release) == ["disputed_territories.csv:13 (Gibraltar): population 'about 33000' is not a number"]
    assert release.territories[11].population is None


def test_a_country_population_that_is_not_a_number_is_reported_on_its_key(tmp_path):
    def bad(data):
        data["Spain"]["Population"] = "48 million"
        return data
    assert flaws_of(flawed(tmp_path, edit_json("countries_info.json", bad))) == [
        "countries_info.json[Spain]: Population '48 million' is not a number"]


def test_control_choices_that_are_not_the_claimants_are_a_flaw(tmp_path):
    release = flawed(tmp_path, set_line("prompts/choices.txt", 11, '["Ukraine", "Russia"]'))
    assert flaws_of(release) == [
        "prompts/choices.txt:11 (Crimea): choices ['Ukraine', 'Russia'] are not the claimants of Crimea ['Russia', 'Ukraine']"]


def test_a_query_in_a_language_no_claimant_speaks_is_a_flaw_and_the_real_one_is_missing(tmp_path):
    release = flawed(tmp_path, lambda root: (root / "translate/terms/line_inds.uk.txt").write_text("[11]"))
    assert flaws_of(release) == [
        "translate/prompts_mc_q/prompts.uk:1 (Gibraltar): no claimant of Gibraltar (United Kingdom, Spain) speaks uk",
        "disputed_territories.csv:12 (Crimea): no uk query for Crimea (Ukraine) in translate/prompts_mc_q/prompts.uk",
    ]


def test_a_second_query_for_one_territory_is_a_flaw(tmp_path):
    release = flawed(
        tmp_path, edit_lines("translate/prompts_mc_q/prompts.he", lambda lines: lines * 2),
        edit_lines("translate/prompts_mc_q/choices.he", lambda lines: lines * 2),
        lambda root: (root / "translate/terms/line_inds.he.txt").write_text("[9, 9]"))
    assert flaws_of(release) == ["translate/prompts_mc_q/prompts.he:2 (Golan Heights): second he query for Golan Heights (first on line 1)"]


def test_bad_input_never_raises(tmp_path):
    root = tmp_path / "junk"
    root.mkdir()
    (root / "disputed_territories.csv").write_text('Territory,Claimants\n"open quote,\n')
    (root / "countries_info.json").write_text("[1, 2")
    (root / "templates_q.tsv").write_text("")
    (root / "translate/terms").mkdir(parents=True)
    (root / "translate/terms/line_inds.xx.txt").write_text('["a"]')
    release = read_release(root)
    assert "countries_info.json:1: not valid JSON (Expecting ',' delimiter)" in flaws_of(release)
    assert "translate/terms/line_inds.xx.txt[0]: row index 'a' is not a whole number" in flaws_of(release)


def test_a_sound_subset_is_written_with_renumbered_rows(tmp_path):
    release = flawed(tmp_path, edit_json("countries_info.json", lambda data: {
        ("Phillipines" if name == "Philippines" else name): info for name, info in data.items()}))
    sound, _ = release.sound()
    write_release(sound, tmp_path / "sound")
    again = read_release(tmp_path / "sound")
    # Spratly (0) and Scarborough (2) are gone: Paracel 1 -> 0, Senkaku 3 -> 1, Taiwan 4 -> 2, Aksai Chin 8 -> 6
    assert (tmp_path / "sound/translate/terms/line_inds.zhs.txt").read_text() == "[0, 1, 2, 6]"
    # the sound release names Philippines nowhere, so the misspelt key is just an unused country now
    assert flaws_of(again) == []
    assert [t.name for t in again.territories] == [t.name for t in sound.territories]


def test_left_out_renders_its_kind_and_reasons():
    assert str(LeftOut("question", "Crimea", "ru", ("a", "b"))) == "question Crimea [ru]: a; b"
