"""Which ISO 3166 country a BorderLines country name means, and by which route. Pure: no
Django (the importer in services looks the code up among the actors).

Routes, tried in this order, each ignoring case and surrounding space:
- "name", "official name", "common name": pycountry's own fields (Vietnam is a name,
  People's Republic of China an official name, South Korea a common name);
- "alias": ALIASES, the everyday English names that the BorderLines release writes and
  pycountry knows under another (Turkey is pycountry's Türkiye).
No fuzzy search: pycountry.search_fuzzy gives 'Republic of China' as CN, the other
claimant of the same disputes. 'Republic of China' is deliberately no alias either: ISO's
TW reads 'Taiwan, Province of China', the very claim in dispute, and the project keeps
ROC as a disputed entity of its own (scenarios_app/fixtures/demo_actors.csv).
"""

from __future__ import annotations

from dataclasses import dataclass

import pycountry

# Everyday English name -> alpha-2. Each one is tested (tests/territories_app/test_country_names.py):
# pycountry must not know the name itself, and must know the code (XK excepted).
ALIASES = {
    "Brunei": "BN",  # pycountry: Brunei Darussalam
    "Democratic Republic of Congo": "CD",  # pycountry: Congo, The Democratic Republic of the
    "Ivory Coast": "CI",  # pycountry: Côte d'Ivoire
    "Kosovo": "XK",
    "Palestine": "PS",  # pycountry: Palestine, State of
    "Republic of Kosovo": "XK",
    "Russia": "RU",  # pycountry: Russian Federation
    "Turkey": "TR",  # pycountry: Türkiye
}


@dataclass(frozen=True)
class UserAssigned:
    """A code ISO 3166 leaves to its users, in wide use for a country that ISO lists not."""
    name: str
    prompt_name: str
    alpha_3: str


# XK for Kosovo: the European Commission's and the IMF's code (alpha-3 XKX); pycountry has
# no entry, so the importer creates the actor the first time a release names Kosovo.
USER_ASSIGNED = {"XK": UserAssigned(name="Republic of Kosovo", prompt_name="Kosovo", alpha_3="XKX")}


@dataclass(frozen=True)
class Match:
    alpha_2: str
    route: str  # "name", "official name", "common name" or "alias"


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _index() -> dict[str, dict[str, str]]:
    index: dict[str, dict[str, str]] = {"name": {}, "official name": {}, "common name": {}}
    for country in pycountry.countries:
        for route, attribute in (("name", "name"), ("official name", "official_name"),
                                 ("common name", "common_name")):
            value = getattr(country, attribute, None)
            if value:
                index[route].setdefault(_key(value), country.alpha_2)
    index["alias"] = {_key(name): code for name, code in ALIASES.items()}
    return index


_INDEX: dict[str, dict[str, str]] | None = None


def match_country(name: str) -> Match | None:
    """The ISO country `name` means and the route that found it; None for a name that is
    no ISO country (Sahrawi Arab Democratic Republic, Republic of China, a misspelling)."""
    global _INDEX
    if _INDEX is None:
        _INDEX = _index()
    key = _key(name)
    for route, names in _INDEX.items():
        if key in names:
            return Match(names[key], route)
    return None
