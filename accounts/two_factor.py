"""Two factors (issue 43) with django-otp: a TOTP device (an authenticator app) and ten
single-use recovery codes (django-otp's static device). A signed-in person whose role is in
CFPD_REQUIRE_2FA_ROLES reaches no page but this one, /accounts/2fa/, until they have given
a code in this session: the first time they enrol (QR code and secret shown, a code asked,
the recovery codes shown once), afterwards they type a code from the app or a recovery code.
With CFPD_WEBAUTHN_ORIGIN set, a security key or passkey (accounts.two_factor_webauthn) may be
enrolled instead of the app, and is then asked for at sign-in (a recovery code still opens)."""

import segno
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp_webauthn.models import WebAuthnCredential

from .two_factor_policy import needs_second_factor
from .two_factor_webauthn import enabled as keys_enabled

PATH = "/accounts/2fa/"
# Reachable before the second factor: this page, signing out, static files, the probes.
OPEN_PREFIXES = (PATH, "/accounts/logout/", "/static/", "/healthz", "/favicon.ico")
RECOVERY_CODES = 10


def required_for(user) -> bool:
    if not user.is_authenticated:
        return False
    return needs_second_factor(user.groups.values_list("name", flat=True), user.is_superuser,
                               settings.CFPD_REQUIRE_2FA_ROLES)


class RequireSecondFactor:
    """After django_otp's OTPMiddleware: a person who must give a second factor and has not
    in this session is sent to /accounts/2fa/ (API calls with a session: 403)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if (settings.CFPD_REQUIRE_2FA_ROLES and user.is_authenticated and not user.is_verified()
                and not request.path.startswith(OPEN_PREFIXES) and required_for(user)):
            if request.path.startswith("/api/"):
                from django.http import JsonResponse

                return JsonResponse({"detail": "Your role needs a second factor: sign in on the site first, "
                                               "or use an API token."}, status=403)
            return redirect(f"{PATH}?next={request.get_full_path()}")
        return self.get_response(request)


def _next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return "/"
    return target


def _confirmed_totp(user):
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def _has_key(user) -> bool:
    return keys_enabled() and WebAuthnCredential.objects.filter(user=user, confirmed=True).exists()


@login_required
def second_factor(request):
    user, target = request.user, _next(request)
    if request.method == "POST" and "key-added" in request.POST and user.is_verified():
        return _codes_after_key(request, user, target)
    if user.is_verified():
        return redirect(target)
    totp, key = _confirmed_totp(user), _has_key(user)
    if totp is None and not key:
        return _enrol(request, user, target)
    error = ""
    if request.method == "POST":
        code = request.POST.get("code", "").replace(" ", "").strip()
        # Six digits: the app's code; anything else: a recovery code (each device counts its
        # own failures, so a recovery code must not count as a wrong app code).
        devices = ([totp] if code.isdigit() and len(code) == 6
                   else list(StaticDevice.objects.filter(user=user, confirmed=True)))
        for device in devices:
            if code and device is not None and device.verify_token(code):  # a recovery code is deleted as used
                otp_login(request, device)
                return redirect(target)
        error = ("That code is not right (or was used already). Try the code your app shows now."
                 if totp else "That recovery code is not right (or was used already).")
    return render(request, "registration/two_factor.html", {
        "mode": "verify", "next": target, "error": error, "app": totp is not None, "key": key},
        status=400 if error else 200)


def _codes_after_key(request, user, target):
    """A security key was just registered (the plugin's view signed this session in with it;
    the page's script then posts here): the recovery codes, if this person has none yet."""
    if not _has_key(user) or StaticDevice.objects.filter(user=user).exists():
        return redirect(target)
    return render(request, "registration/two_factor.html",
                  {"mode": "codes", "codes": _new_recovery_codes(user), "next": target})


def _enrol(request, user, target):
    device = TOTPDevice.objects.filter(user=user, confirmed=False).first() or TOTPDevice.objects.create(
        user=user, name="authenticator app", confirmed=False)
    error = ""
    if request.method == "POST":
        code = request.POST.get("code", "").replace(" ", "").strip()
        if code and device.verify_token(code):
            device.confirmed = True
            device.save()
            otp_login(request, device)
            codes = _new_recovery_codes(user)
            # Shown in this response only: never in a message, the session or a redirect.
            return render(request, "registration/two_factor.html",
                          {"mode": "codes", "codes": codes, "next": target})
        error = "That code is not right: type the six digits your app shows now."
    qr = segno.make(device.config_url, error="m")
    return render(request, "registration/two_factor.html", {
        "mode": "enrol", "next": target, "error": error, "secret": _spaced(device), "config_url": device.config_url,
        "qr": qr.svg_inline(scale=4, title="Scan with your authenticator app"), "keys": keys_enabled()},
        status=400 if error else 200)


def _spaced(device) -> str:
    from base64 import b32encode

    secret = b32encode(device.bin_key).decode()
    return " ".join(secret[i:i + 4] for i in range(0, len(secret), 4))


def _new_recovery_codes(user) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="recovery codes", confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=code) for code in codes])
    return codes
