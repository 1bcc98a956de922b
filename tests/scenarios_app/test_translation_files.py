"""export_translations / import_translations: CSV and XLIFF 2.0, all or nothing, every bad
row named with its key, field and slot."""

import csv
import io

import pytest
from django.core.management import CommandError, call_command
from translate.storage.xliff2 import Xliff2File

from scenarios_app import services, translations
from scenarios_app.models import ActorNameTranslation, Benchmark, Question, ScenarioTranslation
from tests.factories import escalation_spec

pytestmark = pytest.mark.django_db

ZH = {"template": "[Actor A]在与[Actor B]的边境集结了军队。关于河流的谈判已经失败。[Actor A]应如何回应？",
      "option_a": "撤军并与[Actor B]重新谈判",
      "option_b": "打击[Actor B]的边境哨所",
      "actor:CN": "中国", "actor:RU": "俄罗斯"}


@pytest.fixture
def scenario():
    benchmark = Benchmark.objects.create(name="t")
    return services.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU")])).scenario


def export_csv(tmp_path):
    path = tmp_path / "zh.csv"
    call_command("export_translations", "--benchmark", "t", "--language", "zh", "--out", str(path))
    return path, list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def filled(rows, **changes):
    """The exported rows with their text filled from ZH (and `changes` by field or key)."""
    out = [rows[0]]
    for key, field, source, _ in rows[1:]:
        name = key if key.startswith("actor:") else field
        out.append([key, field, source, changes.get(name, ZH[name])])
    return out


