"""CFPD Workbench settings, read from the environment (see README "Configuration").

Safe by default: DEBUG is off, SECRET_KEY must be given when it is, and the security
headers that `manage.py check --deploy` asks for are on.
"""

import importlib.util
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

# The bundled encoder and models are read from installed packages; nothing is fetched
# from a model hub (none is reachable here). HF_HUB_OFFLINE=0 lets transformers look
# online for an encoder that is not on the machine (e.g. the paper's scorer).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from .env import envbool, envint, envlist, envstr, secret, storage_backend

BASE_DIR = Path(__file__).resolve().parent.parent
# The local settings file `scripts/setup` writes (untracked: a generated SECRET_KEY and
# DEBUG=1 for the embedded default), so that `manage.py` works in a plain shell. The
# environment wins over the file; CFPD_ENV_FILE names another file, or "" for none.
ENV_FILE = envstr("CFPD_ENV_FILE", str(BASE_DIR / ".env"))
if ENV_FILE:
    load_dotenv(ENV_FILE, override=False)
VAR_DIR = Path(envstr("CFPD_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = envbool("DEBUG", False)
SECRET_KEY = secret("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY is not set: set SECRET_KEY (or SECRET_KEY_FILE), or DEBUG=1 for development")
    SECRET_KEY = "insecure-development-key-only-for-debug"  # noqa: S105 (DEBUG only)

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "axes",  # sign-in throttling (see AXES_* below)
    "django_otp",  # two factors (issue 43, accounts.two_factor)
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "django_otp_webauthn",  # security keys / passkeys (accounts.two_factor_webauthn)
    "auditlog",  # the history of every change (AUDITLOG_* below; docs/architecture.md, "The record")
    "accounts",
    "benchmarks_app",
    "scenarios_app",
    "territories_app",
    "crisis_app",
    "runs_app",
    "encoding_app",
    "analysis_app",
    "explorer_app",
    "formats_app",
    "panels_app",
    "kit",  # its table holds the files between processes when no object storage is set (kit.file_store)
]

MIDDLEWARE = [
    # /healthz answered first: a probe's Host (a pod's address) need not be in ALLOWED_HOSTS,
    # nor is it redirected to HTTPS (cfpd_site.health).
    "cfpd_site.health.HealthzFirst",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "cfpd_site.middleware.DropEmptyAdminToField",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): a second factor given this session
    "accounts.two_factor.RequireSecondFactor",  # CFPD_REQUIRE_2FA_ROLES: no page before it
    "auditlog.middleware.AuditlogMiddleware",  # the signed-in person is the author of what a request changes
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "cfpd_site.error_pages.ErrorPages",  # with DEBUG on, the product's 404 page, not Django's technical one
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]
# Error pages in the product's layout in both configurations (cfpd_site.error_pages): with
# DEBUG on, a bad request or an uncaught error shows the product's page, not the
# traceback (which the log keeps); a form whose CSRF token expired says to reload.
DEFAULT_EXCEPTION_REPORTER = "cfpd_site.error_pages.PageReporter"
CSRF_FAILURE_VIEW = "cfpd_site.error_pages.csrf_failure"

