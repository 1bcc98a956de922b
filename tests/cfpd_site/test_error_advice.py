"""What the error pages say and where they send people (cfpd_site.error_advice)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfpd_site.error_advice import SECTIONS, advise, section_for


@pytest.mark.parametrize("path, section", [
    ("/analysis/territories/nope/", ("Territorial disputes", "/analysis/territories/")),
    ("/analysis/crisis/x.csv", ("Crisis inconsistency", "/analysis/crisis/")),
    ("/analysis/cfpd/nope/", ("Dashboard", "/analysis/cfpd/")),
    ("/runs/987/", ("Runs", "/runs/")),
    ("/admin/scenarios_app/scenario/9/change/", ("Console", "/admin/")),
    ("/runs/", None),  # the section's own first page failed: no link back to it
    ("/nowhere/", None),
])
def test_it_finds_the_section_of_a_path(path, section):
    assert section_for(path) == section


def test_a_404_names_the_path_and_links_its_section_then_home():
    advice = advise(404, "/runs/987/", signed_in=True, reason="no such panel")
    assert advice.title == "Page not found"
    assert advice.message.startswith("There is no page at /runs/987/.")
    assert advice.detail == "no such panel"
    assert advice.links == (("Runs", "/runs/"), ("Home", "/"))


def test_a_404_of_a_missing_record_says_which_in_words_not_djangos():
    advice = advise(404, "/runs/987/", signed_in=True, reason="No Run matches the given query.",
                    missing=("run", "987"))
    assert advice.message == "No run 987: it may have been deleted, or the address may be mistyped."
    assert advice.detail == "" and advice.links == (("Runs", "/runs/"), ("Home", "/"))
    assert advise(404, "/x/", signed_in=True, missing=("scenario", "")).message.startswith("No such scenario: ")
    # Django's wording never reaches the page, even when the record cannot be named.
    assert advise(404, "/x/", signed_in=True, reason="No Run matches the given query.").detail == ""


def test_a_403_names_the_roles_held():
    advice = advise(403, "/runs/launch/", signed_in=True, roles=("analysts", "reviewers"))
    assert advice.message.startswith("Your account (analysts, reviewers) may not")
    assert advise(403, "/x/", signed_in=True).message.startswith("Your account (no role yet) may not")


def test_a_403_signed_out_offers_the_sign_in_first():
    advice = advise(403, "/runs/launch/", signed_in=False)
    assert advice.links[0] == ("Sign in", "/accounts/login/")


def test_a_500_shows_no_reason_and_no_section():
    advice = advise(500, "/runs/3/", signed_in=True, reason="KeyError: 'secret'")
    assert advice.detail == "" and advice.links == (("Home", "/"),)


@given(status=st.sampled_from([400, 403, 404, 500]), path=st.text(min_size=1).map(lambda t: "/" + t),
       signed_in=st.booleans())
def test_every_page_says_something_and_ends_with_home(status, path, signed_in):
    advice = advise(status, path, signed_in=signed_in)
    assert advice.status == status and advice.title and advice.message
    assert advice.links[-1] == ("Home", "/")
    assert all(href.startswith("/") for _, href in advice.links)
    assert len({href for _, href in advice.links}) == len(advice.links)


def test_longer_prefixes_come_first():
    # a family's own prefix is tried before a shorter one that holds it (longest first).
    prefixes = [prefix for prefix, _ in SECTIONS]
    for i, prefix in enumerate(prefixes):
        assert not any(prefix.startswith(earlier) for earlier in prefixes[:i]), prefix
