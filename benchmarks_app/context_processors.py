"""What every page's navigation shows of the installed families (their registrations)."""

from . import families


def family_pages(request):
    """`family_dashboards`: the families' dashboards, linked in the navigation and on the
    home page in the order the families registered; `family_authored`: what authors write
    in the console, in words ("CFPD scenarios, territorial-disputes tables and crisis
    simulations")."""
    return {"family_dashboards": families.dashboards(), "family_authored": in_words(families.authored())}


def in_words(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return " and ".join(filter(None, [", ".join(items[:-1]), *items[-1:]]))