# Sign-in throttling (django-axes): AXES_FAILURE_LIMIT failed sign-ins for one username
# from one address pause that pair for AXES_COOLOFF_MINUTES, with a page that says so.
AUTHENTICATION_BACKENDS = ["accounts.signin.SignInThrottle", "django.contrib.auth.backends.ModelBackend"]
# Single sign-on with OpenID Connect (issue 43; accounts/sso.py, mozilla-django-oidc), on when
# CFPD_OIDC_ISSUER is set: the provider's endpoints come from its discovery document.
CFPD_OIDC_ISSUER = envstr("CFPD_OIDC_ISSUER", "").rstrip("/")
CFPD_OIDC_NAME = envstr("CFPD_OIDC_NAME", "your organisation's sign-on")  # the sign-in button's words
OIDC_RP_CLIENT_ID = envstr("CFPD_OIDC_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = secret("CFPD_OIDC_CLIENT_SECRET", "")
OIDC_RP_SCOPES = envstr("CFPD_OIDC_SCOPES", "openid email profile groups")
OIDC_RP_SIGN_ALGO = envstr("CFPD_OIDC_SIGN_ALGO", "RS256")
OIDC_USE_PKCE = True
OIDC_STORE_ID_TOKEN = True  # for the sign-out at the provider (id_token_hint)
OIDC_CREATE_USER = True
OIDC_TIMEOUT = 10
CFPD_OIDC_GROUPS_CLAIM = envstr("CFPD_OIDC_GROUPS_CLAIM", "groups")
# provider-group=role,... (roles: authors, reviewers, analysts, operators); checked by accounts' system check.
CFPD_OIDC_ROLE_MAP = {group.strip(): role.strip() for group, _, role in
                      (entry.rpartition("=") for entry in envstr("CFPD_OIDC_ROLE_MAP", "").split(",") if entry.strip())}
CFPD_LOCAL_PASSWORDS = envbool("CFPD_LOCAL_PASSWORDS", True)  # off: only superusers sign in with a password
if CFPD_OIDC_ISSUER:
    if not (OIDC_RP_CLIENT_ID and OIDC_RP_CLIENT_SECRET):
        raise ImproperlyConfigured("CFPD_OIDC_ISSUER is set: set CFPD_OIDC_CLIENT_ID and CFPD_OIDC_CLIENT_SECRET too")
    AUTHENTICATION_BACKENDS.append("accounts.sso.SSOBackend")
# The record (issue 43): django-auditlog writes one entry per create, change and delete of
# these models (who, when, what field by field), read in the console only (History button
# of each object; /admin/auditlog/logentry/ filtered by person, kind and date, as CSV).
# Secrets and bookkeeping fields are left out. A management command names its author with
# its own option (import_scenarios --author); otherwise the OS user is recorded.
AUDITLOG_INCLUDE_TRACKING_MODELS = (
    "scenarios_app.Scenario",
    "scenarios_app.ResponseOption",
    "scenarios_app.ScenarioDyad",
    "scenarios_app.ScenarioTranslation",  # a translation, its approval and its being out of date
    "scenarios_app.ActorNameTranslation",
    "territories_app.Territory",
    "territories_app.Claimant",
    "territories_app.TermTranslation",
    "crisis_app.Simulation",
    "crisis_app.Continuation",
    "crisis_app.Variant",
    "benchmarks_app.Condition",
    "runs_app.LLMModel",
    "encoding_app.Code",
    "panels_app.Panel",  # a panel's design, its checks and profile questions; not the respondents' answers
    "panels_app.AttentionCheck",
    "panels_app.ProfileQuestion",
    {"model": "auth.User", "m2m_fields": {"groups"},
     "exclude_fields": ["password", "last_login"]},
)
AUDITLOG_DISABLE_REMOTE_ADDR = True  # who and when, not from where
AUDITLOG_INCLUDE_ALL_MODELS = False

AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=envint("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no "AXES: BEGIN …" banner on every manage.py command
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# The respondents' pages of panels (/p/…, panels_app.limits): requests a minute through one
# link and from one address, counted in the cache; over either, 429 with Retry-After.
PANEL_RATE_PER_LINK = envint("CFPD_PANEL_RATE_PER_LINK", 60)
PANEL_RATE_PER_ADDRESS = envint("CFPD_PANEL_RATE_PER_ADDRESS", 300)
AXES_CLIENT_IP_CALLABLE = "accounts.signin.client_ip"

# Content-Security-Policy (django-csp): scripts and styles only from this site's files.
# Inline <style> and style="" stay allowed: plotly draws its charts with them, and so do
# Swagger UI and Django admin; scripts are never inline (the figures' JSON sits in
# <script type="application/json">, which is data, not code).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
if CFPD_OIDC_ISSUER:
    # Signing out (a form) ends at the provider's end-session page: a redirect after a form
    # that `form-action 'self'` alone would stop.
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"].append(CFPD_OIDC_ISSUER)

ROOT_URLCONF = "cfpd_site.urls"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.roles",
                "benchmarks_app.context_processors.family_pages",
            ],
        },
    },
]

WSGI_APPLICATION = "cfpd_site.wsgi.application"

