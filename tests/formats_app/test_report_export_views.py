"""The dashboards' "Export report" button (formats_app.views): the view as it is, queued for
the worker and never made in the request; its page says what the worker is doing, then
offers the file; only the reader who asked, while allowed to read the dashboards, gets it.
The worker runs in place (`formats_app.tasks.export_report`), as the suite runs
`analysis_app.tasks.compute_figure`."""

import io
import re
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from formats_app import report_exports, tasks
from formats_app.models import ReportExport
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401 (fixture)

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def queued(monkeypatch, settings, tmp_path):
    """The reports sent to the worker; `run_worker` makes them as the task does."""
    settings.VAR_DIR = tmp_path
    sent = []
    monkeypatch.setattr(tasks.export_report, "delay", sent.append)
    return sent


def run_worker(queued):
    while queued:
        tasks.export_report(queued.pop(0))


def ask(client, page="/analysis/cfpd/", query="iterations=200", fmt="html"):
    return client.post(reverse("report-export-start"), {"page": page, "query": query, "format": fmt})


def test_every_dashboard_shows_the_button_with_its_filters(client, analyst, demo_like):  # noqa: F811
    client.force_login(analyst)
    for page in ("/analysis/cfpd/?iterations=200&model=hawk", "/analysis/territories/?iterations=300",
                 "/analysis/crisis/?iterations=400"):
        html = client.get(page).content.decode()
        form = re.search(r'<form class="export-report".*?</form>', html, re.DOTALL).group(0)
        path, query = page.split("?")
        assert f'name="page" value="{path}"' in form and f'name="query" value="{query.replace("&", "&amp;")}"' in form
        assert 'value="html" checked' in form and 'value="folder"' in form


def test_an_analyst_asks_follows_and_downloads_an_html_report(client, analyst, demo_like, queued,  # noqa: F811
                                                                django_capture_on_commit_callbacks):
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(client, query="iterations=200&fresh=1")
    job = ReportExport.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("report-export", args=[job.pk])
    # Queued, not made: the request only wrote the row (fresh, recompute, is left out).
    assert queued == [job.pk] and job.status == "pending" and job.query == "iterations=200"
    page = client.get(response["Location"]).content.decode()
    assert "Queued" in page and "waiting for the worker" in page and 'id="export-done" hidden' in page
    # A second click while it waits is the same report.
    with django_capture_on_commit_callbacks(execute=True):
        assert ask(client, query="iterations=200")["Location"] == response["Location"]
    assert ReportExport.objects.count() == 1 and queued == [job.pk]

    run_worker(queued)
    job.refresh_from_db()
    assert job.status == "done" and job.done == job.total == 1
    assert re.fullmatch(r"made in ([1-9]\d* s|under a second)", job.step), job.step  # never "made in 0 s"
    assert job.size > 1_000_000  # plotly.js inside
    status = client.get(reverse("report-export-status", args=[job.pk])).json()
    assert status["status"] == "done" and status["size_text"].endswith("MB")
    page = client.get(response["Location"]).content.decode()
    assert "Ready" in page and f'href="{reverse("report-export-download", args=[job.pk])}"' in page
    download = client.get(reverse("report-export-download", args=[job.pk]))
    assert download.status_code == 200
    assert download["Content-Disposition"] == f'attachment; filename="cfpd-analysis-cfpd-report-{job.pk}.html"'
    # Streamed from the files' storage a chunk at a time, its length known beforehand.
    assert download.streaming and int(download["Content-Length"]) == job.size
    html = b"".join(download.streaming_content).decode()
    assert "Exported from CFPD Workbench: /analysis/cfpd/?iterations=200, as andy saw it" in html
    assert 'class="export-report"' not in html  # the button has no use in a file away from the site
    # The file lives as long as its row.
    assert default_storage.exists(job.file)
    with django_capture_on_commit_callbacks(execute=True):
        job.delete()
    assert not default_storage.exists(job.file)


