"""Every URL of the product x malformed values of every query parameter its view reads x
every role: never a 500.

The URLs come from walking `get_resolver()`, so a new page is fuzzed without touching
this file. Path ids are filled with an existing object (the view's own kind where it
has one) and with bad ones (0, beyond 64 bits, unknown text, non-ASCII). The parameters
each view reads are found, not listed: a first request of each URL by each role goes
through a QueryDict that records the keys the view asked for (`get`, `getlist`, `[]`,
`in`), and only those are fuzzed, once per way the roles meet the page (a role whose
first request got the same status and read the same parameters as an earlier role's is
not sent the bad values again). Each URL is also POSTed empty by each role (with the
existing objects).

An explicit product rather than hypothesis: the values that break views are few and
known (non-numeric, negative, zero, huge, empty, unicode, very long, NUL), and every
combination runs every time, so a regression cannot hide behind a lucky draw.
"""

from __future__ import annotations

import re
from collections import Counter
from http.cookies import SimpleCookie
from urllib.parse import quote, urlencode

import pytest
from django.contrib.sessions.models import Session
from django.http import QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RegexPattern, RoutePattern

from accounts.services import create_user_with_role
from encoding_app.models import CodingPolicy, ReviewTask
from runs_app.models import LLMModel, Response, Run
from runs_app.signals import responses_answered
from scenarios_app import services as authoring
from scenarios_app.models import Benchmark
from tests.conftest import PASSWORD, rows_for_the_module
from tests.factories import escalation_spec
from tests.passes import current_pass

# Its ~300 routes are independent (a world per test): dealt out to every xdist worker.
pytestmark = [pytest.mark.django_db, pytest.mark.spread_across_workers]

BAD_VALUES = ["abc", "-1", "0", str(2**70), "", "١٢٣é中", "9" * 5000, "a\x00b"]
BAD_IDS = ["0", str(2**70), "nope", "é中"]
# Each value in the pass where it can fail (issue 37). The stack users deploy (the services
# pass: PostgreSQL) gets every value. The embedded pass (SQLite) gets the values whose handling
# depends on the database: an integer beyond 64 bits (SQLite's OverflowError, PostgreSQL's
# out-of-range error), 5,000 digits, a NUL character (which PostgreSQL refuses in text and
# SQLite stores) and non-ASCII text (each database's own collation and encoding). The others
# ("abc", "-1", "0", "", "nope") are refused or read by Python before any query, the same
# whatever the database, and are sent once, in the services pass.
DATABASE_DEPENDENT = {str(2**70), "9" * 5000, "a\x00b", "١٢٣é中", "é中"}
if current_pass() == "embedded":
    BAD_VALUES = [value for value in BAD_VALUES if value in DATABASE_DEPENDENT]
    BAD_IDS = [value for value in BAD_IDS if value in DATABASE_DEPENDENT]
ROLES = {"author": "authors", "reviewer": "reviewers", "analyst": "analysts", "operator": "operators",
         "outsider": None, "anonymous": None}
SKIP_POST = {"logout"}  # would sign the role out half-way

# 500s known and not yet fixed: route -> reason (xfail, not strict: a fix turns them into
# passes). None today.
KNOWN_500: dict[str, str] = {}


TALLY = Counter()


def _walk(patterns, prefix="", namespace=None):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + _route(pattern.pattern),
                             pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name}" if namespace and pattern.name else (pattern.name or "")
            yield prefix + _route(pattern.pattern), name


def _route(pattern) -> str:
    """A route with `<name>` placeholders, from either kind of pattern."""
    if isinstance(pattern, RoutePattern):
        return re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", str(pattern))
    assert isinstance(pattern, RegexPattern)
    text = str(pattern).lstrip("^").rstrip("$")
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", text)
    return text.replace("/?", "/").replace("\\.", ".").replace("\\", "")


ROUTES = sorted(set(_walk(get_resolver().url_patterns)))


