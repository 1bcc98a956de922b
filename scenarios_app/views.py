from django.contrib.auth.decorators import permission_required
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, render

from . import services
from .models import Benchmark


@permission_required("scenarios_app.view_question", raise_exception=True)
def benchmark_list(request):
    benchmarks = Benchmark.objects.annotate(
        scenario_count=Count("scenarios", filter=Q(scenarios__is_current=True), distinct=True),
        question_count=Count("questions", filter=Q(questions__scenario__is_current=True), distinct=True),
    )
    return render(request, "scenarios_app/benchmark_list.html", {"benchmarks": benchmarks})


@permission_required("scenarios_app.view_question", raise_exception=True)
def benchmark_detail(request, name):
    benchmark = get_object_or_404(Benchmark, name=name)
    table = services.stats_table(benchmark)
    return render(request, "scenarios_app/benchmark_detail.html", {"benchmark": benchmark, "table": table})
