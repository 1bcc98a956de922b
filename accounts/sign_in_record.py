"""The record of sign-ins, failed sign-ins and API token uses (SignInRecord), for admins
(console: Accounts and roles › Sign-in records). Django's user_logged_in and
user_login_failed signals write the first two, whatever signs the person in (the sign-in
page, the console's, single sign-on, HTTP Basic on the API); accounts.api_tokens writes
the token uses. Nothing secret is kept: neither the password tried nor the token, only the
token's row and prefix."""

from django.contrib.auth.signals import user_logged_in, user_login_failed

from .models import SignInRecord


def _address(request) -> str:
    if request is None:
        return ""
    from .signin import client_ip

    return client_ip(request)[:45]


def signed_in(sender, request, user, **kwargs):
    SignInRecord.objects.create(kind=SignInRecord.SIGNED_IN, user=user, username=user.get_username()[:150],
                                address=_address(request), detail=_how(sender, request))


def failed(sender, credentials, request=None, **kwargs):
    # Django has already blanked the password in `credentials`; only the username is kept.
    username = str(credentials.get("username") or "")[:150]
    SignInRecord.objects.create(kind=SignInRecord.FAILED, username=username, address=_address(request),
                                detail=_how(sender, request))


def _how(sender, request) -> str:
    path = getattr(request, "path", "") if request is not None else ""
    return (path or getattr(sender, "__name__", str(sender)))[:200]


def token_used(record, request=None, refused: str = ""):
    SignInRecord.objects.create(kind=SignInRecord.TOKEN_REFUSED if refused else SignInRecord.TOKEN_USED,
                                user=record.user, username=record.user.get_username()[:150],
                                address=_address(request), token=record, token_prefix=record.prefix,
                                detail=(refused or getattr(request, "path", "") or "")[:200])


def connect():
    user_logged_in.connect(signed_in, dispatch_uid="accounts.sign_in_record.signed_in")
    user_login_failed.connect(failed, dispatch_uid="accounts.sign_in_record.failed")
