"""The analysts' page of the inconsistency metric's validation (`analysis_app.view_dashboard`):
per BERTScore preset, each ablation class's mean inconsistency against the references,
whether the paper's order holds, and the items."""

import json

import plotly.graph_objects as go
from django.contrib.auth.decorators import permission_required
from django.core.cache import cache
from django.shortcuts import render

from analysis_app.dashboard import PALETTE

from . import validation_report
from .validation import EXPECTED_ORDER
from .validation_data import VALIDATION_ITEMS

VIEW = "analysis_app.view_dashboard"
CACHE_SECONDS = 7 * 24 * 3600  # the key holds everything the result depends on
CLASS_LABELS = {"lexical": "Lexical substitution", "syntactic": "Syntactic restructuring",
                "irrelevance": "Added irrelevant sentence", "semantic": "Semantic shift"}


def _report(preset, items):
    key = validation_report.cache_key(preset, items)
    report = cache.get(key)
    if report is None:
        report = validation_report.validate_preset(preset, items)
        if report["available"]:  # an encoder installed later is picked up at once
            cache.set(key, report, CACHE_SECONDS)
    return report


def _figure(report):
    means = [report["class_means"][name] for name in EXPECTED_ORDER]
    fig = go.Figure(go.Bar(x=[CLASS_LABELS[name] for name in EXPECTED_ORDER], y=means,
                           marker_color=PALETTE[:len(EXPECTED_ORDER)], text=[f"{m:.3f}" for m in means],
                           textposition="outside"))
    fig.update_layout(title=f"{report['preset']}: mean inconsistency against the reference",
                      yaxis={"title": "mean inconsistency (1 − rescaled F1)", "range": [0, max(1.0, max(means) * 1.15)]},
                      height=360, margin={"l": 60, "r": 20, "t": 50, "b": 60}, showlegend=False)
    return json.loads(fig.to_json())


def _scorer_panel(report, number_of_items):
    panel = {"report": report, "key": report["preset"], "script_id": f"figure-data-{report['preset']}"}
    if report["available"]:
        panel["figure"] = _figure(report)
        panel["rows"] = [{"name": name, "label": CLASS_LABELS[name], "mean": report["class_means"][name],
                          "rank": report["measured_order"].index(name) + 1, "expected_rank": position + 1,
                          "values": report["per_item"][name]} for position, name in enumerate(EXPECTED_ORDER)]
    return panel


@permission_required(VIEW, raise_exception=True)
def validation_page(request):
    items = VALIDATION_ITEMS
    panels = [_scorer_panel(_report(preset, items), len(items)) for preset in validation_report.preset_names()]
    shown_items = [{"number": number, "reference": item["reference"],
                    "ablations": [(CLASS_LABELS[name], item[name]) for name in EXPECTED_ORDER]}
                   for number, item in enumerate(items, start=1)]
    return render(request, "crisis_app/validation.html", {
        "panels": panels, "items": shown_items, "expected": " < ".join(CLASS_LABELS[n] for n in EXPECTED_ORDER)})
