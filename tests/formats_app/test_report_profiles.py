"""The Export report button on a model's profile (/models/<name>/) and on the models'
comparison (/models/compare/), beside the families' dashboards (issue 30): the page's
path is checked against the allowed pages and the model it names against the registered
ones before anything is queued; the HTML file holds every family's figure; the folder
has each family's figure as SVG and PNG, the page's one CSV as CSV and LaTeX, and a
README that says the sections have no CSV of their own.

The data are `test_model_profiles`' three families (hawk, dove, owl; hawk has answers of
all three families): a chart per family on hawk's profile and on hawk · dove."""

import io
import json
import re
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from formats_app import report_drawing, report_exports, report_folder
from formats_app.models import ReportExport
from runs_app.models import LLMModel
from tests.analysis_app.test_model_profiles import inline, three_families, three_families_rows  # noqa: F401 (fixtures)
from tests.formats_app.test_report_export_views import ask, queued, run_worker  # noqa: F401 (fixture)

pytestmark = [pytest.mark.django_db]

FAMILIES = ("cfpd", "borderlines", "freeform")


def figures_in(html: str) -> dict[str, dict]:
    """The plotly figures a page carries, by the script's id (json_script)."""
    return {key: json.loads(body) for key, body in
            re.findall(r'<script id="(figure-data-[^"]+)" type="application/json">(.*?)</script>', html, re.DOTALL)}


@pytest.mark.parametrize("page, query", [("/models/hawk/", ""), ("/models/compare/", "model=hawk&model=dove")])
def test_the_profile_and_the_comparison_show_the_button_with_their_page(client, analyst, three_families,  # noqa: F811
                                                                        inline, page, query):
    client.force_login(analyst)
    html = client.get(f"{page}?{query}" if query else page).content.decode()
    form = re.search(r'<form class="export-report".*?</form>', html, re.DOTALL).group(0)
    assert f'name="page" value="{page}"' in form
    assert f'name="query" value="{query.replace("&", "&amp;")}"' in form


def test_an_analyst_exports_a_profile_as_one_html_file_with_every_familys_figure(
        client, analyst, three_families, inline, queued, django_capture_on_commit_callbacks):  # noqa: F811
    client.force_login(analyst)
    on_site = figures_in(client.get("/models/hawk/").content.decode())
    assert sorted(on_site) == sorted(f"figure-data-{f}" for f in FAMILIES)
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(client, page="/models/hawk/", query="")
    job = ReportExport.objects.get()
    assert response.status_code == 302 and queued == [job.pk]
    assert "Report of Model profile: hawk" in client.get(response["Location"]).content.decode()
    run_worker(queued)
    job.refresh_from_db()
    assert job.status == "done", job.error
    download = client.get(reverse("report-export-download", args=[job.pk]))
    assert download["Content-Disposition"] == f'attachment; filename="cfpd-models-hawk-report-{job.pk}.html"'
    html = b"".join(download.streaming_content).decode()
    assert "Exported from CFPD Workbench: /models/hawk/, as andy saw it" in html
    assert figures_in(html) == on_site  # every family's chart, its data as the site has it
    assert 'class="export-report"' not in html and not re.search(r"<script[^>]*\bsrc=", html)
    assert "0.342" in html and "1 of 2" in html  # the crisis row (test_model_profiles' docstring)


def test_the_comparison_is_exported_with_its_models(client, analyst, three_families, inline, queued,  # noqa: F811
                                                    django_capture_on_commit_callbacks):
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client, page="/models/compare/", query="model=hawk&model=dove")
    run_worker(queued)
    job = ReportExport.objects.get()
    assert job.status == "done", job.error
    with report_exports.open_result(job) as handle:
        html = handle.read().decode()
    assert sorted(figures_in(html)) == sorted(f"figure-data-{f}" for f in FAMILIES)
    assert "hawk − dove" in html


@pytest.mark.parametrize("page, named", [
    ("/models/nobody/", "page names no registered model: 'nobody'"),
    ("/models/hawk%00/", "page names no registered model"),
    ("/models/hawk x/", "page names no registered model: 'hawk x'"),
    ("/models/" + "h" * 300 + "/", "page names no registered model"),
    ("/models/hawk/figures.csv", "page must be one of the dashboards' paths"),
    ("/models/status.json", "page must be one of the dashboards' paths"),
    ("/models/", "page must be one of the dashboards' paths"),
    ("/models/hawk", "page must be one of the dashboards' paths"),
])
def test_a_page_naming_no_model_or_no_dashboard_is_a_400(client, analyst, three_families, queued, page,  # noqa: F811
                                                         named):
    client.force_login(analyst)
    response = ask(client, page=page, query="")
    assert response.status_code == 400 and named in response.content.decode()
    assert ReportExport.objects.count() == 0 and queued == []


def test_a_comparison_of_unknown_models_fails_with_the_pages_message(
        client, analyst, three_families, inline, queued, django_capture_on_commit_callbacks):  # noqa: F811
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        assert ask(client, page="/models/compare/", query="model=hawk&model=zebra").status_code == 302
    run_worker(queued)
    job = ReportExport.objects.get()
    assert job.status == "failed" and "answered 400" in job.error and "'zebra' is not a registered model" in job.error


