"""The analysts' page of the inconsistency metric's validation (`crisis_app.view_crisis_dashboard`):
per BERTScore preset, each ablation class's mean inconsistency against the references,
whether the paper's order holds, and the items. Each preset's report is computed by the
worker (loading an encoder takes seconds: `analysis_app.computed`); until it is, its
panel says so and the page fills in when it is ready."""

from datetime import timedelta

from django.contrib.auth.decorators import permission_required
from django.shortcuts import render

from analysis_app import computed
from analysis_app.panels import PALETTE, chart, layout
from analysis_app.models import ComputedFigure

from . import validation_report
from .validation import EXPECTED_ORDER
from .validation_data import VALIDATION_ITEMS

VIEW = "crisis_app.view_crisis_dashboard"  # the family's own (family.DASHBOARD.permission)
CLASS_LABELS = {"lexical": "Lexical substitution", "syntactic": "Syntactic restructuring",
                "irrelevance": "Added irrelevant sentence", "semantic": "Semantic shift"}
# A preset found unavailable (its weights missing) is tried again after this long, so that
# an encoder installed later shows up.
UNAVAILABLE_RETRY = timedelta(minutes=10)


def _report(preset, items) -> ComputedFigure:
    key = validation_report.cache_key(preset, items)
    row = computed.request(key, "crisis-validation", {"preset": preset}
                           if items is VALIDATION_ITEMS else {"preset": preset, "items": items})
    if row.status == ComputedFigure.Status.DONE and not row.result.get("available"):
        row = computed.request(key, "crisis-validation", row.params, retry_after=UNAVAILABLE_RETRY)
    return row


def _figure(report):
    means = [report["class_means"][name] for name in EXPECTED_ORDER]
    trace = {"type": "bar", "x": [CLASS_LABELS[name] for name in EXPECTED_ORDER], "y": means,
             "marker": {"color": PALETTE[:len(EXPECTED_ORDER)]}, "text": [f"{m:.3f}" for m in means],
             "textposition": "outside", "cliponaxis": False}
    return chart([trace], layout(f"{report['preset']}: mean inconsistency against the reference",
                                   yaxis={"title": {"text": "mean inconsistency (1 − rescaled F1)"},
                                          "range": [0, max(1.0, max(means) * 1.15)]},
                                   height=360, margin={"t": 50, "b": 60}, showlegend=False))


def _scorer_panel(row: ComputedFigure):
    preset = row.params["preset"]
    panel = {"key": preset, "script_id": f"figure-data-{preset}", "status": row.status, "cache_key": row.key,
             "computed_at": row.computed_at, "seconds": row.seconds, "error": row.error,
             "requested_at": row.requested_at}
    report = row.result if row.status == ComputedFigure.Status.DONE else None
    panel["report"] = report
    if report and report["available"]:
        panel["figure"] = _figure(report)
        panel["rows"] = [{"name": name, "label": CLASS_LABELS[name], "mean": report["class_means"][name],
                          "rank": report["measured_order"].index(name) + 1, "expected_rank": position + 1,
                          "values": report["per_item"][name]} for position, name in enumerate(EXPECTED_ORDER)]
    return panel


@permission_required(VIEW, raise_exception=True)
def validation_page(request):
    items = VALIDATION_ITEMS
    panels = [_scorer_panel(_report(preset, items)) for preset in validation_report.preset_names()]
    shown_items = [{"number": number, "reference": item["reference"],
                    "ablations": [(CLASS_LABELS[name], item[name]) for name in EXPECTED_ORDER]}
                   for number, item in enumerate(items, start=1)]
    waiting = [panel["cache_key"] for panel in panels if panel["status"] in ("pending", "running")]
    return render(request, "crisis_app/validation.html", {
        "panels": panels, "items": shown_items, "waiting": waiting,
        "expected": " < ".join(CLASS_LABELS[n] for n in EXPECTED_ORDER)})