def test_the_folder_comes_as_one_zip_of_figures_tables_and_index(client, analyst, demo_like, queued,  # noqa: F811
                                                                  django_capture_on_commit_callbacks, tmp_path):
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client, fmt="folder")
    job = ReportExport.objects.get()
    run_worker(queued)
    job.refresh_from_db()
    assert job.status == "done", job.error
    assert job.done == job.total and job.total >= 3 + 2 * 13  # page, 13+ tables and figures, index, zip
    download = client.get(reverse("report-export-download", args=[job.pk]))
    assert download["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    names = archive.namelist()
    folder = f"cfpd-analysis-cfpd-report-{job.pk}"
    assert f"{folder}/README.md" in names
    for suffix in (".svg", ".png"):
        assert f"{folder}/figures/01-rates{suffix}" in names
    for suffix in (".csv", ".tex"):
        assert f"{folder}/tables/01-rates{suffix}" in names
    assert archive.read(f"{folder}/figures/01-rates.png").startswith(b"\x89PNG\r\n\x1a\n")
    # The folder itself is gone once zipped: one file per report, in the files' storage
    # (the database here), none left on the worker's disk.
    assert default_storage.listdir(f"reports/{job.pk}") == ([], ["report.zip"])
    assert job.file == f"reports/{job.pk}/report.zip" and not list(tmp_path.iterdir())


def test_a_reports_file_goes_when_its_reader_is_deleted_and_a_gone_file_is_a_404(
        client, analyst, queued, django_capture_on_commit_callbacks):
    from django.core.files.base import ContentFile
    from django.utils import timezone

    job = ReportExport.objects.create(user=analyst, page="/analysis/cfpd/", format="html", status="done",
                                      requested_at=timezone.now(), file="reports/1/report.html", size=5)
    default_storage.save(job.file, ContentFile(b"<p>x"))
    client.force_login(analyst)
    assert b"".join(client.get(reverse("report-export-download", args=[job.pk])).streaming_content) == b"<p>x"
    default_storage.delete(job.file)
    assert client.get(reverse("report-export-download", args=[job.pk])).status_code == 404
    default_storage.save(job.file, ContentFile(b"<p>x"))
    with django_capture_on_commit_callbacks(execute=True):
        analyst.delete()  # the row goes with its reader, and the file with the row
    assert not ReportExport.objects.exists() and not default_storage.exists(job.file)


def test_a_filter_the_dashboard_refuses_fails_the_report_with_the_dashboards_message(
        client, analyst, demo_like, queued, django_capture_on_commit_callbacks):  # noqa: F811
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(client, query="iterations=5")
    run_worker(queued)
    job = ReportExport.objects.get()
    assert job.status == "failed" and "iterations must be between 100 and 10000, got '5'" in job.error
    page = client.get(response["Location"]).content.decode()
    assert "Failed" in page and "iterations must be between 100 and 10000" in page
    assert client.get(reverse("report-export-download", args=[job.pk])).status_code == 404


@pytest.mark.parametrize("page, query, fmt, named", [
    ("/analysis/cfpd/", "iterations=200", "pdf", "format must be one of html, folder"),
    ("/runs/", "", "html", "page must be one of the dashboards' paths"),
    ("/analysis/cfpd/rates.csv", "", "html", "page must be one of the dashboards' paths"),
    ("https://example.org/analysis/", "", "html", "page must be one of the dashboards' paths"),
    ("/analysis/cfpd/", "iterations=200&x=%00", "html", "query x has a value no dashboard accepts"),
    ("/analysis/cfpd/", "Bad Field=1", "html", "query has a field name no dashboard uses"),
    ("/analysis/cfpd/", "a=" + "1" * 5000, "html", "query is longer than 4000 characters"),
    ("/analysis/cfpd/", "iterations=%ff", "html", "query is not a query string"),
])
def test_a_bad_request_is_a_400_that_names_the_field(client, analyst, queued, page, query, fmt, named):
    client.force_login(analyst)
    response = ask(client, page=page, query=query, fmt=fmt)
    assert response.status_code == 400 and named in response.content.decode()
    assert ReportExport.objects.count() == 0 and queued == []


def test_a_reader_without_the_dashboards_gets_no_report_and_no_one_elses(client, analyst, reviewer, outsider,
                                                                          queued, django_capture_on_commit_callbacks):
    client.force_login(reviewer)
    assert ask(client).status_code == 403
    assert ReportExport.objects.count() == 0
    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client)
    job = ReportExport.objects.get()
    for name in ("report-export", "report-export-status", "report-export-download"):
        url = reverse(name, args=[job.pk])
        client.force_login(reviewer)
        assert client.get(url).status_code == 403, name
        client.force_login(outsider)
        assert client.get(url).status_code == 403, name
    # Another analyst may read the dashboards, not someone else's report.
    from tests.conftest import _persona
    client.force_login(_persona("anna", "analysts"))
    assert client.get(reverse("report-export", args=[job.pk])).status_code == 404
    client.logout()
    assert client.get(reverse("report-export", args=[job.pk])).status_code == 302  # to sign in
    assert client.get(reverse("report-export-start")).status_code in (302, 405)


def test_a_report_no_worker_takes_says_so(client, analyst, queued, django_capture_on_commit_callbacks):
    from datetime import timedelta

    client.force_login(analyst)
    with django_capture_on_commit_callbacks(execute=True):
        ask(client)
    ReportExport.objects.update(requested_at=ReportExport.objects.get().requested_at - timedelta(minutes=3))
    job = ReportExport.objects.get()
    assert client.get(reverse("report-export-status", args=[job.pk])).json()["no_worker"] is True
    assert 'id="export-no-worker" hidden' not in client.get(reverse("report-export", args=[job.pk])).content.decode()
