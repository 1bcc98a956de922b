"""API tokens: making, revoking and checking them. The console (admin), the `api_token`
command and the API's authentication all call these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import sign_in_record, token_format
from .models import ApiToken, SignInRecord

# last_used_at is written at most this often per token: a script polling every second
# must not turn each read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(Exception):
    pass


@dataclass(frozen=True)
class NewToken:
    record: ApiToken
    token: str  # the only time the token exists outside the caller's hands


def default_expiry(now=None):
    """When a token made now expires: CFPD_API_TOKEN_DAYS days on, or None (never) for 0."""
    days = settings.CFPD_API_TOKEN_DAYS
    return None if days <= 0 else (now or timezone.now()) + timedelta(days=days)


def create_token(user, name: str, expires_at=None) -> NewToken:
    """A new token for `user`, expiring at `expires_at` (default: default_expiry()). The
    returned `token` is shown once and never stored."""
    name = (name or "").strip()
    if not name:
        raise TokenError("a token needs a name that says what it is for, e.g. 'nightly export'")
    if len(name) > 100:
        raise TokenError(f"a token's name is at most 100 characters, got {len(name)}")
    if not user.is_active:
        raise TokenError(f"user {user.username!r} is inactive: activate the account first")
    now = timezone.now()
    expires_at = expires_at or default_expiry(now)
    if expires_at is not None and expires_at <= now:
        raise TokenError("a token's expiry must be in the future")
    token = token_format.new_token()
    record = ApiToken.objects.create(user=user, name=name, prefix=token_format.prefix(token),
                                     digest=token_format.digest(token), expires_at=expires_at)
    return NewToken(record, token)


@transaction.atomic
def revoke_tokens(tokens) -> int:
    """Revoke the given tokens (a queryset); those already revoked keep their date. Returns
    how many were revoked now."""
    return tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


def user_for_token(token: str, request=None):
    """The active user a presented token belongs to, or None (unknown, revoked, expired,
    inactive). See check_token for the reason."""
    return check_token(token, request)[0]


def check_token(token: str, request=None):
    """(user, "") for a token that opens the API, else (None, why) — the why fit to show the
    caller. A use is recorded (SignInRecord) when last_used_at is written, at most once per
    LAST_USED_RESOLUTION per token; an expired or revoked token's refusal likewise."""
    if not token_format.well_formed(token):
        return None, "Invalid or revoked token."
    record = ApiToken.objects.select_related("user").filter(digest=token_format.digest(token)).first()
    if record is None:
        return None, "Invalid or revoked token."
    now = timezone.now()
    if record.revoked_at is not None or (record.expires_at is not None and record.expires_at <= now):
        why = ("Invalid or revoked token." if record.revoked_at is not None else
               f"Token expired on {record.expires_at:%Y-%m-%d %H:%M} UTC: ask an administrator for a new one.")
        recent = SignInRecord.objects.filter(token=record, kind=SignInRecord.TOKEN_REFUSED,
                                             at__gt=now - LAST_USED_RESOLUTION)
        if not recent.exists():
            sign_in_record.token_used(record, request, refused=why)
        return None, why
    if not record.user.is_active:
        return None, "Invalid or revoked token."
    if record.last_used_at is None or now - record.last_used_at >= LAST_USED_RESOLUTION:
        # Only the request that moves last_used_at on records the use: of concurrent ones,
        # the conditional UPDATE lets one through.
        moved = (ApiToken.objects.filter(pk=record.pk, last_used_at=record.last_used_at)
                 .update(last_used_at=now))
        if moved:
            sign_in_record.token_used(record, request)
    return record.user, ""