# Database: PostgreSQL (psycopg 3) when DATABASE_URL is set, else SQLite in the project folder.
DATABASE_URL = envstr("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        # A pool per process: worker threads borrow a connection only while they touch
        # the database (not while a model answers), so a worker with 128 threads needs
        # a few connections, not 128 (PostgreSQL allows 100 by default).
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": envint("DB_POOL_MIN", 1), "max_size": envint("DB_POOL_MAX", 16), "timeout": 60}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": envstr("SQLITE_PATH", str(VAR_DIR / "cfpd.sqlite3")),
            "OPTIONS": {
                # The web server and the embedded worker write at once: WAL lets readers
                # go on during a write, IMMEDIATE avoids upgrade deadlocks.
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Queue: Celery over Redis when REDIS_URL is set; otherwise the embedded default, a
# broker kept in files under var/queue that a worker process started beside the web
# server reads, so the same task code runs off the request thread with no service.
REDIS_URL = envstr("REDIS_URL")
QUEUE_DIR = VAR_DIR / "queue"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # kombu's Redis transport, with a channel that survives Redis going away (cfpd_site/redis_broker.py).
    CELERY_BROKER_TRANSPORT = "cfpd_site.redis_broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
else:
    CELERY_BROKER_URL = "filesystem://localhost/"  # a host, or kombu warns at every connection
    # kombu's file transport, with each message renamed into the folder once written
    # (cfpd_site/file_broker.py: a reader could read a file still empty).
    CELERY_BROKER_TRANSPORT = "cfpd_site.file_broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(QUEUE_DIR / "out"),
        "data_folder_out": str(QUEUE_DIR / "out"),
        "processed_folder": str(QUEUE_DIR / "processed"),
        "control_folder": str(QUEUE_DIR / "control"),
        "store_processed": False,
    }
    for folder in ("out", "processed", "control"):
        (QUEUE_DIR / folder).mkdir(parents=True, exist_ok=True)
if REDIS_URL:
    # A message a killed worker had taken comes back after this long (the sweeper
    # below usually re-queues its row sooner).
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = envint("CELERY_VISIBILITY_TIMEOUT", 3600)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = envint("CELERY_PREFETCH", 4)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.api_auth.ApiTokenAuthentication",  # first: its scheme makes a bare call a 401 (see there)
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "CFPD Workbench API",
    "DESCRIPTION": "Models, runs and responses of CFPD Workbench.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],  # the schema too needs a sign-in
    # Every operation documents 401 and 403 (kit.api_schema); the views name their others.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "kit.api_schema.document_auth_errors"],
}

# Run engine (runs_app).
# The bundled models' servers: local-smollm2 on PORT, local-gemma3 on PORT + 1.
# Threads for each bundled model's forward pass (torch): 1 lets the two models answer
# side by side on 2 cores; more helps only on an otherwise idle machine.
CFPD_LOCAL_THREADS = envint("CFPD_LOCAL_THREADS", 1)
# The bundled models' assembled and converted weights: a per-user cache (like pip's), so a
# second checkout on the machine skips the 1-2 minute conversion.
CFPD_MODELS_DIR = Path(envstr("CFPD_MODELS_DIR", str(Path(envstr("XDG_CACHE_HOME", str(Path.home() / ".cache")))
                                                   / "cfpd-workbench" / "models")))
