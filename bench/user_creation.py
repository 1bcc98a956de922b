"""What making a user with a role costs (`accounts.services.create_user_with_role`), now and
as it was: it used to set every role's permissions again (`sync_roles`, one query per
permission) at every user it made; now it makes the roles only when they are missing, and
`sync_roles` reads the permissions in one query. Every test that signs a role in makes a
user (the URL fuzz six a route), so this was a cost of the whole suite.

On a throwaway SQLite database (migrated in a temporary folder), the two ways alternate
--users times each; prints the median milliseconds per user of each and their ratio.

    .venv/bin/python bench/user_creation.py [--users 40]
"""

import argparse
import statistics
import time

from scratch import scratch_site  # bench/scratch.py (this script's folder is first on sys.path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=40)
    args = parser.parse_args()
    scratch_site("cfpd-bench-users-")
    from accounts.services import create_user_with_role, sync_roles

    def now(i):
        create_user_with_role(f"now-{i}", "bench-pass-123", role="analysts")

    def before(i):
        sync_roles()  # what every call did first, before
        create_user_with_role(f"before-{i}", "bench-pass-123", role="analysts")

    timings = {"before (roles set again per user)": [], "now (roles made when missing)": []}
    for i in range(args.users):
        for (name, seconds), make in zip(timings.items(), (before, now)):
            started = time.perf_counter()
            make(i)
            seconds.append(time.perf_counter() - started)
    medians = {name: statistics.median(seconds) * 1000 for name, seconds in timings.items()}
    for name, ms in medians.items():
        print(f"{name}: {ms:.1f} ms per user (median of {args.users})")
    first, second = medians.values()
    print(f"ratio: {first / second:.1f}x")


if __name__ == "__main__":
    main()
