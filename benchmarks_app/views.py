from django.contrib.auth.decorators import permission_required
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe

from . import families
from .models import Benchmark


@permission_required("benchmarks_app.view_question", raise_exception=True)
def benchmark_list(request):
    benchmarks = Benchmark.objects.annotate(
        question_count=Count("questions", filter=Q(questions__is_current=True), distinct=True),
        language_count=Count("questions__language", filter=Q(questions__is_current=True), distinct=True),
    )
    return render(request, "benchmarks_app/benchmark_list.html", {"benchmarks": benchmarks})


@permission_required("benchmarks_app.view_question", raise_exception=True)
def benchmark_detail(request, name):
    benchmark = get_object_or_404(Benchmark, name=name)
    try:
        summary = families.family(benchmark.family).summary
    except families.UnknownFamily:
        summary = None
    # The family's summary comes from its own template, which escapes what it shows.
    body = mark_safe(summary(benchmark)) if summary else ""
    return render(request, "benchmarks_app/benchmark_detail.html", {"benchmark": benchmark, "summary": body})
