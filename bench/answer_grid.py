"""How long the models × questions grid and the comparison of two runs take at 100 models ×
1,000 questions, cold and warm, on the database DATABASE_URL names (PostgreSQL).

    createdb cfpd_grid_bench   # or any scratch database: the script migrates it
    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_grid_bench \\
        .venv/bin/python bench/answer_grid.py [--models 100] [--questions 1000] [--repeats 1] [--rounds 5]

Seeds once (kept for the next call, found by the benchmark's name): a benchmark of
--questions questions, --models models, two runs each asking every model every question
--repeats times (2 × models × questions × repeats answers; run B's code differs from run
A's for about one answer in five), written with PostgreSQL's COPY. Then, through
django.test.Client signed in as an analyst, each page and API call once cold (the first
in this process) and --rounds times warm, printing the best and the median in seconds:
the grid's first page, its last page of rows, the grid of both runs, a code filter, and
the comparison (page and API)."""

import argparse
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")



def seed(models: int, questions: int, repeats: int):
    NAME = f"bench-grid-{models}x{questions}x{repeats}"  # noqa: N806  (one benchmark per size)
    from django.db import connection, transaction

    from benchmarks_app.models import Benchmark, Question
    from runs_app.models import LLMModel, Run

    benchmark = Benchmark.objects.filter(name=NAME).first()
    if benchmark is not None:
        runs = list(Run.objects.filter(benchmark=benchmark).order_by("pk"))
        return benchmark, runs
    started = time.perf_counter()
    with transaction.atomic():
        benchmark = Benchmark.objects.create(name=NAME, family="cfpd")
        Question.objects.bulk_create(
            Question(benchmark=benchmark, key=f"{NAME}/q{i:05d}", text=f"Question {i}: which of three?",
                     options=[{"text": "one"}, {"text": "two"}, {"text": "three"}], option_order=[0, 1, 2],
                     choice_count=3) for i in range(questions))
        LLMModel.objects.bulk_create(LLMModel(name=f"{NAME}-m{i:03d}", litellm_model=f"openai/m{i}")
                                     for i in range(models))
        question_ids = list(Question.objects.filter(benchmark=benchmark).order_by("pk").values_list("pk", flat=True))
        model_ids = list(LLMModel.objects.filter(name__startswith=f"{NAME}-m").order_by("pk")
                         .values_list("pk", flat=True))
        runs = [Run.objects.create(benchmark=benchmark, status="done", repeats=repeats, note=note)
                for note in ("bench A", "bench B")]
        for run in runs:
            run.llm_models.set(model_ids)
        rng = random.Random(1)
        codes = "AAABBBCCR"
        first = {}
        for index, run in enumerate(runs):
            out = io.StringIO()
            for q in question_ids:
                for m in model_ids:
                    for r in range(repeats):
                        code = rng.choice(codes) if index == 0 or rng.random() < 0.2 else first[(q, m, r)]
                        first[(q, m, r)] = code
                        out.write(f"{run.pk}\t{q}\t{m}\t1\t{r}\tdone\t[0, 1, 2]\t[]\t{{}}\tanswer {code}\t{code}\t"
                                  "auto\tf\t0\t\t\t\t\t\t\t\tnow\n")
            out.seek(0)
            with connection.cursor() as cursor, cursor.copy(
                    "COPY runs_app_response (run_id, question_id, model_id, condition_id, repeat, status, "
                    "option_order, messages, params, raw_output, code, code_source, cache_hit, attempts, "
                    "resolved_model, chosen_letter, finish_reason, error_kind, error_message, cache_key, claim_token, "
                    "created_at) "
                    "FROM STDIN") as copy:
                copy.write(out.getvalue())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE runs_app_response")
    print(f"seeded {2 * models * questions * repeats:,} answers in {time.perf_counter() - started:.1f} s")
    return benchmark, runs


def timed(client, url, rounds):
    started = time.perf_counter()
    response = client.get(url)
    cold = time.perf_counter() - started
    assert response.status_code == 200, (url, response.status_code, response.content[:300])
    warm = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.get(url)
        warm.append(time.perf_counter() - started)
    return cold, min(warm), statistics.median(warm), len(response.content)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("DATABASE_URL must name a scratch PostgreSQL database")

    import django
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from accounts.services import create_user_with_role
    from django.contrib.auth import get_user_model

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    _, (run_a, run_b) = seed(args.models, args.questions, args.repeats)
    user = get_user_model().objects.filter(username="bench-grid-analyst").first() or create_user_with_role(
        "bench-grid-analyst", "bench-grid-pass-123", role="analysts")[0]
    client = Client()
    client.force_login(user)
    from explorer_app import grid_query
    last = -(-args.questions // grid_query.ROWS_PER_PAGE)
    checks = [
        ("grid, first page", f"/answers/grid/?run={run_a.pk}"),
        ("grid, last page of rows", f"/answers/grid/?run={run_a.pk}&page={last}"),
        ("grid, last page of models", f"/answers/grid/?run={run_a.pk}&model_page=99"),
        ("grid of both runs", f"/answers/grid/?run={run_a.pk}&run={run_b.pk}"),
        ("grid, code R only", f"/answers/grid/?run={run_a.pk}&code=R"),
        ("grid API", f"/api/answers/grid/?run={run_a.pk}"),
        ("compare page", f"/answers/compare/?a={run_a.pk}&b={run_b.pk}"),
        ("compare API", f"/api/answers/compare/?a={run_a.pk}&b={run_b.pk}"),
    ]
    answers = 2 * args.models * args.questions * args.repeats
    print(f"{args.models} models × {args.questions} questions × {args.repeats} repeat(s), two runs "
          f"({answers:,} answers), {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[1]}")
    print(f"{'page':32} {'cold s':>8} {'warm best':>10} {'warm median':>12} {'KB':>7}")
    for label, url in checks:
        cold, best, median, size = timed(client, url, args.rounds)
        print(f"{label:32} {cold:8.3f} {best:10.3f} {median:12.3f} {size / 1024:7.0f}")


if __name__ == "__main__":
    main()
