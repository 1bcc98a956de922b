"""Every `python manage.py …` command README.md shows, run as written (placeholders filled,
optional parts left out) after the data scripts/demo loads: the demo benchmark, the sample
territorial-disputes table, the sample crisis simulation, and answers that stand in for the
models' (synthetic CFPD answers from load_synthetic_answers, synthetic BorderLines answers
made here). The commands are read from README.md itself, so a command added there is run
here, or this test says what value its placeholder needs."""

import csv
import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from benchmarks_app.models import Benchmark, Condition, Question
from runs_app.models import LLMModel, Response, Run

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

# Commands not run here, with the reason.
SKIPPED = {
    "run_benchmark": "asks models (the demo's answers are stood in for by synthetic ones)",
    "prepare_local_models": "converts the bundled models' weights (1-2 minutes on 2 cores; scripts/demo does it)",
    "score_inconsistency": "scores with the BERTScore encoder, a model run in-process (minutes on 2 cores)",
    "validate_inconsistency": "scores the validation texts with the BERTScore encoder, a model run in-process",
    "invite_panel": "needs a panel, which the demo does not make (tests/panels_app/test_invite_panel.py runs it)",
    "import_reference": "needs a reference of the demo's question keys, which the demo does not have "
                        "(tests/panels_app/test_import_reference.py runs it)",
    "import_translations": "needs a translated file, which the demo does not have "
                           "(tests/scenarios_app/test_translation_files.py runs it)",
    "translate_demo": "asks a bundled model for drafts (minutes on 2 cores; tests/scenarios_app/"
                      "test_translate_demo.py runs it against the fake server, scripts/demo with local-gemma3)",
    "delete_run": "would delete the demo's answers that the commands after it read "
                  "(tests/runs_app/test_run_deletion.py runs it)",
    "partition_answers": "rewrites the answers table, PostgreSQL only (tests/runs_app/test_answer_partitions.py "
                         "runs it both ways, and its refusal on SQLite)",
}
# Arguments added to the README's form, with the reason.
EXTRA = {
    # The README's defaults are the paper's scale: 2.7 million answers. --replace: the set-up loaded them.
    "load_synthetic_answers": ["--questions", "40", "--models", "2", "--repeats", "1", "--scenarios", "8",
                               "--replace"],
}


def readme_commands(text: str) -> list[str]:
    """Every `python manage.py …` in inline code or in a code block, in order, once each
    (markdown's escaped table bar `\\|` read as `|`)."""
    found = [m.group(1) for m in re.finditer(r"`(python manage\.py [^`\n]+)`", text)]
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S):
        found += [line.strip() for line in block.splitlines() if line.strip().startswith("python manage.py ")]
    return list(dict.fromkeys(command.replace("\\|", "|").strip() for command in found))


def without_optional_parts(synopsis: str) -> str:
    while re.search(r"\[[^\[\]]*\]", synopsis):
        synopsis = re.sub(r"\s*\[[^\[\]]*\]", "", synopsis)
    return synopsis


PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_,.-]*")


def values(tmp: Path) -> dict[str, dict[str, str]]:
    """Per command, the value each placeholder takes (inputs the demo's, outputs under tmp)."""
    return {
        "import_scenarios": {"PATH": str(ROOT / "scenarios_app/fixtures/demo_scenarios.csv")},
        "export_scenarios": {"PATH": str(tmp / "scenarios.csv")},
        "export_questions": {"PATH": str(tmp / "questions.csv")},
        "import_responses": {"PATH": str(tmp / "responses.csv")},
        "export_codes": {"PATH": str(tmp / "codes.csv")},
        "preference_report": {"PATH": str(tmp / "rates.csv")},
        "import_borderlines": {"DIR": str(ROOT / "territories_app/sample_borderlines")},
        "export_borderlines": {"DIR": str(tmp / "borderlines-export")},
        "compare_borderlines": {"OLD": "borderlines", "NEW": "borderlines"},
        "borderlines_report": {"PATH": str(tmp / "borderlines.csv")},
        "import_free_runs": {"DIR": str(ROOT / "tests/data/free_release")},
        "inconsistency_report": {"PATH": str(tmp / "inconsistency.csv")},
        "contrast_report": {"PATH": str(tmp / "contrasts.csv")},
        "reference_report": {"B": "demo", "F": str(tmp / "reference.csv")},
        "export_translations": {"B": "demo", "L": "zh", "F": str(tmp / "translations.xlf")},
        # A run number is known once the data is loaded: resolved then (see `resolved`).
        "export_inspect_log": {"N": first_run, "PATH": str(tmp / "inspect-log.json")},
        "export_hf_dataset": {"B": "demo", "DIR": str(tmp / "hf-dataset")},
        "export_eval_records": {"N": first_run, "DIR": str(tmp / "eval-records")},
        "export_report": {"NAME": "readme-analyst", "PATH": str(tmp / "report.html")},
        "add_user": {"NAME": "readme-user"},
        "api_token": {"USER": "readme-user", "TEXT": "readme-check"},  # the user add_user made in the row above it
    }


def first_run() -> str:
    """The first run of the demo's answers (load_synthetic_answers makes it)."""
    return str(Run.objects.filter(benchmark__name="demo").order_by("pk").values_list("pk", flat=True).first())


def resolved(args: list) -> list[str]:
    return [arg() if callable(arg) else arg for arg in args]


