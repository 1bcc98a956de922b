import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from scenarios_app import services
from scenarios_app.models import Benchmark
from scenarios_app.prompting import SYSTEM_PROMPT
from tests.factories import escalation_spec, three_option_spec

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def benchmark():
    benchmark = Benchmark.objects.create(name="t")
    services.save_spec(benchmark, escalation_spec(dyads=[("CN", "RU"), ("US", "MX")]))
    services.save_spec(benchmark, three_option_spec(dyads=[("CN", "JP")]))
    return benchmark


def test_benchmark_stats_ends_with_the_total(benchmark):
    output = run("benchmark_stats")
    # esc2: 2 questions; esc3: 1 dyad x (full + no-middle) = 2.
    assert output.splitlines()[-1] == "total questions: 4"
    assert "benchmark t: 2 scenarios, 4 questions" in output


def test_benchmark_stats_refuses_an_unknown_benchmark():
    with pytest.raises(CommandError, match="no benchmark named 'nope'"):
        run("benchmark_stats", "--benchmark", "nope")


def test_export_questions_writes_keys_options_and_the_a4_prompt(benchmark, tmp_path):
    path = tmp_path / "q.csv"
    call_command("export_questions", str(path), stderr=io.StringIO())
    rows = {row["question_key"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}
    assert sorted(rows) == ["t/esc-test.v1.CN-RU.full", "t/esc-test.v1.US-MX.full",
                            "t/esc3-test.v1.CN-JP.full", "t/esc3-test.v1.CN-JP.no-middle"]
    row = rows["t/esc3-test.v1.CN-JP.no-middle"]
    assert (row["scenario"], row["variant"], row["choice_count"], row["qualified_actor"]) == (
        "esc3-test", "no-middle", "2", "CN")
    assert (row["option_a"], row["option_b"], row["option_c"]) == (
        "Protest through diplomatic channels", "Blockade Japan's ports", "")
    assert row["prompt"] == (
        f"SYSTEM:\n{SYSTEM_PROMPT}\n\nUSER:\n"
        "Japan's navy is escorting tankers through waters that China claims. How should China respond?\n"
        "Please select the correct choice:\nA: Protest through diplomatic channels\nB: Blockade Japan's ports\n"
        "Answer:")


def test_export_questions_is_stable_across_calls(benchmark, tmp_path):
    first, second = tmp_path / "1.csv", tmp_path / "2.csv"
    call_command("export_questions", str(first), stderr=io.StringIO())
    services.sync_benchmark(benchmark)
    call_command("export_questions", str(second), stderr=io.StringIO())
    assert first.read_bytes() == second.read_bytes()


def test_create_admin_reads_the_environment(monkeypatch):
    monkeypatch.setenv("CFPD_ADMIN_USER", "boss")
    monkeypatch.delenv("CFPD_ADMIN_PASSWORD", raising=False)
    with pytest.raises(CommandError, match="CFPD_ADMIN_PASSWORD .* is not set"):
        run("create_admin")
    monkeypatch.setenv("CFPD_ADMIN_PASSWORD", "s3cret-pass")
    assert run("create_admin") == "admin 'boss' created\n"
    assert run("create_admin") == "admin 'boss' already exists, left unchanged\n"
    user = get_user_model().objects.get(username="boss")
    assert user.is_superuser and user.is_staff and user.check_password("s3cret-pass")


def test_add_user_puts_the_user_in_a_role(monkeypatch):
    monkeypatch.setenv("CFPD_USER_PASSWORD", "pw-for-rita-1")
    run("add_user", "rita", "--role", "reviewers")
    user = get_user_model().objects.get(username="rita")
    # Every role opens the console (accounts.services.sync_console_access).
    assert list(user.groups.values_list("name", flat=True)) == ["reviewers"] and user.is_staff


def test_import_actors_refuses_iso_codes_and_bad_kinds(tmp_path):
    path = tmp_path / "actors.csv"
    path.write_text("code,name,kind\nFR,France again,organisation\nASEAN,ASEAN,club\n")
    with pytest.raises(CommandError) as caught:
        run("import_actors", str(path))
    assert "line 2: 'FR' is the ISO 3166 code of France" in str(caught.value)
    assert "line 3: kind 'club' must be one of" in str(caught.value)


def test_reference_data_is_seeded():
    from scenarios_app.models import Actor, ActorSet

    assert Actor.objects.filter(kind="state").count() == 249  # every ISO 3166-1 country in pycountry
    assert Actor.objects.get(code="KR").prompt_name == "South Korea"
    universal = ActorSet.objects.get(name="Universal Generic")
    assert len(universal.member_codes()) == 40 and universal.member_codes()[:3] == ["US", "CN", "RU"]
    assert "SIPRI" in universal.source and "2024" in universal.source
