"""Who must give a second factor (issue 43): pure, no Django. CFPD_REQUIRE_2FA_ROLES names
roles (authors, reviewers, analysts, operators; the singular is accepted) and `admin` for
superusers."""

from __future__ import annotations

ADMIN = "admin"


def parse_required(text: str, roles) -> frozenset[str]:
    """'author, operators,admin' -> {'authors', 'operators', 'admin'}. A name that is neither
    a role, a role's singular nor admin raises ValueError."""
    names = set()
    for raw in (text or "").split(","):
        name = raw.strip().lower()
        if not name:
            continue
        if name in (ADMIN, "admins"):
            names.add(ADMIN)
        elif name in roles:
            names.add(name)
        elif name + "s" in roles:
            names.add(name + "s")
        else:
            raise ValueError(f"{raw.strip()!r} is not a role: name some of {', '.join(roles)} or admin")
    return frozenset(names)


def needs_second_factor(role_names, is_superuser: bool, required: frozenset[str]) -> bool:
    return (is_superuser and ADMIN in required) or bool(set(role_names) & required)
