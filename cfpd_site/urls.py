from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path

from accounts import sso, two_factor
from accounts.views import favicon, home
from benchmarks_app import families

from .health import healthz

admin.site.site_header = "CFPD Workbench"
admin.site.site_title = "CFPD Workbench"
admin.site.index_title = "Console"
admin.site.enable_nav_sidebar = False

urlpatterns = [
    path("", home, name="home"),
    path("favicon.ico", favicon, name="favicon"),
    path("healthz", healthz, name="healthz"),  # the probes' (cfpd_site.health): open, never redirected
    path("accounts/login/", sso.SignIn.as_view(), name="login"),
    path("accounts/logout/", sso.SignOut.as_view(), name="logout"),
    path("accounts/2fa/", two_factor.second_factor, name="second_factor"),
    # Security keys (accounts.two_factor_webauthn, django-otp-webauthn): 404 until CFPD_WEBAUTHN_ORIGIN is set.
    path("accounts/2fa/webauthn/", include("accounts.two_factor_webauthn", namespace="otp_webauthn")),
    # Single sign-on (accounts.sso; mozilla-django-oidc's URL names): 404 until CFPD_OIDC_ISSUER is set.
    path("accounts/sso/start/", login_not_required(sso.SignOnStart.as_view()), name="oidc_authentication_init"),
    path("accounts/sso/callback/", login_not_required(sso.SignOnCallback.as_view()),
         name="oidc_authentication_callback"),
    path("benchmarks/", include("benchmarks_app.urls")),
    path("runs/", include("runs_app.urls")),
    path("encoding/", include("encoding_app.urls")),
    # Each family's own pages and API, as it registered them (benchmarks_app.families: `urls`);
    # a family added is mounted with nothing changed here.
    *(path(prefix, include(module)) for prefix, module in families.url_mounts()),
    path("analysis/", include("analysis_app.urls")),
    path("api/profiles/", include("analysis_app.profile_api_urls")),
    path("api/answers/", include("explorer_app.api_urls")),
    path("api/panels/", include("panels_app.api_urls")),
    path("api/", include("runs_app.api_urls")),
    path("models/", include("analysis_app.profile_urls")),
    path("answers/", include("explorer_app.urls")),
    path("reports/", include("formats_app.urls")),
    path("", include("panels_app.urls")),  # /p/… (respondents, no account) and /panels/… (analysts)
    path("admin/", admin.site.urls),
]

# Errors in the product's layout (cfpd_site.error_pages; JSON under /api/). With DEBUG on,
# ErrorPages and PageReporter (settings) stand in for Django's technical pages.
handler400 = "cfpd_site.error_pages.bad_request"
handler403 = "cfpd_site.error_pages.permission_denied"
handler404 = "cfpd_site.error_pages.page_not_found"
handler500 = "cfpd_site.error_pages.server_error"
