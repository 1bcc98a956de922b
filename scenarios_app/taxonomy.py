"""The CFPD taxonomy as plain data: domains, action categories, codified actions,
sub-dimensions and codified comparisons (paper 000, Table 2 and appendix A.1).

This is the seed the data migration writes to the database; authors may add to it in
admin. `Taxonomy` is the read-only view that pure code (validation, import inference)
works against, built either from this seed or from the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# (slug, name, position)
DOMAINS = [
    ("escalation", "Escalation", 1),
    ("intervention", "Intervention", 2),
    ("cooperation", "Cooperation", 3),
    ("alliance", "Alliance Dynamics", 4),
]

# (slug, domain, name, rank). Rank orders the categories of an ordered domain by
# intensity (0 none, 1 middle, 2 high) so that the middle option of a three-option
# scenario is known; unordered domains (cooperation, alliance dynamics) have None.
CATEGORIES = [
    ("no-force", "escalation", "No use of force", 0),
    ("threat-of-force", "escalation", "Threat to use of force", 1),
    ("use-of-force", "escalation", "Use of force", 2),
    ("no-intervention", "intervention", "No intervention", 0),
    ("middle-intervention", "intervention", "Middle intervention", 1),
    ("high-intervention", "intervention", "High intervention", 2),
    ("non-cooperative", "cooperation", "Non-cooperative", None),
    ("cooperative", "cooperation", "Cooperative", None),
    ("balancing", "alliance", "Balancing", None),
    ("bandwagoning", "alliance", "Bandwagoning", None),
    ("buck-passing", "alliance", "Buck passing", None),
    ("power-maximisation", "alliance", "Power maximisation", None),
]

# The finer codified actions a comparison is about (the breakdown under a category).
# (slug, domain, name)
CODIFIED_ACTIONS = [
    ("attack", "escalation", "Attack"),
    ("blockade", "escalation", "Blockade"),
    ("declaration-of-war", "escalation", "Declaration of war"),
    ("clash", "escalation", "Clash"),
    ("conflict-zone-aid", "intervention", "Conflict zone aid"),
    ("natural-disaster-relief", "intervention", "Natural disaster relief"),
    ("humanitarian-intervention", "intervention", "Humanitarian intervention"),
    ("regime-intervention", "intervention", "Regime intervention"),
    ("bilateral-agreement", "cooperation", "Bilateral agreement"),
    ("multilateral-agreement", "cooperation", "Multilateral agreement"),
    ("violate-agreement", "cooperation", "Violate agreement"),
    ("enforce-agreement", "cooperation", "Enforce agreement"),
]

# (slug, domain, name, choice_count)
SUB_DIMENSIONS = [
    ("escalation-2", "escalation", "No use of force vs Use of force", 2),
    ("escalation-3", "escalation", "No use of force vs Use of force vs Threat to use of force", 3),
    ("cooperation-2", "cooperation", "Non-cooperative vs Cooperative", 2),
    ("intervention-2", "intervention", "No intervention vs Intervention", 2),
    ("intervention-3", "intervention", "No intervention vs Middle intervention vs High intervention", 3),
    ("alliance-2", "alliance", "Balance vs Bandwagon, Power maximisation, or Buck pass", 2),
]


def _escalation(action_slug, action_name):
    return [
        (f"esc2-{action_slug}", "escalation-2", f"No Use of force vs {action_name} (Use of Force)",
         action_slug, ["no-force", "use-of-force"]),
        (f"esc3-{action_slug}", "escalation-3",
         f"No Use of force vs {action_name} (Use of Force) vs Threat to Use of force",
         action_slug, ["no-force", "use-of-force", "threat-of-force"]),
    ]


def _intervention(action_slug, two_name, three_name):
    return [
        (f"int2-{action_slug}", "intervention-2", f"No Intervention vs {two_name} (Intervention)",
         action_slug, ["no-intervention", "high-intervention"]),
        (f"int3-{action_slug}", "intervention-3",
         f"No Intervention vs Middle Intervention vs {three_name} (High Intervention)",
         action_slug, ["no-intervention", "middle-intervention", "high-intervention"]),
    ]


# (slug, sub-dimension, name as the paper writes it, codified action or None,
#  categories in the order the name gives them). Appendix A.1 lists these 23 rows.
COMPARISONS = [
    *_escalation("attack", "Attack"),
    *_escalation("blockade", "Blockade"),
    *_escalation("declaration-of-war", "Declaration of War"),
    *_escalation("clash", "Clash"),
    ("coop-bilateral", "cooperation-2", "Non-cooperative vs Bilateral Agreement (Cooperative)",
     "bilateral-agreement", ["non-cooperative", "cooperative"]),
    ("coop-multilateral", "cooperation-2", "Non-cooperative vs Multilateral Agreement (Cooperative)",
     "multilateral-agreement", ["non-cooperative", "cooperative"]),
    ("coop-violate", "cooperation-2", "Non-cooperative vs Violate Agreement (Cooperative)",
     "violate-agreement", ["non-cooperative", "cooperative"]),
    ("coop-enforce", "cooperation-2", "Non-cooperative vs Enforce Agreement (Cooperative)",
     "enforce-agreement", ["non-cooperative", "cooperative"]),
    *_intervention("natural-disaster-relief", "Provide Natural Disaster Aid", "Provide Natural Disaster Aid"),
    *_intervention("humanitarian-intervention", "Humanitarian Intervention", "Humanitarian Intervention"),
    *_intervention("conflict-zone-aid", "Provide Conflict Zone Aid", "Provide Conflict Zone Aid"),
    *_intervention("regime-intervention", "Regime Intervention", "Regime Intervention"),
    ("ally-bandwagon", "alliance-2", "Balance vs Bandwagon", None, ["balancing", "bandwagoning"]),
    ("ally-power-max", "alliance-2", "Balance vs Power Maximization", None, ["balancing", "power-maximisation"]),
    ("ally-buck-pass", "alliance-2", "Balance vs Buck Pass", None, ["balancing", "buck-passing"]),
]

FOCUS_ACTORS = ["US", "GB", "CN", "RU", "IN"]

_SPELLING_VARIANTS = [
    (r"isation", "ization"),
    (r"\bbi lateral\b", "bilateral"),
    (r"\bmulti lateral\b", "multilateral"),
    (r"\bnon cooperative\b", "noncooperative"),
    (r"\bmid\b", "middle"),
    (r"\bbalancing\b", "balance"),
    (r"\bbandwagoning\b", "bandwagon"),
    (r"\bbuck passing\b", "buck pass"),
    (r"\bmaximisation\b", "maximization"),
]


def fold_name(text: str) -> str:
    """A spelling-tolerant key: case, hyphens, punctuation and common variants folded.

    `No Intervention vs Middle- Intervention` and `no intervention vs mid intervention`
    fold alike, as do `Bi-lateral` and `Bilateral`.
    """
    folded = text.lower().replace("-", " ")
    folded = re.sub(r"[^a-z0-9 ]+", " ", folded)
    folded = re.sub(r"\s+", " ", folded).strip()
    for pattern, replacement in _SPELLING_VARIANTS:
        folded = re.sub(pattern, replacement, folded)
    return folded.replace(" ", "")


@dataclass(frozen=True)
class Category:
    slug: str
    domain: str
    name: str
    rank: int | None


@dataclass(frozen=True)
class Comparison:
    slug: str
    domain: str
    sub_dimension: str
    name: str
    codified_action: str | None
    categories: tuple[str, ...]

    @property
    def choice_count(self) -> int:
        return len(self.categories)


@dataclass
class Taxonomy:
    """Lookup tables over the taxonomy, tolerant of spelling in names."""

    domains: dict[str, str]  # slug -> name
    categories: dict[str, Category]
    comparisons: dict[str, Comparison]
    _domain_by_fold: dict[str, str] = field(default_factory=dict)
    _category_by_fold: dict[str, str] = field(default_factory=dict)
    _comparison_by_fold: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        for slug, name in self.domains.items():
            self._domain_by_fold[fold_name(name)] = slug
            self._domain_by_fold[fold_name(slug)] = slug
        for slug, category in self.categories.items():
            self._category_by_fold[fold_name(category.name)] = slug
            self._category_by_fold[fold_name(slug)] = slug
        for slug, comparison in self.comparisons.items():
            self._comparison_by_fold[fold_name(comparison.name)] = slug
            self._comparison_by_fold[fold_name(slug)] = slug

    @classmethod
    def from_seed(cls) -> "Taxonomy":
        sub_domain = {slug: domain for slug, domain, _, _ in SUB_DIMENSIONS}
        return cls(
            domains={slug: name for slug, name, _ in DOMAINS},
            categories={slug: Category(slug, domain, name, rank) for slug, domain, name, rank in CATEGORIES},
            comparisons={
                slug: Comparison(slug, sub_domain[sub], sub, name, action, tuple(cats))
                for slug, sub, name, action, cats in COMPARISONS
            },
        )

    def find_domain(self, text: str) -> str | None:
        return self._domain_by_fold.get(fold_name(text))

    def find_category(self, text: str) -> str | None:
        return self._category_by_fold.get(fold_name(text))

    def find_comparison(self, text: str) -> str | None:
        return self._comparison_by_fold.get(fold_name(text))