def _marks(route):
    return [pytest.mark.xfail(reason=KNOWN_500[route], strict=False)] if route in KNOWN_500 else []


class RecordingQueryDict(QueryDict):
    """The request's GET, noting every key a view asks for."""

    seen: set = set()

    def __getitem__(self, key):
        RecordingQueryDict.seen.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        RecordingQueryDict.seen.add(key)
        return super().get(key, default)

    def getlist(self, key, default=None):
        RecordingQueryDict.seen.add(key)
        return super().getlist(key, default)

    def __contains__(self, key):
        RecordingQueryDict.seen.add(key)
        return super().__contains__(key)


def record_params(get_response):
    def middleware(request):
        recording = RecordingQueryDict(mutable=True)
        for key, values in request.GET.lists():
            recording.setlist(key, values)
        recording._mutable = False
        request.GET = recording
        return get_response(request)
    return middleware


@pytest.fixture(scope="module")
def world_rows(django_db_setup, django_db_blocker):
    """One of each thing a URL can name, and a client signed in per role: made once for the
    module's tests in this process (tests.conftest.rows_for_the_module), each test in a
    savepoint of it, so a POST of one test is undone before the next."""
    with rows_for_the_module(django_db_blocker):
        CodingPolicy.objects.update_or_create(pk=1, defaults={"double_coding_share": 0, "audit_share": 0})
        benchmark = Benchmark.objects.create(name="fuzz")
        authoring.save_spec(benchmark, escalation_spec())
        model = LLMModel.objects.create(name="hawk", litellm_model="openai/x")
        run = Run.objects.create(benchmark=benchmark, status="done")
        run.llm_models.set([model])
        responses = []
        for question, text in zip(benchmark.questions.order_by("pk"), ["B", "A or B, hard to say"]):
            response = Response.objects.create(run=run, question=question, model=model, status="done",
                                               raw_output=text, option_order=[0, 1])
            responses_answered.send(sender=Response, response_ids=[response.pk])
            responses.append(response)
        clients = {}
        for role, group in ROLES.items():
            client = Client(raise_request_exception=False)
            if role != "anonymous":
                user, _ = create_user_with_role(f"fuzz-{role}", PASSWORD, role=group)
                client.force_login(user)
            clients[role] = client
        task = ReviewTask.objects.order_by("pk").first()
        cookies = {role: {k: v.value for k, v in client.cookies.items()} for role, client in clients.items()}
        yield {"clients": clients, "cookies": cookies,
               "run": run, "model": model, "benchmark": benchmark, "response": responses[0], "task": task,
               "scenario": benchmark.scenarios.first()}


@pytest.fixture
def world(world_rows, db, settings):
    """The module's rows, each role's client holding its own session again (a request of
    an earlier test may have replaced its cookie: the session it named was rolled back)."""
    settings.MIDDLEWARE = [f"{__name__}.record_params", *settings.MIDDLEWARE]
    for role, client in world_rows["clients"].items():
        client.cookies = SimpleCookie(world_rows["cookies"][role])
        if role != "anonymous":  # still signed in: its session is among the module's rows
            assert Session.objects.filter(session_key=client.cookies[settings.SESSION_COOKIE_NAME].value).exists()
    return world_rows


def _good_value(route, kwarg, world):
    """An existing object for the placeholder: the view's own kind where it has one."""
    if kwarg == "format":
        return "json"
    if route.startswith("admin/"):
        return _admin_value(route, kwarg, world)
    if route.startswith(("runs/", "api/runs/")):
        return str(world["run"].pk)
    if route.startswith("api/responses/"):
        return str(world["response"].pk)
    if route.startswith("api/models/"):
        return world["model"].name
    if route.startswith("encoding/tasks/"):
        return str(world["task"].pk if world["task"] else 1)
    if route.startswith("benchmarks/"):
        return world["benchmark"].name
    if route.startswith("analysis/"):
        return "rates"
    if route.startswith("api/docs/assets/"):
        return "swagger-ui.css"
    return "1"


