"""The metric's validation run with named BERTScore presets, for the command and the
page: each preset either yields its class means and per-item values, or the reason it
is not available on this machine (its weights are missing, bert-score is not installed).
No Django import; the page caches what `validate_presets` returns (plain dicts).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from functools import lru_cache

from .validation import EXPECTED_ORDER, validate_items

UNAVAILABLE_ERRORS = (ImportError, OSError)


def preset_names():
    from .bertscore_scorer import PRESETS

    return sorted(PRESETS)


@lru_cache(maxsize=4)
def load_scorer(preset):
    """One scorer per preset and process: loading the encoder and computing its baseline
    takes seconds, scoring the validation items a fraction of that."""
    from .bertscore_scorer import BertScoreScorer

    return BertScoreScorer.from_preset(preset)


def _preset_definition(preset):
    # The installed version read from its metadata: importing bert_score imports torch and
    # transformers (seconds), and this runs inside the page's request.
    from importlib.metadata import PackageNotFoundError, version

    from .bertscore_scorer import PRESETS

    try:
        return {**asdict(PRESETS[preset]), "bert_score": version("bert-score")}
    except PackageNotFoundError as exc:
        return {"name": preset, "missing": f"bert-score is not installed ({exc})"}


def cache_key(preset, items):
    """What the result depends on: the preset's definition, the installed bert-score and
    the items' texts."""
    text = json.dumps({"preset": _preset_definition(preset), "items": items}, sort_keys=True)
    return "crisis-validation:" + hashlib.sha256(text.encode()).hexdigest()


def validate_preset(preset, items) -> dict:
    """``{"preset", "available", "reason", "config", "class_means", "per_item",
    "order_holds", "measured_order", "expected_order"}`` for one preset (with
    ``"self_check_failed"``, the problems, when its encoder failed its self-check)."""
    from .bertscore_scorer import EncoderNotAvailable
    from .instrument_check import InstrumentCheckFailed

    report = {"preset": preset, "expected_order": list(EXPECTED_ORDER), "available": False, "reason": None}
    try:
        scorer = load_scorer(preset)
    except InstrumentCheckFailed as exc:
        # Loaded but unsound: nothing it measured would mean anything.
        return {**report, "reason": str(exc), "self_check_failed": exc.problems}
    except (EncoderNotAvailable, *UNAVAILABLE_ERRORS) as exc:
        report["reason"] = str(exc) or type(exc).__name__
        return report
    result = validate_items(items, scorer)
    config = scorer.config()
    return {**report, "available": True,
            "config": {key: config[key] for key in ("model_name", "num_layers", "idf", "precision", "baseline_f1",
                                                   "baseline_source", "bert_score_version")},
            "class_means": result.class_means, "per_item": result.per_item, "order_holds": result.order_holds,
            "measured_order": list(result.measured_order())}


def validate_named_preset(preset, items=None) -> dict:
    """`validate_preset` on the bundled items (crisis_app.validation_data) unless others are
    given: what the worker computes for the page (`analysis_app.computed`)."""
    if items is None:
        from .validation_data import VALIDATION_ITEMS

        items = VALIDATION_ITEMS
    return validate_preset(preset, items)
