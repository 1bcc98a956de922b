"""The grid's build (`explorer_app.grid_query.build_grid`) of the synthetic benchmark's
latest run in a warm process, with the cache emptied before each build: what the first
view after a unit was added costs (the rows without a code or status filter are kept in
the cache otherwise, `grid_rows.kept_rows`). On the database scale_pages.py loads.

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale \\
        .venv/bin/python bench/grid_build.py [--rounds 5]

Prints, per case (the first page, a refusals-only grid, page 1,000), the best and median
seconds of --rounds builds after one unmeasured build, its rows and the load average."""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DATABASE_URL", "postgres://postgres:postgres@127.0.0.1:5432/cfpd_scale")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.cache import cache

    from explorer_app import grid_query
    from explorer_app.grid_query import GridFilter
    from runs_app.models import Run

    run = Run.objects.filter(benchmark__name="synthetic").order_by("-pk").values_list("pk", flat=True).first()
    for name, f in (("first page", GridFilter(runs=(run,))), ("code R only", GridFilter(runs=(run,), codes=("R",))),
                    ("page 1000", GridFilter(runs=(run,), page=1000))):
        grid_query.build_grid(f)
        times = []
        for _ in range(args.rounds):
            cache.clear()
            started = time.perf_counter()
            built = grid_query.build_grid(f)
            times.append(time.perf_counter() - started)
        print(f"{name}: uncached build best {min(times):.3f} s median {statistics.median(times):.3f} s, "
              f"{built.total_rows:,} rows, page {built.page}/{built.pages} (load {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