# Whether this worker holds the bundled models' weights, so takes their units from the queue
# `cfpd-local` (runs_app.local_weights): "auto" when the weights are converted in
# CFPD_MODELS_DIR or their package is installed, "1" always, "0" never. The embedded default
# (no Redis: one worker does everything) takes them always.
CFPD_LOCAL_WEIGHTS = envstr("CFPD_LOCAL_WEIGHTS", "auto" if REDIS_URL else "1").strip().lower()
CFPD_MAX_ATTEMPTS = envint("CFPD_MAX_ATTEMPTS", 6)  # calls per unit before a transient error is final
CFPD_BACKOFF_FACTOR = envint("CFPD_BACKOFF_FACTOR", 2)  # seconds; doubles per attempt (Celery's backoff)
CFPD_BACKOFF_MAX = envint("CFPD_BACKOFF_MAX", 300)
CFPD_LEASE_MARGIN = envint("CFPD_LEASE_MARGIN", 30)  # seconds a claim outlives the model's timeout
CFPD_SWEEP_SECONDS = envint("CFPD_SWEEP_SECONDS", 15)  # how often each worker's watcher looks at the active runs
CFPD_UNCODED_GRACE = envint("CFPD_UNCODED_GRACE", 60)  # an answer uncoded this long after its write lost its code: coded again
CFPD_REQUEUE_AFTER = envint("CFPD_REQUEUE_AFTER", 900)  # a pending unit queued this long ago is queued again
# A cancel marks at most this many pending units in its request; more are marked by a worker
CFPD_CANCEL_AT_ONCE = envint("CFPD_CANCEL_AT_ONCE", 20000)
CFPD_CANCEL_SECONDS = envint("CFPD_CANCEL_SECONDS", 10)  # a sweep's time marking a cancelled run's units
CFPD_ENQUEUE_CHUNK = envint("CFPD_ENQUEUE_CHUNK", 500)
# Batch delivery (runs_app.provider_batch): how often an open provider batch is polled, and
# the most requests in one batch file (OpenAI takes up to 50,000).
CFPD_BATCH_POLL_SECONDS = envint("CFPD_BATCH_POLL_SECONDS", 60)
CFPD_BATCH_MAX_REQUESTS = envint("CFPD_BATCH_MAX_REQUESTS", 50_000)
# A launch of more units has them sent by a worker (one `dispatch` message), not by the
# process that launched it: the launch returns once its rows are written.
CFPD_DISPATCH_INLINE = envint("CFPD_DISPATCH_INLINE", 20_000)
# Units of one model sent in one message and asked together (runs_app.batch_execution): at
# most this many, and at most half the model's concurrency, so that two workers share it.
CFPD_BATCH_SIZE = envint("CFPD_BATCH_SIZE", 64)
# Allocations between two young-generation collections in a worker (`gc.set_threshold`), once
# it is ready (issue 45: 20,000 rather than Python's 700, ~2 % less worker CPU per answer at
# concurrency 128, docs/performance.md); 0 keeps Python's. See runs_app.tasks.freeze_start_up_objects.
CFPD_WORKER_GC_GEN0 = envint("CFPD_WORKER_GC_GEN0", 20_000)
CFPD_SLOT_WAIT = envint("CFPD_SLOT_WAIT", 5)  # seconds a call waits for its model's slot before it is re-queued
# Worker threads of a process that may wait for one model's slot (a unit asked alone); a
# unit finding them taken is re-queued at once: a model held back leaves the threads to others.
CFPD_SLOT_WAITERS = envint("CFPD_SLOT_WAITERS", 1)
# Calls in flight per model found by an AIMD controller (gateway/adaptive.py), under the
# model's max_concurrency as a hard ceiling; 0: always max_concurrency.
CFPD_ADAPTIVE = envbool("CFPD_ADAPTIVE", True)
CFPD_THROUGHPUT_EVERY = envint("CFPD_THROUGHPUT_EVERY", 5)  # seconds between a run's throughput records per process
# Issue 32, services failing under a run (runs_app.infra, runs_app.watcher): seconds between
# tries of a unit held up by Redis or the database; how long a worker holding answers keeps
# trying to write them; a model whose server refuses connections is paused this many
# seconds at a time, and its refusals count as attempts only once they have lasted this long.
CFPD_SERVICE_RETRY = envint("CFPD_SERVICE_RETRY", 5)
CFPD_WRITE_PATIENCE = envint("CFPD_WRITE_PATIENCE", 120)
CFPD_CONNECTION_PAUSE = envint("CFPD_CONNECTION_PAUSE", 5)
CFPD_CONNECTION_PATIENCE = envint("CFPD_CONNECTION_PATIENCE", 600)
# Launch limits (runs_app.launch_plan): the form, the API and run_benchmark refuse more.
CFPD_MAX_REPEATS = envint("CFPD_MAX_REPEATS", 50)
CFPD_MAX_UNITS_PER_RUN = envint("CFPD_MAX_UNITS_PER_RUN", 200_000)
CFPD_MAX_PROMPT_CHARS = envint("CFPD_MAX_PROMPT_CHARS", 20_000)  # a system prompt override

