"""Reference data written by data migrations: the taxonomy, every ISO 3166 country from
pycountry, and the Universal Generic actor set. Idempotent upserts, so a later
migration may call them again after the seed grows. Functions take the migration's
`apps` registry so they work on historical models."""

import csv
from pathlib import Path

import pycountry

from . import taxonomy
from .naming import country_prompt_name, takes_definite_article

UNIVERSAL_GENERIC = "Universal Generic"
UNIVERSAL_GENERIC_CSV = Path(__file__).parent / "data" / "universal_generic_sipri.csv"


def seed_taxonomy(apps):
    Domain = apps.get_model("scenarios_app", "Domain")
    ActionCategory = apps.get_model("scenarios_app", "ActionCategory")
    CodifiedAction = apps.get_model("scenarios_app", "CodifiedAction")
    SubDimension = apps.get_model("scenarios_app", "SubDimension")
    CodifiedComparison = apps.get_model("scenarios_app", "CodifiedComparison")
    ComparisonCategory = apps.get_model("scenarios_app", "ComparisonCategory")

    domains = {}
    for slug, name, position in taxonomy.DOMAINS:
        domains[slug], _ = Domain.objects.update_or_create(slug=slug, defaults={"name": name, "position": position})
    categories = {}
    for slug, domain, name, rank in taxonomy.CATEGORIES:
        categories[slug], _ = ActionCategory.objects.update_or_create(
            slug=slug, defaults={"domain": domains[domain], "name": name, "rank": rank})
    actions = {}
    for slug, domain, name in taxonomy.CODIFIED_ACTIONS:
        actions[slug], _ = CodifiedAction.objects.update_or_create(
            slug=slug, defaults={"domain": domains[domain], "name": name})
    subs = {}
    for slug, domain, name, count in taxonomy.SUB_DIMENSIONS:
        subs[slug], _ = SubDimension.objects.update_or_create(
            slug=slug, defaults={"domain": domains[domain], "name": name, "choice_count": count})
    for slug, sub, name, action, cats in taxonomy.COMPARISONS:
        comparison, _ = CodifiedComparison.objects.update_or_create(
            slug=slug, defaults={"sub_dimension": subs[sub], "name": name,
                                 "codified_action": actions.get(action) if action else None})
        ComparisonCategory.objects.filter(comparison=comparison).delete()
        ComparisonCategory.objects.bulk_create([
            ComparisonCategory(comparison=comparison, category=categories[cat], position=position)
            for position, cat in enumerate(cats, start=1)
        ])


def seed_countries(apps):
    Actor = apps.get_model("scenarios_app", "Actor")
    existing = set(Actor.objects.values_list("code", flat=True))
    new = []
    for country in pycountry.countries:
        if country.alpha_2 in existing:
            continue
        prompt_name = country_prompt_name(country.alpha_2, country.name, getattr(country, "common_name", None))
        new.append(Actor(
            code=country.alpha_2, name=getattr(country, "official_name", None) or country.name,
            prompt_name=prompt_name, takes_article=takes_definite_article(prompt_name),
            kind="state", iso_alpha3=country.alpha_3,
        ))
    Actor.objects.bulk_create(new)


def read_universal_generic():
    """(rank, alpha-2, country, spending, year, source) rows of the shipped SIPRI table."""
    with UNIVERSAL_GENERIC_CSV.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def seed_universal_generic(apps):
    Actor = apps.get_model("scenarios_app", "Actor")
    ActorSet = apps.get_model("scenarios_app", "ActorSet")
    ActorSetMember = apps.get_model("scenarios_app", "ActorSetMember")
    rows = read_universal_generic()
    actor_set, _ = ActorSet.objects.update_or_create(
        name=UNIVERSAL_GENERIC,
        defaults={
            "description": f"The {len(rows)} states with the highest military expenditure, used for scenarios "
                           "with no geographic or logical limit on their actors (paper 000, section 3.5).",
            "source": rows[0]["source"],
        },
    )
    ActorSetMember.objects.filter(actor_set=actor_set).delete()
    ActorSetMember.objects.bulk_create([
        ActorSetMember(actor_set=actor_set, actor=Actor.objects.get(code=row["iso_alpha2"]), rank=int(row["rank"]),
                       note=f"{row['country']}: US${row['milex_usd_bn']} bn in {row['year']}")
        for row in rows
    ])
