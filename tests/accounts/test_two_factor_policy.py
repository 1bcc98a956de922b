"""Who must give a second factor: pure (accounts.two_factor_policy)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.roles import ROLES
from accounts.two_factor_policy import needs_second_factor, parse_required


def test_the_setting_accepts_plural_singular_and_admin():
    assert parse_required("author, operators,admin", ROLES) == {"authors", "operators", "admin"}
    assert parse_required(" ,", ROLES) == frozenset()
    assert parse_required("Admins", ROLES) == {"admin"}


def test_a_name_that_is_no_role_is_refused():
    with pytest.raises(ValueError, match="'editors' is not a role"):
        parse_required("authors,editors", ROLES)


def test_the_settings_role_names_are_the_roles():
    import inspect

    from cfpd_site import settings

    assert '("authors", "reviewers", "analysts", "operators")' in inspect.getsource(settings)
    assert list(ROLES) == ["authors", "reviewers", "analysts", "operators"]


def test_who_needs_it():
    required = frozenset({"authors", "operators", "admin"})
    assert needs_second_factor(["authors"], False, required)
    assert needs_second_factor(["reviewers", "operators"], False, required)  # one required role is enough
    assert not needs_second_factor(["reviewers"], False, required)
    assert not needs_second_factor(["analysts"], False, required)
    assert needs_second_factor([], True, required)  # a superuser, as admin
    assert not needs_second_factor([], True, frozenset({"authors"}))
    assert not needs_second_factor([], False, required)


@given(st.sets(st.sampled_from(ROLES)), st.booleans())
def test_nothing_required_asks_nobody(roles, superuser):
    assert not needs_second_factor(roles, superuser, frozenset())
