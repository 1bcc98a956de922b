"""Security keys and passkeys (WebAuthn) as a second factor (issue 43), through django-otp's
own plugin django-otp-webauthn: its four ceremony views (and its script's translation
catalogue) mounted under /accounts/2fa/webauthn/, so RequireSecondFactor lets them through
before the second factor. They answer 404 until CFPD_WEBAUTHN_ORIGIN is set. Passwordless
sign-in is off (OTP_WEBAUTHN_ALLOW_PASSWORDLESS_LOGIN): a key is a second factor after the
password, never instead of it; the views then serve signed-in people only, each for their
own keys."""

from functools import wraps

from django.conf import settings
from django.http import Http404
from django.urls import path
from django.views.i18n import JavaScriptCatalog
from django_otp_webauthn import views

app_name = "otp_webauthn"  # the plugin's script and template tags reverse these names


def enabled() -> bool:
    return bool(settings.CFPD_WEBAUTHN_ORIGIN)


def _when_enabled(view):
    @wraps(view)
    def guarded(request, *args, **kwargs):
        if not enabled():
            raise Http404("Security keys are not turned on (CFPD_WEBAUTHN_ORIGIN).")
        return view(request, *args, **kwargs)

    return guarded


urlpatterns = [
    path("registration/begin/", _when_enabled(views.BeginCredentialRegistrationView.as_view()),
         name="credential-registration-begin"),
    path("registration/complete/", _when_enabled(views.CompleteCredentialRegistrationView.as_view()),
         name="credential-registration-complete"),
    path("authentication/begin/", _when_enabled(views.BeginCredentialAuthenticationView.as_view()),
         name="credential-authentication-begin"),
    path("authentication/complete/", _when_enabled(views.CompleteCredentialAuthenticationView.as_view()),
         name="credential-authentication-complete"),
    path("jsi18n/", _when_enabled(JavaScriptCatalog.as_view(packages=["django_otp_webauthn"])),
         name="js-i18n-catalog"),
]
