"""Sign-in throttling (django-axes): after AXES_FAILURE_LIMIT failed sign-ins for one
username from one address, that pair is refused for AXES_COOLOFF_TIME, with a page that
says so (templates/registration/locked_out.html)."""

from axes.backends import AxesStandaloneBackend
from django.conf import settings


class SignInThrottle(AxesStandaloneBackend):
    """Axes' check before the password backend, for sign-ins that come with a request
    (the sign-in page, the admin's, HTTP Basic on the API). `authenticate()` called by
    code without one (management commands, the test client's `login`) is not a sign-in
    from the network, cannot be counted per address, and is let through to the next
    backend instead of raising as Axes does."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request) -> str:
    """The address failures are counted for. Behind the TLS proxy (SECURE_PROXY_SSL) that is
    the last X-Forwarded-For entry, the one the proxy itself added (earlier entries come from
    the client and could be made up); otherwise the connection's address."""
    if getattr(settings, "SECURE_PROXY_SSL_HEADER", None):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.split(",")[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR", "")
