"""Who may read answers in the explorer (the grid, two runs compared; the answers' pages may
use the same rule): the same roles as the other analysis pages.

- analysts (`analysis_app.view_dashboard`) and operators (`runs_app.add_run`) read every
  benchmark's answers;
- reviewers (`encoding_app.code_responses`) read the answers of the benchmarks they code:
  a benchmark where they gave a code, or hold or finished a reviewer's task;
- anyone else reads nothing.

`readable_benchmarks(user)` answers with ALL (every benchmark), a set of benchmark ids
(possibly empty), or NOTHING (not a reader at all: a 403)."""

from __future__ import annotations

from django.db.models import Q

from encoding_app.models import Code, ReviewTask

ALL = "all"
NOTHING = None

READ_ALL = ("analysis_app.view_dashboard", "runs_app.add_run")
CODE = "encoding_app.code_responses"


def readable_benchmarks(user):
    if not (user and user.is_authenticated):
        return NOTHING
    if any(user.has_perm(perm) for perm in READ_ALL):
        return ALL
    if not user.has_perm(CODE):
        return NOTHING
    coded = Code.objects.filter(coder=user).values_list("response__run__benchmark_id", flat=True)
    tasks = ReviewTask.objects.filter(Q(done_by=user) | Q(leased_by=user)).values_list(
        "response__run__benchmark_id", flat=True)
    return set(coded.distinct()) | set(tasks.distinct())


def is_reader(user) -> bool:
    return readable_benchmarks(user) is not NOTHING


def may_read(user, benchmark_id: int) -> bool:
    allowed = readable_benchmarks(user)
    return allowed == ALL or (allowed is not NOTHING and benchmark_id in allowed)
