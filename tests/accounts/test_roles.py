"""Roles are given by group membership alone: every role opens the console, however the
user was made (the console's user pages, `add_user`, the shell) and the console says
what each role gives."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import ANALYSTS, AUTHORS, OPERATORS, REVIEWERS, ROLES, role_descriptions
from accounts.services import create_user_with_role, sync_console_access, sync_roles
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()
SCENARIOS = reverse("admin:scenarios_app_scenario_changelist")
SCENARIO_ADD = reverse("admin:scenarios_app_scenario_add")
MODEL_ADD = reverse("admin:runs_app_llmmodel_add")
CODES = reverse("admin:encoding_app_code_changelist")
# Actors are shared by every family (benchmarks_app's since issue 27): authors still write them.
ACTORS = reverse("admin:benchmarks_app_actor_changelist")
ACTOR_ADD = reverse("admin:benchmarks_app_actor_add")


def signed_in(client, username, password=PASSWORD):
    assert client.login(username=username, password=password)
    return client


def staff(username):
    return User.objects.get(username=username).is_staff


# What each role's console holds: (page, status) pairs that must hold for a member.
CONSOLE = {
    AUTHORS: [(SCENARIOS, 200), (SCENARIO_ADD, 200), (MODEL_ADD, 403), (CODES, 403), (ACTORS, 200), (ACTOR_ADD, 200)],
    REVIEWERS: [(SCENARIOS, 200), (SCENARIO_ADD, 403), (MODEL_ADD, 403), (CODES, 403), (ACTORS, 200), (ACTOR_ADD, 403)],
    ANALYSTS: [(SCENARIOS, 200), (SCENARIO_ADD, 403), (MODEL_ADD, 403), (CODES, 403), (ACTORS, 200), (ACTOR_ADD, 403)],
    OPERATORS: [(SCENARIOS, 403), (SCENARIO_ADD, 403), (MODEL_ADD, 200), (CODES, 403), (ACTORS, 403), (ACTOR_ADD, 403)],
}


@pytest.mark.parametrize("role", ROLES)
def test_a_user_added_with_the_command_opens_the_console_of_their_role(client, monkeypatch, role):
    monkeypatch.setenv("CFPD_USER_PASSWORD", PASSWORD)
    call_command("add_user", "newcomer", "--role", role, stdout=io.StringIO())
    assert staff("newcomer")
    signed_in(client, "newcomer")
    assert client.get(reverse("admin:index")).status_code == 200
    for url, status in CONSOLE[role]:
        assert client.get(url).status_code == status, (role, url)


@pytest.mark.parametrize("role", ROLES)
def test_a_user_put_in_a_role_on_the_console_opens_the_console(client, admin_user, role):
    """As an administrator does it: make the user (no box ticked), then tick the role on
    the user's page and save; Staff status is never touched."""
    admin = signed_in(client, admin_user.username)
    response = admin.post(reverse("admin:auth_user_add"), {
        "username": "newcomer", "usable_password": "true", "password1": "a-long-pass-phrase-1",
        "password2": "a-long-pass-phrase-1", "_continue": "1"})
    assert response.status_code == 302, response.content.decode()[:2000]
    user = User.objects.get(username="newcomer")
    assert not user.is_staff and not user.groups.exists()

    change = reverse("admin:auth_user_change", args=[user.pk])
    page = admin.get(change)
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in ("username", "first_name", "last_name", "email")}
    data.update({"is_active": "on", "groups": [Group.objects.get(name=role).pk],
                 "last_login_0": "", "last_login_1": "", "date_joined_0": "2026-01-01", "date_joined_1": "10:00:00"})
    response = admin.post(change, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    assert staff("newcomer")

    client.logout()
    signed_in(client, "newcomer", "a-long-pass-phrase-1")
    for url, status in CONSOLE[role]:
        assert client.get(url).status_code == status, (role, url)


def test_a_role_ticked_when_the_user_is_made_is_enough(client, admin_user):
    admin = signed_in(client, admin_user.username)
    response = admin.post(reverse("admin:auth_user_add"), {
        "username": "newcomer", "usable_password": "true", "password1": "a-long-pass-phrase-1",
        "password2": "a-long-pass-phrase-1", "groups": [Group.objects.get(name=AUTHORS).pk]})
    assert response.status_code == 302
    assert staff("newcomer") and list(User.objects.get(username="newcomer").groups.values_list("name", flat=True)) \
        == [AUTHORS]


def test_leaving_the_last_role_closes_the_console_and_a_superuser_keeps_it(db):
    user, _ = create_user_with_role("rolling", PASSWORD, role=REVIEWERS)
    authors, reviewers = Group.objects.get(name=AUTHORS), Group.objects.get(name=REVIEWERS)
    user.groups.add(authors)
    user.groups.remove(reviewers)
    assert staff("rolling")  # still an author
    user.groups.clear()
    assert not staff("rolling") and not user.is_staff  # the instance in hand follows too
    user.is_superuser = True
    user.save()
    assert staff("rolling")


def test_membership_changed_from_the_group_side_counts_too(db):
    user, _ = create_user_with_role("grouped", PASSWORD)
    assert not staff("grouped")
    analysts = Group.objects.get(name=ANALYSTS)
    analysts.user_set.add(user)
    assert staff("grouped")
    analysts.user_set.clear()
    assert not staff("grouped")
    other = Group.objects.create(name="book club")  # not a role: no console
    other.user_set.add(user)
    assert not staff("grouped")


def test_staff_status_ticked_by_hand_follows_the_roles(db):
    user, _ = create_user_with_role("ticked", PASSWORD)
    user.is_staff = True
    user.save()
    assert not staff("ticked")  # no role, no console: tick a role instead


def test_a_sign_in_does_not_recompute_access(client, django_assert_num_queries, db):
    user, _ = create_user_with_role("quiet", PASSWORD, role=AUTHORS)
    user.last_login = None
    with django_assert_num_queries(1):  # the UPDATE of last_login alone
        user.save(update_fields=["last_login"])


def test_migrate_gives_console_access_to_role_members_made_before(db):
    """Deployments before this rule have reviewers, analysts and operators without the flag."""
    user, _ = create_user_with_role("veteran", PASSWORD, role=OPERATORS)
    User.objects.filter(pk=user.pk).update(is_staff=False)
    sync_roles()
    assert staff("veteran")


def test_sync_reports_how_many_users_changed(db):
    a, _ = create_user_with_role("one", PASSWORD, role=AUTHORS)
    b, _ = create_user_with_role("two", PASSWORD)
    User.objects.filter(pk__in=[a.pk, b.pk]).update(is_staff=True)
    assert sync_console_access([a.pk, b.pk]) == 1  # b loses the flag, a keeps it
    assert sync_console_access([a.pk, b.pk]) == 0


def test_the_user_page_says_what_each_role_gives(client, admin_user, reviewer):
    page = signed_in(client, admin_user.username).get(reverse("admin:auth_user_change", args=[reviewer.pk]))
    html = page.content.decode()
    for role in ROLES:
        assert f"{role}: {role_descriptions()[role]}" in html.replace("&#x27;", "'").replace("›", "›")
    assert "every role opens the console" in html
    assert "Console access" in html and "yes, as a member of reviewers" in html
    assert 'name="is_staff"' not in html  # follows the roles, never a box to tick
    add = signed_in(client, admin_user.username).get(reverse("admin:auth_user_add")).content.decode()
    assert 'name="groups"' in add


def test_the_group_page_says_what_the_role_gives(client, admin_user):
    page = signed_in(client, admin_user.username).get(reverse("admin:auth_group_changelist")).content.decode()
    assert role_descriptions()[OPERATORS].replace("›", "›") in page


def test_an_outsider_without_a_role_is_kept_out_of_the_console(client, outsider):
    response = signed_in(client, outsider.username).get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_nav_offers_the_console_to_every_role(client, reviewer, analyst):
    for user in (reviewer, analyst):
        client.logout()
        page = signed_in(client, user.username).get(reverse("home")).content.decode()
        assert f'href="{reverse("admin:index")}">Console</a>' in page


@pytest.mark.django_db
def test_one_familys_permission_opens_that_familys_dashboard_alone(client):
    from django.contrib.auth.models import Permission

    user = get_user_model().objects.create_user("cleo", password=PASSWORD)
    user.user_permissions.add(Permission.objects.get(content_type__app_label="scenarios_app",
                                                     codename="view_cfpd_dashboard"))
    assert client.login(username="cleo", password=PASSWORD)
    home = client.get(reverse("home")).content.decode()
    navigation = home[home.index("<nav"):home.index("</nav>")]
    assert '<a href="/analysis/cfpd/">Dashboard</a>' in navigation
    assert "/analysis/territories/" not in home and "/analysis/crisis/" not in home  # neither link nor card
    assert client.get("/analysis/cfpd/").status_code == 200
    assert client.get("/api/analysis/cfpd/").status_code == 200
    # The other families' pages and API need their own permissions; the shared profiles need the analysts'.
    assert [client.get(path).status_code for path in ("/analysis/territories/", "/analysis/crisis/",
                                                      "/api/analysis/territories/", "/api/analysis/crisis/",
                                                      "/models/")] == [403, 403, 403, 403, 403]
