"""The validation page's worker kind: a preset's validation (`validation_report`), and the
stored scorer of the same name and configuration marked when the expected order does not
hold or the encoder fails its self-check (`instrument_state`): scores its instrument
cannot tell apart in meaning are not results."""

from __future__ import annotations

from .group_scoring import COMPARED_KEYS, config_differences
from .instrument_state import record_failure
from .models import Scorer
from .scorers import PRESET_OF
from .validation_report import validate_named_preset

SCORER_OF = {preset: name for name, preset in PRESET_OF.items()}


def record(report: dict) -> None:
    """Mark the scorer of ``report``'s preset when it failed (only a row made with the same
    configuration as the one validated: other scores came from another instrument)."""
    row = Scorer.objects.filter(name=SCORER_OF.get(report.get("preset"))).first()
    if row is None:
        return
    if report.get("self_check_failed"):
        record_failure(row.name, Scorer.Check.SELF_CHECK, "; ".join(report["self_check_failed"]))
    elif report.get("available") and not report.get("order_holds"):
        if config_differences(row.config or {}, report.get("config") or {}, COMPARED_KEYS):
            return
        expected, measured = " < ".join(report["expected_order"]), " < ".join(report["measured_order"])
        record_failure(row.name, Scorer.Check.VALIDATION,
                       f"the metric's validation does not give the expected order of the ablations "
                       f"({expected}; measured {measured})")


def validate_and_record(preset, items=None) -> dict:
    """What the worker computes for the validation page: the preset's report on the bundled
    items (recorded, as above) or on others (not recorded: an experiment)."""
    report = validate_named_preset(preset, items)
    if items is None:
        record(report)
    return report
