"""API tokens: making, revoking and checking them. The console (admin), the `api_token`
command and the API's authentication all call these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from . import token_format
from .models import ApiToken

# last_used_at is written at most this often per token: a script polling every second
# must not turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(Exception):
    pass


@dataclass(frozen=True)
class NewToken:
    record: ApiToken
    token: str  # the only time the token exists outside the caller's hands


def create_token(user, name: str) -> NewToken:
    """A new token for `user`. The returned `token` is shown once and never stored."""
    name = (name or "").strip()
    if not name:
        raise TokenError("a token needs a name that says what it is for, e.g. 'nightly export'")
    if len(name) > 100:
        raise TokenError(f"a token's name is at most 100 characters, got {len(name)}")
    if not user.is_active:
        raise TokenError(f"user {user.username!r} is inactive: activate the account first")
    token = token_format.new_token()
    record = ApiToken.objects.create(user=user, name=name, prefix=token_format.prefix(token),
                                     digest=token_format.digest(token))
    return NewToken(record, token)


@transaction.atomic
def revoke_tokens(tokens) -> int:
    """Revoke the given tokens (a queryset); those already revoked keep their date. Returns
    how many were revoked now."""
    return tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


def user_for_token(token: str):
    """The active user a presented token belongs to, or None (unknown, revoked, inactive)."""
    if not token_format.well_formed(token):
        return None
    record = (ApiToken.objects.select_related("user")
              .filter(digest=token_format.digest(token), revoked_at__isnull=True).first())
    if record is None or not record.user.is_active:
        return None
    now = timezone.now()
    if record.last_used_at is None or now - record.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=record.pk).update(last_used_at=now)
    return record.user
