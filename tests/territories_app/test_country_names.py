"""territories_app.country_names: which ISO country a BorderLines name means, and the route;
and release_checks.probable_misspellings, which pairs an unused country key with the
claimant it probably misspells."""

import pycountry
import pytest
from hypothesis import given, strategies as st

from territories_app.country_names import ALIASES, USER_ASSIGNED, Match, match_country
from territories_app.release_checks import MISSPELLING_RATIO, probable_misspellings


@pytest.mark.parametrize("name, expected", [
    ("Vietnam", Match("VN", "common name")),  # pycountry: name Viet Nam, common name Vietnam
    ("Serbia", Match("RS", "name")),
    ("People's Republic of China", Match("CN", "official name")),
    ("Republic of Cyprus", Match("CY", "official name")),
    ("South Korea", Match("KR", "common name")),
    ("Turkey", Match("TR", "alias")),
    ("Ivory Coast", Match("CI", "alias")),
    ("Democratic Republic of Congo", Match("CD", "alias")),
    ("Republic of Kosovo", Match("XK", "alias")),
    ("  ivory   COAST ", Match("CI", "alias")),  # case and spacing do not matter
])
def test_a_country_name_is_matched_by_the_first_route_that_knows_it(name, expected):
    assert match_country(name) == expected


@pytest.mark.parametrize("name", [
    "Republic of China",  # no alias: ISO's TW is 'Taiwan, Province of China', and fuzzy search says CN
    "Sahrawi Arab Democratic Republic", "Suri_Lang_Name", "Artsakh", "", "RU", "RUS",  # codes are no names
])
def test_a_name_that_is_no_iso_country_matches_nothing(name):
    assert match_country(name) is None


@pytest.mark.parametrize("alias, code", sorted(ALIASES.items()))
def test_every_alias_is_needed_and_names_a_known_code(alias, code):
    # needed: pycountry knows the name under none of its own fields
    for country in pycountry.countries:
        fields = {getattr(country, f, None) for f in ("name", "official_name", "common_name")}
        assert alias.casefold() not in {f.casefold() for f in fields if f}, (alias, country.alpha_2)
    # and it points at a country pycountry has, or at a user-assigned code the importer can create
    assert pycountry.countries.get(alpha_2=code) is not None or code in USER_ASSIGNED


def test_the_user_assigned_code_is_not_an_iso_country():
    assert pycountry.countries.get(alpha_2="XK") is None and USER_ASSIGNED["XK"].alpha_3 == "XKX"


# --- probable misspellings ---------------------------------------------------------------

def test_the_release_s_own_misspelling_is_paired_and_real_unused_countries_are_not():
    # 'suri_lang_name' (14) and 'suriname' (8) share 8 letters in order: ratio 2*8/22 = 0.727 >= 0.6;
    # 'moldova' (7) and 'suriname' (8) share 1 letter in order: 2*1/15 = 0.13, far below.
    assert probable_misspellings(["Suriname"], ["Moldova", "Republic of Cyprus", "Rwanda", "Suri_Lang_Name"]) \
        == {"Suri_Lang_Name": "Suriname"}


def test_a_shorter_spelling_of_the_same_country_is_paired():
    assert probable_misspellings(["Cyprus"], ["Republic of Cyprus", "Rwanda"]) == {"Republic of Cyprus": "Cyprus"}


def test_two_orphans_each_get_their_likest_key_one_to_one():
    assert probable_misspellings(["Ukraine", "Philippines"], ["Phillipines", "Ukriane", "Moldova"]) == {
        "Phillipines": "Philippines", "Ukriane": "Ukraine"}


def test_nothing_is_paired_below_the_ratio():
    # 'rwanda' and 'suriname': 2*2/14 = 0.29
    assert MISSPELLING_RATIO == 0.6 and probable_misspellings(["Suriname"], ["Rwanda"]) == {}


names = st.text(alphabet="abcdeLMN _", min_size=1, max_size=10)


@given(st.lists(names, max_size=6), st.lists(names, max_size=6))
def test_pairs_are_one_to_one_and_drawn_from_the_inputs(orphans, keys):
    paired = probable_misspellings(orphans, keys)
    assert set(paired) <= set(keys) and set(paired.values()) <= set(orphans)
    assert len(set(paired.values())) == len(paired)


@given(st.lists(names, min_size=1, max_size=6, unique=True))
def test_a_key_spelt_like_a_lone_orphan_but_for_case_is_always_its_pair(keys):
    orphan = keys[0].upper() + "Q"  # a letter the alphabet lacks: no other key holds it whole
    key = orphan.lower()
    assert probable_misspellings([orphan], [*keys[1:], key])[key] == orphan
