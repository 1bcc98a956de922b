"""Does a model's server heed the temperature? Samples drawn at a temperature above 0 that
are identical word for word, question after question, mean the server decodes greedily
(some OpenAI-compatible servers ignore `temperature`): repeated sampling then measures
nothing, and the free-form family's inconsistency comes out 0 without saying why. Pure:
the groups are counted by `runs_app.sampling`."""

from __future__ import annotations

from dataclasses import dataclass

# Fewer groups than this say too little: a short answer ("A") may well repeat by chance.
MIN_GROUPS = 3


@dataclass(frozen=True)
class SampleGroup:
    """One question asked of one model under one condition several times."""

    model: str
    temperature: float | None
    samples: int
    distinct: int


def ignored_temperature(groups: list[SampleGroup]) -> list[str]:
    """A warning per model and temperature above 0 whose every group (at least MIN_GROUPS
    of two samples or more) has one distinct answer."""
    seen: dict[tuple[str, float], list[SampleGroup]] = {}
    for group in groups:
        if group.temperature is not None and group.temperature > 0 and group.samples >= 2:
            seen.setdefault((group.model, group.temperature), []).append(group)
    warnings = []
    for (model, temperature), found in sorted(seen.items()):
        if len(found) >= MIN_GROUPS and all(g.distinct == 1 for g in found):
            samples = min(g.samples for g in found)
            warnings.append(
                f"{model}: at temperature {temperature:g}, each of the {len(found)} questions checked got "
                f"{samples if samples == max(g.samples for g in found) else f'{samples} or more'} identical "
                f"answers, word for word. Its server seems to ignore the temperature (greedy decoding): repeated "
                f"samples measure nothing, and inconsistency scores of these answers are 0 for that reason.")
    return warnings
