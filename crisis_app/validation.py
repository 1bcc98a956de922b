"""The inconsistency metric's validation with text ablations (the paper's section 4).

Each reference answer is compared with an ablated version of itself, one per class:
lexical substitution, syntactic restructuring, an added irrelevant sentence and a
semantic shift. A metric that measures meaning rather than wording should order the
classes' mean inconsistency ``lexical < syntactic < irrelevance < semantic``.
"""

from dataclasses import dataclass

import numpy as np

from crisis_app.inconsistency import pair_inconsistencies
from crisis_app.validation_data import ABLATION_CLASSES

EXPECTED_ORDER = ABLATION_CLASSES


@dataclass(frozen=True)
class ValidationResult:
    class_means: dict  # ablation class -> mean inconsistency (reference vs ablation)
    per_item: dict  # ablation class -> list of each reference's inconsistency
    order_holds: bool  # class means strictly increase in EXPECTED_ORDER

    def measured_order(self):
        return tuple(sorted(self.class_means, key=self.class_means.get))


def validate_ablations(references, ablations, scorer, expected_order=EXPECTED_ORDER):
    """Mean inconsistency of each ablation class and whether ``expected_order`` holds.

    ``ablations`` maps each class to one ablated text per reference, in the references'
    order. All pairs are scored in one scorer call, so each text is encoded once.
    """
    references = list(references)
    missing = [name for name in expected_order if name not in ablations]
    if missing:
        raise ValueError(f"no ablations for class(es) {missing}")
    texts = list(references)
    pairs = []
    for name in expected_order:
        ablated = list(ablations[name])
        if len(ablated) != len(references):
            raise ValueError(
                f"class {name!r} has {len(ablated)} ablations for {len(references)} references"
            )
        for k, text in enumerate(ablated):
            pairs.append((k, len(texts)))
            texts.append(text)
    scores = pair_inconsistencies(texts, scorer, pairs=pairs)
    per_item = {
        name: [float(v) for v in scores[c * len(references) : (c + 1) * len(references)]]
        for c, name in enumerate(expected_order)
    }
    class_means = {name: float(np.mean(values)) for name, values in per_item.items()}
    means_in_order = [class_means[name] for name in expected_order]
    order_holds = all(a < b for a, b in zip(means_in_order, means_in_order[1:]))
    return ValidationResult(class_means=class_means, per_item=per_item, order_holds=order_holds)


def validate_items(items, scorer, expected_order=EXPECTED_ORDER):
    """``validate_ablations`` for items shaped as ``validation_data.VALIDATION_ITEMS``."""
    return validate_ablations(
        [item["reference"] for item in items],
        {name: [item[name] for item in items] for name in expected_order},
        scorer,
        expected_order,
    )


ITEM_LABEL_KEYS = ("id", "note")


class ValidationFileError(ValueError):
    """An authored validation file that cannot be used: every problem, one per line."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def parse_items(payload, expected_order=EXPECTED_ORDER):
    """Authored reference answers and their ablations, checked row by row.

    The shape (JSON): ``{"items": [{"reference": "…", "lexical": "…", "syntactic": "…",
    "irrelevance": "…", "semantic": "…"}, …]}`` or the list alone; each item may also
    carry an ``id`` and a ``note`` (labels, not scored). Items are numbered from 1 in the
    messages. Raises ValidationFileError naming every bad item and key.
    """
    if isinstance(payload, dict):
        if set(payload) - {"items"}:
            raise ValidationFileError([f"top level: unknown key(s) {', '.join(sorted(set(payload) - {'items'}))}; "
                                       'write {"items": [ … ]}'])
        payload = payload.get("items")
    if not isinstance(payload, list) or not payload:
        raise ValidationFileError(['top level: write {"items": [{"reference": "…", '
                                   + ", ".join(f'"{name}": "…"' for name in expected_order)
                                   + "}, …]} with at least one item"])
    wanted = ("reference", *expected_order)
    problems = []
    items = []
    for number, item in enumerate(payload, start=1):
        if not isinstance(item, dict):
            problems.append(f"item {number}: not an object; write {{\"reference\": \"…\", …}}")
            continue
        unknown = sorted(set(item) - set(wanted) - set(ITEM_LABEL_KEYS))
        if unknown:
            problems.append(f"item {number}: unknown key(s) {', '.join(unknown)}; the keys are "
                            f"{', '.join(wanted)} (and optionally {', '.join(ITEM_LABEL_KEYS)})")
        for key in wanted:
            value = item.get(key)
            if key not in item:
                problems.append(f"item {number}: no {key!r} text; add it")
            elif not isinstance(value, str) or not value.strip():
                problems.append(f"item {number}: {key!r} must be a non-empty text")
        for key in ITEM_LABEL_KEYS:
            if key in item and not isinstance(item[key], (str, int)):
                problems.append(f"item {number}: {key!r} must be a text")
        items.append(item)
    if problems:
        raise ValidationFileError(problems)
    return [{key: item[key] for key in (*wanted, *ITEM_LABEL_KEYS) if key in item} for item in items]
