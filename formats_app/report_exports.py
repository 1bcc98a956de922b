"""What the worker runs for a report asked for from a dashboard's button (`ReportExport`,
run by `formats_app.tasks.export_report`): claim the row, render the view as the reader
who asked for it, write the file (or the folder, zipped) in a scratch folder of the worker's
own, put it into the files' storage (`default_storage`: the database or object storage,
never a disk the web server would have to share), record it; each step on the row, for the
report's page to show."""

from __future__ import annotations

import logging
import tempfile
import zipfile
from pathlib import Path

from django.core.files import File
from django.core.files.storage import default_storage
from django.db.models import F
from django.utils import timezone

from . import report_services
from .models import ReportExport
from .report_drawing import DrawingError

log = logging.getLogger(__name__)


def storage_name(job: ReportExport) -> str:
    """The report's name in the files' storage: reports/<id>/report.html or report.zip."""
    return f"reports/{job.pk}/report." + ("html" if job.format == ReportExport.Format.HTML else "zip")


def open_result(job: ReportExport):
    """The made report, open for reading a chunk at a time; FileNotFoundError when it is gone."""
    if not job.file:
        raise FileNotFoundError(f"report {job.pk} has no file")
    return default_storage.open(job.file, "rb")


def delete_result(name: str) -> None:
    """The report's file, when its row is deleted (formats_app.receivers)."""
    if name:
        default_storage.delete(name)


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

    name = download_name(job)
    try:
        with tempfile.TemporaryDirectory(prefix=f"cfpd-report-{job.pk}-") as scratch:
            made = _make(job, Path(scratch), name, progress)
            stored = storage_name(job)
            default_storage.delete(stored)  # a message redelivered after a crash starts clean
            with made.open("rb") as handle:
                stored = default_storage.save(stored, File(handle, name=stored))
            size = made.stat().st_size
    except (report_services.ReportError, DrawingError) as exc:
        _failed(job_id, str(exc))
        return True
    except Exception as exc:  # recorded on the row and shown on the page, never a silent blank
        log.exception("report %s failed", job_id)
        _failed(job_id, f"{type(exc).__name__}: {exc}")
        raise
    seconds = (timezone.now() - job.started_at).total_seconds()
    if not ReportExport.objects.filter(pk=job_id).update(
            # "made in 0 s" read as if nothing was made (figures the worker had already computed)
            status=ReportExport.Status.DONE, step=f"made in {seconds:.0f} s" if seconds >= 1 else "made in under a second",
            done=F("total"), file=stored, size=size, finished_at=timezone.now()):
        delete_result(stored)  # the row was deleted while the worker made it: the file goes with it
    return True


def _make(job: ReportExport, home: Path, name: str, progress) -> Path:
    """The report written under `home` (the worker's scratch folder): its path."""
    if job.format == ReportExport.Format.HTML:
        report_services.write_report(job.url, job.user.get_username(), home / name, progress=progress)
        return home / name
    work = home / Path(name).stem

    def and_the_zip(step: str, done: int, total: int) -> None:  # packing it is one more step
        progress("packing the folder into one .zip" if step == "done" else step, done, total + 1)

    report_services.write_folder(job.url, job.user.get_username(), work, progress=and_the_zip)
    _zip(work, home / name)
    return home / name


def _failed(job_id: int, message: str) -> None:
    ReportExport.objects.filter(pk=job_id).update(status=ReportExport.Status.FAILED, error=message[:2000],
                                                  finished_at=timezone.now())
