from .roles import ROLES


def roles(request):
    """`roles`: the names of the current user's role groups, for navigation."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"roles": set()}
    if user.is_superuser:
        return {"roles": set(ROLES)}
    return {"roles": set(user.groups.values_list("name", flat=True))}
