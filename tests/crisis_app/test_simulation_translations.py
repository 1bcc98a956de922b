"""Translations of crisis simulations (issue 41): placeholders kept text by text, approval
by an author who reads the language, out of date when the simulation's texts change, and
the translators' CSV (`key, field, source, text`) out and back in, all or nothing."""

import csv
import io

import pytest

from benchmarks_app.models import Benchmark
from crisis_app import translation_texts as tt
from crisis_app.models import FAMILY, Continuation, Simulation, SimulationTranslation

pytestmark = pytest.mark.django_db

ZH = {"background": "{PLAYER}与{OPPONENT}在海峡对峙。", "role": "你是{PLAYER}总统的国家安全顾问。",
      "answer_format": "RECOMMENDATIONS: … REASONING: …", "move1_incident": "{OPPONENT}的舰队封锁了港口。",
      "continuation:status_quo": "局势保持不变。"}


@pytest.fixture
def simulation():
    benchmark = Benchmark.objects.create(name="crisis", family=FAMILY)
    simulation = Simulation.objects.create(
        benchmark=benchmark, key="strait", title="Strait", background="{PLAYER} and {OPPONENT} face off in a strait.",
        role="You advise the President of {PLAYER}.", answer_format="RECOMMENDATIONS: … REASONING: …",
        move1_incident="{OPPONENT}'s fleet blockades the port.")
    Continuation.objects.create(simulation=simulation, name="status_quo", text="Nothing changes.")
    return simulation


def set_languages(user, languages):
    from accounts.models import Profile

    Profile.objects.update_or_create(user=user, defaults={"languages": languages})


def test_a_translation_that_loses_a_placeholder_is_refused_by_field(simulation):
    with pytest.raises(tt.TranslationError) as caught:
        tt.save_translation(simulation, "zh", {**ZH, "role": "你是总统的国家安全顾问。"})
    assert str(caught.value) == ("role: {PLAYER} is missing (1 in the source, 0 in the translation); keep {PLAYER} "
                                 "exactly as written")
    with pytest.raises(tt.TranslationError, match="continuation:status_quo: the translation is missing"):
        tt.save_translation(simulation, "zh", {k: v for k, v in ZH.items() if k != "continuation:status_quo"})
    assert not SimulationTranslation.objects.exists()


def test_approval_needs_an_author_who_reads_the_language_and_a_current_source(simulation, author, second_author):
    translation = tt.save_translation(simulation, "zh", ZH, translated_by=author)
    assert (translation.status, translation.provenance, tt.is_out_of_date(translation)) == ("draft", "person", False)
    set_languages(author, ["en", "ru"])
    with pytest.raises(tt.TranslationError, match="does not list zh"):
        tt.approve_translation(translation, author)
    set_languages(second_author, ["zh"])
    assert tt.approve_translation(translation, second_author).status == "approved"
    Continuation.objects.filter(simulation=simulation).update(text="The blockade tightens.")
    translation.refresh_from_db()
    assert tt.is_out_of_date(translation)
    with pytest.raises(tt.TranslationError, match="out of date"):
        tt.approve_translation(translation, second_author)


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_the_csv_round_trip(simulation, author):
    exported = tt.export_csv([simulation], "zh")
    table = rows(exported)
    assert table[0] == ["key", "field", "source", "text"]
    assert [r[:2] for r in table[1:]] == [["crisis/strait", f] for f in ZH]
    assert all(r[3] == "" for r in table[1:])
    filled = io.StringIO(newline="")
    writer = csv.writer(filled, lineterminator="\n")
    writer.writerow(table[0])
    writer.writerows([[k, f, s, ZH[f]] for k, f, s, _ in table[1:]])
    report = tt.import_csv(filled.getvalue(), "zh", translated_by=author, provenance="import:zh.csv")
    assert report.ok and report.simulations == 1, report.errors
    translation = SimulationTranslation.objects.get()
    assert (translation.texts, translation.provenance, translation.status) == (ZH, "import:zh.csv", "draft")
    assert [r[3] for r in rows(tt.export_csv([simulation], "zh"))[1:]] == list(ZH.values())


def test_an_import_with_a_bad_row_writes_nothing_and_names_each_row(simulation):
    lines = [["key", "field", "source", "text"],
             ["crisis/strait", "background", simulation.background, "{PLAYER}与对手在海峡对峙。"],  # {OPPONENT} lost
             ["crisis/nowhere", "role", "x", "y"],
             ["crisis/strait", "move1_incident", "an older text", "z"]]
    text = "".join(",".join(f'"{cell}"' for cell in line) + "\n" for line in lines)
    report = tt.import_csv(text, "zh")
    assert report.errors[:2] == [
        "row 3 (crisis/nowhere, role): no such simulation",
        "row 4 (crisis/strait, move1_incident): its source is not the simulation's text as it stands (it changed "
        "since the export): export again"]
    assert "crisis/strait: background: {OPPONENT} is missing (1 in the source, 0 in the translation)" in report.errors[2]
    assert not SimulationTranslation.objects.exists()
    assert tt.import_csv("a,b\n", "zh").errors == ["the header must be exactly key, field, source, text (found a, b)"]


def test_the_commands_export_and_import(simulation, tmp_path):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = tmp_path / "zh.csv"
    call_command("export_simulation_translations", benchmark="crisis", language="zh", out=str(out))
    table = rows(out.read_text(encoding="utf-8"))
    filled = tmp_path / "zh-done.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([table[0]] + [[k, f, s, ZH[f]] for k, f, s, _ in table[1:]])
    call_command("import_simulation_translations", str(filled), language="zh")
    assert SimulationTranslation.objects.get().provenance == "import:zh-done.csv"
    with pytest.raises(CommandError, match="no crisis benchmark named 'nope'"):
        call_command("export_simulation_translations", benchmark="nope", language="zh", out=str(out))
    with pytest.raises(CommandError, match="nothing imported"):
        call_command("import_simulation_translations", str(out), language="zh")  # every text empty


def test_the_console_lists_a_translation_beside_its_source(client, author, simulation):
    from tests.conftest import PASSWORD

    tt.save_translation(simulation, "zh", ZH)
    assert client.login(username=author.username, password=PASSWORD)
    translation = SimulationTranslation.objects.get()
    page = client.get(f"/admin/crisis_app/simulationtranslation/{translation.pk}/change/").content.decode()
    assert "{PLAYER} and {OPPONENT} face off in a strait." in page and ZH["background"] in page