def test_the_command_refuses_a_profile_of_no_model_and_says_where_a_row_name_leads(
        analyst, three_families, inline, tmp_path):  # noqa: F811
    with pytest.raises(CommandError, match="--page names no registered model: 'nobody'"):
        call_command("export_report", "--page", "/models/nobody/", "--user", analyst.username,
                     "--out", str(tmp_path / "r.html"), stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="--page must be one of the dashboards' paths, got '/runs/'"):
        call_command("export_report", "--page", "/runs/", "--user", analyst.username,
                     "--out", str(tmp_path / "r.html"), stdout=io.StringIO(), stderr=io.StringIO())
    # A second row of hawk's model (same address, another answer mode): a registered name,
    # whose profile is under the model's name; the error says where to go.
    LLMModel.objects.create(name="hawk-text", litellm_model="openai/hawk", answer_mode="generate")
    with pytest.raises(CommandError, match=r"answered 302 .*\(it redirects to /models/hawk/: export that\)"):
        call_command("export_report", "--page", "/models/hawk-text/", "--user", analyst.username,
                     "--out", str(tmp_path / "r.html"), stdout=io.StringIO(), stderr=io.StringIO())
    assert not (tmp_path / "r.html").exists()


@pytest.fixture
def chromium():
    if report_drawing.chromium_path() is None:
        pytest.skip("no Chromium to draw with (Debian's chromium package)")


def test_a_profile_becomes_a_folder_of_figures_and_the_pages_table(
        client, analyst, three_families, inline, chromium, tmp_path):  # noqa: F811
    stdout = io.StringIO()
    call_command("export_report", "--page", "/models/hawk/", "--user", analyst.username, "--out",
                 str(tmp_path / "hawk"), stdout=stdout, stderr=io.StringIO())
    out = tmp_path / "hawk"
    # Three families, each a chart: 6 figures; the page's one CSV and its LaTeX; the index.
    assert re.search(r"\(1 csv, 1 md, 3 png, 3 svg, 1 tex; [\d,]+ bytes\)", stdout.getvalue()), stdout.getvalue()
    assert sorted(p.name for p in (out / "figures").iterdir()) == [
        "01-cfpd.png", "01-cfpd.svg", "02-borderlines.png", "02-borderlines.svg", "03-freeform.png", "03-freeform.svg"]
    for svg in (out / "figures").glob("*.svg"):
        assert svg.read_text().count('class="point"') > 0, svg.name  # plotted marks, not an empty frame
    client.force_login(analyst)
    # The page's own CSV, every row, byte for byte, and as LaTeX.
    on_site = client.get("/models/hawk/figures.csv").content.decode()
    assert (out / "tables" / "00-figures.csv").read_bytes().decode() == on_site
    assert r"\begin{tabular}" in (out / "tables" / "00-figures.tex").read_text()
    index = (out / "README.md").read_text()
    assert index.startswith("# /models/hawk/\n")
    assert "## The page's table: Figures (CSV)\n\n- `tables/00-figures.csv`\n- `tables/00-figures.tex`" in index
    assert "## Foreign-policy preferences (CFPD)" in index
    assert "- `figures/01-cfpd.svg`\n- `figures/01-cfpd.png`\n- no table of its own: its rows are in the page's " \
           "table, `tables/00-figures.csv`" in index


def test_the_comparison_as_a_zip_from_the_button(
        client, analyst, three_families, inline, chromium, queued, django_capture_on_commit_callbacks):  # noqa: F811
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client, page="/models/compare/", query="model=hawk&model=dove", fmt="folder")
    run_worker(queued)
    job = ReportExport.objects.get()
    assert job.status == "done", job.error
    download = client.get(reverse("report-export-download", args=[job.pk]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    folder = f"cfpd-models-compare-report-{job.pk}"
    names = set(archive.namelist())
    for family_number in ("01-cfpd", "02-borderlines", "03-freeform"):
        assert {f"{folder}/figures/{family_number}.svg", f"{folder}/figures/{family_number}.png"} <= names
    assert {f"{folder}/tables/00-differences.csv", f"{folder}/tables/00-differences.tex"} <= names
    table = archive.read(f"{folder}/tables/00-differences.csv").decode()
    assert table == client.get("/models/compare/differences.csv?model=hawk&model=dove").content.decode()
    assert "hawk,dove" in table


def test_the_reader_finds_the_family_sections_of_a_profile(client, analyst, three_families, inline):  # noqa: F811
    client.force_login(analyst)
    page = client.get("/models/hawk/").content.decode()
    panels = report_folder.panels_in(page)
    assert [p.key for p in panels] == list(FAMILIES)
    assert all(p.figure and p.note and not p.csv_href for p in panels)
    assert report_folder.page_csv(page) == ("/models/hawk/figures.csv", "Figures (CSV)")
