"""What the worker runs for a report asked for from a dashboard's button (`ReportExport`,
run by `formats_app.tasks.export_report`): claim the row, render the view as the reader
who asked for it, write the file (or the folder, zipped), record it; each step on the row,
for the report's page to show."""

from __future__ import annotations

import logging
import shutil
import zipfile
from pathlib import Path

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from . import report_services
from .models import ReportExport
from .report_drawing import DrawingError

log = logging.getLogger(__name__)


def folder() -> Path:
    """Where the reports are kept: VAR_DIR/reports/<id>/."""
    return Path(settings.VAR_DIR) / "reports"


def result_path(job: ReportExport) -> Path | None:
    return folder() / str(job.pk) / job.file if job.file else None


def download_name(job: ReportExport) -> str:
    name = job.page.strip("/").replace("/", "-") or "dashboard"
    return f"cfpd-{name}-report-{job.pk}" + (".html" if job.format == ReportExport.Format.HTML else ".zip")


def _zip(source: Path, target: Path) -> None:
    """The folder as one download, its files under the folder's own name."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                archive.write(path, Path(source.name) / path.relative_to(source))


def run_export(job_id: int) -> bool:
    """Claim the row (zero rows: another worker has it, or it is done) and make the report
    with no transaction open; the result or the error is written in one update."""
    if not ReportExport.objects.filter(pk=job_id, status=ReportExport.Status.PENDING).update(
            status=ReportExport.Status.RUNNING, started_at=timezone.now(), step="starting"):
        return False
    job = ReportExport.objects.select_related("user").get(pk=job_id)

    def progress(step: str, done: int, total: int) -> None:
        ReportExport.objects.filter(pk=job_id).update(step=step[:300], done=done, total=total)

    home = folder() / str(job.pk)
    shutil.rmtree(home, ignore_errors=True)  # a message redelivered after a crash starts clean
    home.mkdir(parents=True, exist_ok=True)
    name = download_name(job)
    try:
        if job.format == ReportExport.Format.HTML:
            report_services.write_report(job.url, job.user.get_username(), home / name, progress=progress)
        else:
            work = home / Path(name).stem

            def and_the_zip(step: str, done: int, total: int) -> None:  # packing it is one more step
                progress("packing the folder into one .zip" if step == "done" else step, done, total + 1)

            report_services.write_folder(job.url, job.user.get_username(), work, progress=and_the_zip)
            _zip(work, home / name)
            shutil.rmtree(work)
    except (report_services.ReportError, DrawingError) as exc:
        _failed(job_id, str(exc))
        return True
    except Exception as exc:  # recorded on the row and shown on the page, never a silent blank
        log.exception("report %s failed", job_id)
        _failed(job_id, f"{type(exc).__name__}: {exc}")
        raise
    seconds = (timezone.now() - job.started_at).total_seconds()
    ReportExport.objects.filter(pk=job_id).update(
        # "made in 0 s" read as if nothing was made (figures the worker had already computed)
        status=ReportExport.Status.DONE, step=f"made in {seconds:.0f} s" if seconds >= 1 else "made in under a second",
        done=F("total"), file=name, size=(home / name).stat().st_size,
        finished_at=timezone.now())
    return True


def _failed(job_id: int, message: str) -> None:
    ReportExport.objects.filter(pk=job_id).update(status=ReportExport.Status.FAILED, error=message[:2000],
                                                  finished_at=timezone.now())
