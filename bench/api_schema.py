"""What a request of the API's OpenAPI schema (`/api/schema/`) costs, as drf-spectacular's
view makes it (the whole schema generated at every request) and as the product serves it
(`kit.api_schema.SchemaView`: made once per process per format, then served as it
was written).

On a throwaway SQLite database (migrated in a temporary folder), a signed-in analyst asks
both views alternately, as YAML (the default) and as JSON, --requests times each; prints
the median milliseconds per request of each and their ratio, one JSON line per view.

    .venv/bin/python bench/api_schema.py [--requests 20]
"""

import argparse
import json
import statistics
import time

from scratch import scratch_site  # bench/scratch.py (this script's folder is first on sys.path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args()
    scratch_site("cfpd-bench-schema-")
    from django.test import RequestFactory
    from drf_spectacular.views import SpectacularAPIView

    from accounts.services import create_user_with_role
    from kit.api_schema import SchemaView

    user, _ = create_user_with_role("bench-analyst", "bench-pass-123", role="analysts")
    factory = RequestFactory()
    views = {"drf-spectacular (made per request)": SpectacularAPIView.as_view(),
             "product (made once per process)": SchemaView.as_view()}
    timings = {name: [] for name in views}
    sizes = {}
    for i in range(args.requests):
        query = {"format": "json"} if i % 2 else {}
        for name, view in views.items():
            request = factory.get("/api/schema/", query)
            request.user = user
            started = time.perf_counter()
            response = view(request)
            if hasattr(response, "render"):
                response.render()
            timings[name].append(time.perf_counter() - started)
            assert response.status_code == 200, response.status_code
            sizes.setdefault((name, i % 2), len(response.content))
    assert sizes[(list(views)[0], 0)] == sizes[(list(views)[1], 0)], sizes  # the same schema, byte for byte in size
    medians = {name: statistics.median(seconds) * 1000 for name, seconds in timings.items()}
    for name, ms in medians.items():
        print(json.dumps({"view": name, "median_ms": round(ms, 2), "requests": args.requests}))
    first, second = medians.values()
    print(f"ratio: {first / second:.0f}x")


if __name__ == "__main__":
    main()
