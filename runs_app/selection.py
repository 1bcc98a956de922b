"""Which questions of a benchmark a run asks, and how launch input becomes that selection.

Choice counts, sample and seed are the engine's; every other key is the benchmark's
family's own (CFPD: domains, qualified actors), declared in its registration
(`Family.selection_keys`), read and checked by it, and stored beside the engine's keys
in `Run.selection`: {"domains": [...], "qualified_actors": [...], "choice_counts": [...],
"sample": ..., "seed": ...} for a CFPD run, as runs have always stored it."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks_app import families

ENGINE_KEYS = ("choice_counts", "sample", "seed")


@dataclass
class Selection:
    choice_counts: list[int] = field(default_factory=list)
    sample: int | None = None
    seed: int = 0
    family_keys: dict[str, list[str]] = field(default_factory=dict)  # the family's own keys

    def values(self, key: str) -> list[str]:
        """The values given for one of the family's keys ([] when none: every question)."""
        return list(self.family_keys.get(key) or [])

    def as_dict(self) -> dict:
        return {**self.family_keys, "choice_counts": self.choice_counts, "sample": self.sample, "seed": self.seed}


def listed(value) -> list:
    """A list from a list, or from a comma-separated string; blank items left out."""
    if value is None:
        return []
    if isinstance(value, str):
        return [item.strip() for item in value.replace(";", ",").split(",") if item.strip()]
    return [item.strip() if isinstance(item, str) else item for item in value
            if not (isinstance(item, str) and not item.strip())]


def read_family_keys(benchmark, data: dict, errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """The benchmark's family's own keys from launch input (lists, or comma-separated
    text), as the family reads them, with its problems added to `errors`.

    When the benchmark is not known (its own problem is already in `errors`), each key
    given is still checked by the families that read it, so that every problem is named
    at once: a value is reported when no such family knows it."""
    if benchmark is not None:
        try:
            family = families.family(benchmark.family)
        except families.UnknownFamily as exc:
            errors["benchmark"] = [str(exc)]
            return {}
        keys = family.read_selection({key: listed(data.get(key)) for key in family.selection_keys})
        if any(keys.values()):
            errors.update(family.check_selection(Selection(family_keys=keys)))
        return keys
    found: dict[str, list[list[str]]] = {}
    for key, readers in families.selection_keys().items():
        given = listed(data.get(key))
        if not given:
            continue
        for family in readers:
            keys = family.read_selection({k: listed(data.get(k)) if k == key else [] for k in family.selection_keys})
            found.setdefault(key, []).append(family.check_selection(Selection(family_keys=keys)).get(key, []))
    for key, problems in found.items():
        if all(problems):  # no family that reads the key knows the value
            errors[key] = problems[0]
    return {}