# Free-form crisis family (crisis_app): the scorer a finished free-form run is scored with,
# and score_inconsistency's default. "bertscore-minilm-bf16" computes the same encoder in
# bfloat16: about 2.4 times as fast on a CPU with AVX512-BF16 or AMX (README, Performance),
# group means within 2e-4, its scores stored under its own name. Checked at start-up
# (crisis_app.checks).
CFPD_INCONSISTENCY_SCORER = envstr("CFPD_INCONSISTENCY_SCORER", "bertscore-minilm")
# The CFPD dashboard's board is built by the worker, never in the request (scenarios_app.analysis.board_figure);
# off, the request builds it itself through the same row (a one-process setup, tests of the figures).
CFPD_DASHBOARD_IN_WORKER = envbool("CFPD_DASHBOARD_IN_WORKER", True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = envstr("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# The dashboards keep built figures here (scenarios_app.analysis.dashboard.build_cached,
# analysis_app.panels.cached): shared by every process through Redis when there is one, per process otherwise.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                      "KEY_PREFIX": "cfpd"}} if REDIS_URL else {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cfpd"}}

STATIC_URL = "static/"
# plotly.js comes from the plotly package (no CDN: the site works offline).
STATICFILES_DIRS = [BASE_DIR / "static",
                    ("plotly", Path(importlib.util.find_spec("plotly").submodule_search_locations[0]) / "package_data")]
STATIC_ROOT = Path(envstr("STATIC_ROOT", str(VAR_DIR / "staticfiles")))
# Files one process writes and another reads (a report the worker makes, the web server
# serves): in the database unless CFPD_STORAGE_URL names an S3-compatible bucket, so that
# no two processes need a disk in common (docs/architecture.md, "Files between processes").
STORAGES = {
    "default": storage_backend(secret("CFPD_STORAGE_URL")),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Security: on unless DEBUG, each switchable for a plain-HTTP local deployment.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
# Idle sessions end (issue 43): a session lasts CFPD_SESSION_IDLE_MINUTES after the last
# request, each request moving its end on (Django's SESSION_COOKIE_AGE, saved every request).
CFPD_SESSION_IDLE_MINUTES = envint("CFPD_SESSION_IDLE_MINUTES", 60 * 8)
SESSION_COOKIE_AGE = CFPD_SESSION_IDLE_MINUTES * 60
SESSION_SAVE_EVERY_REQUEST = True
# An API token made without an expiry expires this many days on (0: never; accounts.api_tokens).
CFPD_API_TOKEN_DAYS = envint("CFPD_API_TOKEN_DAYS", 90)
# Two factors (accounts.two_factor, django-otp): the roles that must give a TOTP code after
# their password (authors, reviewers, analysts, operators, admin = superusers); empty: none.
from accounts.two_factor_policy import parse_required as _parse_2fa  # noqa: E402  pure, no Django

CFPD_REQUIRE_2FA_ROLES = _parse_2fa(envstr("CFPD_REQUIRE_2FA_ROLES", ""),
                                    ("authors", "reviewers", "analysts", "operators"))
OTP_TOTP_ISSUER = "CFPD Workbench"
# Security keys and passkeys (WebAuthn, django-otp-webauthn) as the second factor too: the
# site's origin as the browser sees it (https://workbench.example.org); its host name is the
# relying party ID the keys are bound to (changing it strands every key). Empty: not offered.
CFPD_WEBAUTHN_ORIGIN = envstr("CFPD_WEBAUTHN_ORIGIN", "").rstrip("/")
OTP_WEBAUTHN_RP_ID = urlsplit(CFPD_WEBAUTHN_ORIGIN).hostname or "localhost"
OTP_WEBAUTHN_RP_NAME = "CFPD Workbench"
OTP_WEBAUTHN_ALLOWED_ORIGINS = [CFPD_WEBAUTHN_ORIGIN or "http://localhost"]
OTP_WEBAUTHN_ALLOW_PASSWORDLESS_LOGIN = False  # a key after the password, never instead of it
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", not DEBUG)
# Behind a TLS proxy (README "Behind TLS"): it says https in X-Forwarded-Proto and passes
# the Host it was asked for; only then are these headers to be believed.
if envbool("SECURE_PROXY_SSL", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
USE_X_FORWARDED_HOST = envbool("USE_X_FORWARDED_HOST", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # A refused permission (403) is an expected answer: one line, no traceback.
    "filters": {"forbidden_without_traceback": {"()": "cfpd_site.error_pages.ForbiddenWithoutTraceback"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"filters": ["forbidden_without_traceback"]},
        "django.db.backends": {"level": "WARNING"},
        # One INFO line per model call from each of these costs real time at hundreds of calls a second.
        "LiteLLM": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "openai": {"level": "WARNING"},
    },
}