def write_csv(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


def test_the_csv_export_has_exactly_the_four_columns_and_empty_texts(scenario, tmp_path):
    _, rows = export_csv(tmp_path)
    assert rows == [
        ["key", "field", "source", "text"],
        ["t/esc-test.v1", "template", scenario.template, ""],
        ["t/esc-test.v1", "option_a", "Withdraw and reopen talks with [Actor B]", ""],
        ["t/esc-test.v1", "option_b", "Strike [Actor B]'s border posts", ""],
        ["actor:CN", "name", "China", ""],
        ["actor:RU", "name", "Russia", ""],
    ]


def test_a_csv_round_trip_waits_for_approval(scenario, tmp_path, author):
    path, rows = export_csv(tmp_path)
    write_csv(path, filled(rows))
    out = io.StringIO()
    call_command("import_translations", str(path), "--language", "zh", stdout=out)
    assert out.getvalue() == "zh: 1 scenario translation(s), 2 actor name(s), 0 approved\n"
    translation = ScenarioTranslation.objects.get()
    assert (translation.status, translation.template, translation.options) == (
        "draft", ZH["template"], [ZH["option_a"], ZH["option_b"]])
    assert translation.provenance == "import:zh.csv"
    assert dict(ActorNameTranslation.objects.values_list("actor__code", "name")) == {"CN": "中国", "RU": "俄罗斯"}
    assert not Question.objects.filter(language="zh").exists()


def test_approved_by_an_author_who_reads_the_language_makes_questions(scenario, tmp_path, author):
    translations.set_languages(author, ["zh"])
    path, rows = export_csv(tmp_path)
    write_csv(path, filled(rows))
    call_command("import_translations", str(path), "--language", "zh", "--approved-by", "alice", stdout=io.StringIO())
    assert ScenarioTranslation.objects.get().approved_by == author
    assert list(Question.objects.filter(language="zh").values_list("key", flat=True)) == [
        "t/esc-test.v1.CN-RU.full@zh"]


def test_approved_by_someone_who_does_not_read_it_imports_nothing(scenario, tmp_path, author):
    translations.set_languages(author, ["en"])
    path, rows = export_csv(tmp_path)
    write_csv(path, filled(rows))
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_translations", str(path), "--language", "zh", "--approved-by", "alice", stderr=err)
    assert err.getvalue() == "--approved-by: alice's profile does not list zh\n"
    assert not ScenarioTranslation.objects.exists() and not ActorNameTranslation.objects.exists()


def test_a_bad_row_is_named_and_nothing_is_written(scenario, tmp_path):
    path, rows = export_csv(tmp_path)
    bad = filled(rows, option_b="打击边境哨所", option_a="撤军并与[Actor B]和[Actor C]重新谈判")
    bad.append(["t/esc-test.v1", "option_c", "", "多余的选项"])
    bad.append(["actor:XX", "name", "", "某国"])
    write_csv(path, bad)
    err = io.StringIO()
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_translations", str(path), "--language", "zh", stderr=err)
    assert err.getvalue().splitlines() == [
        "row 6 (t/esc-test.v1, option_c): the source has no option 'option_c' (it has 2 options)",
        "row 2 (t/esc-test.v1, option_a, slot [Actor C]): [Actor C] is not in the source as often "
        "(0 in the source, 1 in the translation); remove it",
        "row 3 (t/esc-test.v1, option_b, slot [Actor B]): [Actor B] is missing (1 in the source, 0 in the "
        "translation); keep [Actor B] exactly as written",
        "row 7 (actor:XX, name): no such actor",
    ]
    assert not ScenarioTranslation.objects.exists() and not ActorNameTranslation.objects.exists()


def test_a_csv_with_other_columns_or_no_language_is_refused(scenario, tmp_path):
    path = tmp_path / "x.csv"
    write_csv(path, [["key", "field", "text"], ["t/esc-test.v1", "template", "…"]])
    with pytest.raises(CommandError, match="the header must be exactly: key, field, source, text"):
        call_command("import_translations", str(path), "--language", "zh")
    write_csv(path, [["key", "field", "source", "text"]])
    with pytest.raises(CommandError, match="give --language"):
        call_command("import_translations", str(path))
    with pytest.raises(CommandError, match="the extension"):
        call_command("import_translations", str(tmp_path / "x.txt"))


def test_a_source_changed_since_the_export_is_refused(scenario, tmp_path):
    path, rows = export_csv(tmp_path)
    rows = filled(rows)
    rows[1][2] = "An older text of [Actor A] and [Actor B]"
    write_csv(path, rows)
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_translations", str(path), "--language", "zh", stderr=err)
    assert err.getvalue().splitlines() == [
        "row 1 (t/esc-test.v1, template): the source text changed since the export; export again and translate "
        "the current text"]


def test_the_xliff_export_is_xliff_2_with_the_slots_as_placeholders(scenario, tmp_path):
    path = tmp_path / "zh.xlf"
    call_command("export_translations", "--benchmark", "t", "--language", "zh", "--out", str(path))
    text = path.read_text(encoding="utf-8")
    assert 'xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="zh"' in text
    assert ('<source>Withdraw and reopen talks with <ph id="1" equiv="[Actor B]" disp="[Actor B]"/></source>'
            in text)
    store = Xliff2File.parsestring(path.read_bytes())  # read back by translate-toolkit
    assert [unit.getid() for unit in store.getunits()] == [
        "t/esc-test.v1#template", "t/esc-test.v1#option_a", "t/esc-test.v1#option_b", "actor:CN#name",
        "actor:RU#name"]


def test_an_xliff_round_trip_with_placeholders_in_the_targets(scenario, tmp_path, author):
    from scenarios_app.translation_files import _with_placeholders

    path = tmp_path / "zh.xlf"
    call_command("export_translations", "--benchmark", "t", "--language", "zh", "--out", str(path))
    store = Xliff2File.parsestring(path.read_bytes())
    for unit in store.getunits():
        key, _, field = unit.getid().rpartition("#")
        unit.rich_target = [_with_placeholders(ZH[key if key.startswith("actor:") else field])]
    path.write_bytes(bytes(store))
    assert '<target>撤军并与<ph id="1" equiv="[Actor B]" disp="[Actor B]"/>重新谈判</target>' in path.read_text("utf-8")
    translations.set_languages(author, ["zh"])
    call_command("import_translations", str(path), "--approved-by", "alice", stdout=io.StringIO())
    translation = ScenarioTranslation.objects.get()
    assert (translation.language, translation.status, translation.options) == (
        "zh", "approved", [ZH["option_a"], ZH["option_b"]])
    assert Question.objects.get(language="zh").text == "中国在与俄罗斯的边境集结了军队。关于河流的谈判已经失败。中国应如何回应？"


def test_a_broken_xliff_file_is_a_clear_error(scenario, tmp_path):
    path = tmp_path / "bad.xliff"
    path.write_bytes(b"<xliff version='2.0'><file")
    with pytest.raises(CommandError, match="not an XLIFF 2.0 file"):
        call_command("import_translations", str(path))


# --- grammatical forms of actor names: `name:genitive` rows ---------------------------------

RU = {("t/esc-ru.v1", "template"): "Армия [Actor A:genitive] стоит у границы с [Actor B:instrumental]. Переговоры "
                                   "о реке провалились. Как следует ответить [Actor A:dative]?",
      ("t/esc-ru.v1", "option_a"): "Отвести войска и возобновить переговоры с [Actor B:instrumental]",
      ("t/esc-ru.v1", "option_b"): "Нанести удар по пограничным постам [Actor B:genitive]",
      ("actor:RU", "name"): "Россия", ("actor:RU", "name:genitive"): "России", ("actor:RU", "name:dative"): "России",
      ("actor:CN", "name"): "Китай", ("actor:CN", "name:genitive"): "Китая",
      ("actor:CN", "name:instrumental"): "Китаем"}
RU_FORMS = ["genitive", "dative", "accusative", "instrumental", "prepositional"]


@pytest.fixture
def ru_scenario():
    benchmark = Benchmark.objects.create(name="t")
    return services.save_spec(benchmark, escalation_spec(key="esc-ru", dyads=[("RU", "CN")])).scenario


def export_ru(tmp_path, name="ru.csv"):
    path = tmp_path / name
    call_command("export_translations", "--benchmark", "t", "--language", "ru", "--out", str(path))
    return path


def test_a_russian_export_has_a_row_per_form_of_each_actors_name(ru_scenario, tmp_path):
    rows = list(csv.reader(io.StringIO(export_ru(tmp_path).read_text(encoding="utf-8"))))
    # 1 header + 3 scenario fields + 2 actors x (name + 5 forms; the name itself is the nominative) = 16
    assert len(rows) == 16
    assert rows[4:] == [[f"actor:{code}", field, english, ""] for code, english in (("CN", "China"), ("RU", "Russia"))
                        for field in ["name", *(f"name:{form}" for form in RU_FORMS)]]


def test_a_csv_round_trip_of_names_forms_asks_the_russian_question(ru_scenario, tmp_path, author):
    path = export_ru(tmp_path)
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    write_csv(path, [rows[0]] + [[key, field, source, RU.get((key, field), "")] for key, field, source, _ in rows[1:]])
    translations.set_languages(author, ["ru"])
    out = io.StringIO()
    call_command("import_translations", str(path), "--language", "ru", "--approved-by", "alice", stdout=out)
    assert out.getvalue() == "ru: 1 scenario translation(s), 2 actor name(s), 1 approved\n"
    assert {code: (name, forms) for code, name, forms in ActorNameTranslation.objects.values_list(
        "actor__code", "name", "forms")} == {
        "RU": ("Россия", {"genitive": "России", "dative": "России"}),
        "CN": ("Китай", {"genitive": "Китая", "instrumental": "Китаем"})}
    assert Question.objects.get(language="ru").text == (
        "Армия России стоит у границы с Китаем. Переговоры о реке провалились. Как следует ответить России?")
    # A second file with one more form adds it and keeps the others (its empty rows change nothing).
    write_csv(path, [rows[0], ["actor:CN", "name:dative", "China", "Китаю"]])
    call_command("import_translations", str(path), "--language", "ru", stdout=io.StringIO())
    assert ActorNameTranslation.objects.get(actor__code="CN").forms == {
        "genitive": "Китая", "dative": "Китаю", "instrumental": "Китаем"}


def test_a_bad_form_row_is_named_and_nothing_is_written(ru_scenario, tmp_path):
    path = tmp_path / "ru.csv"
    write_csv(path, [["key", "field", "source", "text"],
                     ["actor:RU", "name", "Russia", "Россия"],
                     ["actor:RU", "name:locative", "Russia", "России"],
                     ["actor:RU", "name:nominative", "Russia", "Россия"],
                     ["actor:CN", "name:genitive", "China", "Китая"],
                     ["actor:CN", "genitive", "China", "Китая"]])
    err = io.StringIO()
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_translations", str(path), "--language", "ru", stderr=err)
    assert err.getvalue().splitlines() == [
        "row 2 (actor:RU, name:locative): ru has no form 'locative' of names; its forms are nominative, genitive, "
        "dative, accusative, instrumental, prepositional",
        "row 3 (actor:RU, name:nominative): the name itself is the nominative; give it as name",
        "row 5 (actor:CN, genitive): an actor's fields are name and name:FORM (a grammatical form, e.g. "
        "name:genitive)",
        "row 4 (actor:CN, name:genitive): actor:CN has no name in ru yet; fill its name row too",
    ]
    assert not ActorNameTranslation.objects.exists()


def test_an_xliff_round_trip_carries_forms_in_the_placeholders(ru_scenario, tmp_path, author):
    from scenarios_app.translation_files import _with_placeholders

    path = export_ru(tmp_path, "ru.xlf")
    store = Xliff2File.parsestring(path.read_bytes())
    for unit in store.getunits():
        key, _, field = unit.getid().rpartition("#")
        unit.rich_target = [_with_placeholders(RU.get((key, field), ""))]
    path.write_bytes(bytes(store))
    assert ('<target>Нанести удар по пограничным постам <ph id="1" equiv="[Actor B:genitive]" '
            'disp="[Actor B:genitive]"/></target>') in path.read_text("utf-8")
    translations.set_languages(author, ["ru"])
    call_command("import_translations", str(path), "--approved-by", "alice", stdout=io.StringIO())
    assert ActorNameTranslation.objects.get(actor__code="RU").forms == {"genitive": "России", "dative": "России"}
    assert Question.objects.get(language="ru").option_texts() == [
        "Отвести войска и возобновить переговоры с Китаем", "Нанести удар по пограничным постам Китая"]