def _admin_value(route, kwarg, world):
    from django.apps import apps
    parts = route.split("/")
    if kwarg == "app_label":
        return "scenarios_app"
    if len(parts) > 3 and parts[1] and parts[2]:
        try:
            model = apps.get_model(parts[1], parts[2])
        except (LookupError, ValueError):
            return "1"
        obj = model._default_manager.order_by("pk").first()
        return str(obj.pk) if obj else "1"
    return "1"


def _fill(route, values):
    path = route
    for kwarg, value in values.items():
        path = path.replace(f"<{kwarg}>", quote(value, safe=""))
    return "/" + path


def _variants(route, world):
    """(label, path): the URL with existing objects, then with each bad id in each placeholder."""
    kwargs = re.findall(r"<(\w+)>", route)
    good = {k: _good_value(route, k, world) for k in kwargs}
    yield "existing", _fill(route, good)
    for kwarg in kwargs:
        for bad in BAD_IDS if kwarg != "format" else ["xyz"]:
            yield f"{kwarg}={bad[:12]}", _fill(route, {**good, kwarg: bad})


def _request(client, method, path, query):
    try:
        if method == "GET":
            return client.get(path, query)
        return client.post(path + ("?" + urlencode(query) if query else ""), {})
    except Exception as error:  # noqa: BLE001 (what the handler could not answer: a 500 as well)
        return error


@pytest.mark.parametrize("route,name", [pytest.param(r, n, id=r or "/", marks=_marks(r)) for r, n in ROUTES])
def test_no_url_answers_500_to_any_role_or_parameter(route, name, world):
    failures = []
    count = 0
    for label, path in _variants(route, world):
        met = set()  # how the roles met the page: (its GET's status, the parameters it read)
        for role, client in world["clients"].items():
            RecordingQueryDict.seen = set()
            methods = ["GET"] if name in SKIP_POST or label != "existing" else ["GET", "POST"]
            statuses = []
            for method in methods:
                response = _request(client, method, path, {})
                count += 1
                statuses.append(getattr(response, "status_code", None))
                if _is_500(response):
                    failures.append(f"{role} {method} {path}: {_why(response)}")
            if label != "existing":
                continue  # bad path ids: the plain request is enough; parameters go with the real object
            # A role that met the page as an earlier one did (the same status, the same parameters
            # read: e.g. four signed-in roles on a page each may read) takes the same path through
            # the view's parameter handling: its bad values were sent with that role.
            how = (statuses[0], frozenset(RecordingQueryDict.seen))
            if how in met:
                continue
            met.add(how)
            for param in sorted(RecordingQueryDict.seen):
                for value in BAD_VALUES:
                    response = _request(client, "GET", path, {param: value})
                    count += 1
                    if _is_500(response):
                        failures.append(f"{role} GET {path}?{param}={value[:20]!r}: {_why(response)}")
    TALLY["requests"] += count
    TALLY["routes"] += 1
    assert not failures, f"{len(failures)} of {count} requests answered 500:\n" + "\n".join(failures[:40])


def _is_500(response):
    return isinstance(response, Exception) or response.status_code >= 500


def _why(response):
    if isinstance(response, Exception):
        return f"{type(response).__name__}: {str(response)[:200]}"
    return f"HTTP {response.status_code}"


def test_zz_report_how_many_combinations_ran(capsys):
    """Run last in this module: the number of requests the product above made (in this process:
    under pytest-xdist the routes are dealt out to several)."""
    with capsys.disabled():
        print(f"\nfuzz: {TALLY['requests']} requests over {TALLY['routes']} routes in this process "
              f"(x {len(ROLES)} roles, {len(BAD_VALUES)} values per parameter, "
              f"{len(BAD_IDS)} bad ids per placeholder)")
