"""A dashboard's report: asked for by its button (`export_start`, queued for the worker),
followed on its page (`export_page`: what the worker is doing, then the download), and
downloaded (`export_download`) by the reader who asked, while that reader may read the
dashboards."""

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.views.decorators.http import require_GET, require_POST

from . import report_exports, report_jobs
from .models import ReportExport


def _own(request, pk) -> ReportExport:
    if not request.user.has_perm(report_jobs.PERMISSION):
        raise PermissionDenied("reading the dashboards is the analysts' role")
    return get_object_or_404(ReportExport, pk=pk, user=request.user)


@require_POST
def export_start(request):
    try:
        job = report_jobs.request_export(request.user, request.POST.get("page", ""),
                                         request.POST.get("query", ""), request.POST.get("format", ""))
    except report_jobs.BadExport as error:
        return HttpResponse(f"Cannot export this report: {error}.", status=400, content_type="text/plain")
    return redirect("report-export", pk=job.pk)


@require_GET
def export_page(request, pk):
    job = _own(request, pk)
    return render(request, "formats_app/export.html", {
        "job": job, "dashboard": _title(job.page),
        "under_way": job.status in (ReportExport.Status.PENDING, ReportExport.Status.RUNNING),
        "no_worker": report_jobs.waiting_too_long(job), "download_name": report_exports.download_name(job)})


def _title(page):
    """The dashboard's name ("Model profile: hawk" for a model's profile), or the page's path."""
    try:
        match = report_jobs.resolve(page)
    except report_jobs.Resolver404:
        return page
    title = report_jobs.dashboards().get(match.url_name, page)
    return f"{title}: {match.kwargs['name']}" if "name" in match.kwargs else title


@require_GET
def export_download(request, pk):
    """The file from the files' storage, streamed a chunk at a time (never held whole)."""
    job = _own(request, pk)
    if job.status != ReportExport.Status.DONE:
        raise Http404("this report is not ready")
    try:
        handle = report_exports.open_result(job)
    except FileNotFoundError:
        raise Http404("this report's file is gone") from None
    kind = "text/html; charset=utf-8" if job.format == ReportExport.Format.HTML else "application/zip"
    response = FileResponse(handle, as_attachment=True, filename=report_exports.download_name(job), content_type=kind)
    if "Content-Length" not in response:  # an object store's stream does not seek: its size is known
        response["Content-Length"] = handle.size
    return response


@require_GET
def export_status(request, pk):
    job = _own(request, pk)
    return JsonResponse({"status": job.status, "step": job.step, "done": job.done, "total": job.total,
                         "error": job.error, "size": job.size,
                         "size_text": filesizeformat(job.size) if job.size else "",
                         "no_worker": report_jobs.waiting_too_long(job)})