def argv(command: str, filled: dict[str, dict[str, str]]) -> list[str] | str:
    """The command's argv after `manage.py`, or why it cannot be made."""
    words = without_optional_parts(command).split()[2:]
    if not words or not re.fullmatch(r"[a-z_]+", words[0]) or "…" in words:  # `manage.py …`: an elided mention
        return "not a command"
    name, out = words[0], [words[0]]
    if name in SKIPPED:
        return f"skipped: {SKIPPED[name]}"
    for word in words[1:]:
        if "|" in word:  # alternatives: the first
            word = word.split("|")[0]
        if PLACEHOLDER.fullmatch(word):
            if word not in filled.get(name, {}):
                return f"placeholder {word}: give it a value in values() of {__name__}"
            word = filled[name][word]
        out.append(word)
    return out + EXTRA.get(name, [])


def test_the_readme_shows_the_commands_this_test_runs():
    commands = readme_commands(README.read_text(encoding="utf-8"))
    names = {c.split()[2] for c in commands if len(c.split()) > 2}
    # the ones the issue names, and every skip still in the README (a stale skip hides nothing)
    assert {"benchmark_stats", "import_borderlines", "borderlines_report", "load_demo"} <= names
    assert set(SKIPPED) <= names and set(EXTRA) <= names
    assert "python manage.py benchmark_stats --benchmark demo" in commands
    unfillable = {c: argv(c, values(Path("/tmp"))) for c in commands}
    unfillable = {c: why for c, why in unfillable.items()
                  if isinstance(why, str) and why != "not a command" and not why.startswith("skipped: ")}
    assert unfillable == {}


def test_the_readme_parsing_drops_optional_parts_and_picks_the_first_alternative():
    assert without_optional_parts("python manage.py x A [--b [--c N]] [--d] E") == "python manage.py x A E"
    filled = {"add_user": {"NAME": "u"}}
    assert argv("python manage.py add_user NAME --role authors|operators", filled) == [
        "add_user", "u", "--role", "authors"]
    assert argv("python manage.py …", filled) == argv("python manage.py add_user NAME --role …", filled) \
        == "not a command"
    assert argv("python manage.py export_codes PATH", filled).startswith("placeholder PATH")


def synthetic_borderlines_answers():
    """Choice answers of one external model to every sample question: the first claimant,
    as a stand-in for the demo's bundled models."""
    benchmark = Benchmark.objects.get(name="borderlines")
    model = LLMModel.objects.create(name="synthetic-borderlines", litellm_model="external/synthetic-borderlines")
    run = Run.objects.create(benchmark=benchmark, status="done", note="demo, territories (synthetic)")
    run.llm_models.add(model)
    vanilla = Condition.objects.get(name="bl-vanilla")
    Response.objects.bulk_create([
        Response(run=run, question=q, model=model, status="done", code="A", code_source="choice",
                 condition=vanilla, option_order=list(range(q.choice_count)), raw_output="A")
        for q in Question.objects.filter(benchmark=benchmark, is_current=True)])


@pytest.mark.django_db
def test_every_readme_command_runs_after_the_demo_data_is_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("CFPD_ADMIN_USER", "admin")
    monkeypatch.setenv("CFPD_ADMIN_PASSWORD", "readme-admin-password")
    monkeypatch.setenv("CFPD_USER_PASSWORD", "readme-user-password")
    # tests/browser_support.py sets it for Playwright's threads; `check --deploy` rightly refuses it.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    # What scripts/demo loads, without asking a model.
    call_command("load_demo", **quiet)
    call_command("import_borderlines", str(ROOT / "territories_app/sample_borderlines"), "--benchmark",
                 "borderlines", "--snapshot", "2026-11-01", **quiet)
    call_command("load_crisis_sample", "--benchmark", "crisis-sample", **quiet)
    call_command("load_synthetic_answers", *EXTRA["load_synthetic_answers"], **quiet)
    synthetic_borderlines_answers()
    key = Question.objects.filter(benchmark__name="demo").order_by("key").values_list("key", flat=True).first()
    with (tmp_path / "responses.csv").open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["question_key", "model", "repeat", "output"], [key, "readme-external", 0, "A"]])

    from accounts.services import create_user_with_role

    create_user_with_role("readme-analyst", "readme-analyst-password", role="analysts")  # export_report reads as it
    filled = values(tmp_path)
    ran, failures = [], {}
    for command in readme_commands(README.read_text(encoding="utf-8")):
        args = argv(command, filled)
        if isinstance(args, str) and (args == "not a command" or args.startswith("skipped: ")):
            continue
        assert isinstance(args, list), f"{command}: {args}"
        args = resolved(args)
        out = io.StringIO()
        try:
            call_command(*args, stdout=out, stderr=io.StringIO())
        except BaseException as error:  # noqa: BLE001 (SystemExit too: each failure is listed)
            failures[command] = f"{type(error).__name__}: {error}"
        ran.append((" ".join(args), out.getvalue()))
    assert failures == {}
    assert len(ran) >= 20
    stats = dict(ran)["benchmark_stats"]  # the README's `benchmark_stats [--benchmark NAME]`, every benchmark
    # Every family the demo creates is counted, and the last line totals them.
    assert "benchmark demo: 44 scenarios, 683 questions" in stats
    assert "benchmark borderlines: territorial disputes, 52 questions" in stats
    assert "benchmark crisis-sample: free-form crisis, 21 questions" in stats
    assert stats.strip().splitlines()[-1].startswith("total questions: ")
    assert (tmp_path / "borderlines.csv").read_text(encoding="utf-8").count("synthetic-borderlines") == 1
