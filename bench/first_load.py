"""Each main page's first load on a warm server: the product's server as deployed (gunicorn
with cfpd_site/gunicorn_conf.py: the application preloaded in the master, CFPD_WARM_START),
every page asked once after the server is up and once more, as a table (issue 38).

    .venv/bin/python bench/first_load.py                 # the machine as it is
    .venv/bin/python bench/first_load.py --load 2        # two busy-loop processes beside it
    .venv/bin/python bench/first_load.py --load 2 --json

A "warm server" is one whose master has imported the site before forking its workers; each
page is then visited for the first time. The data is demo-shaped and built in seconds in a
temporary CFPD_VAR_DIR (SQLite, the embedded file broker, no worker consuming it): the demo
benchmark (load_demo) answered by two choice-mode models on 40 questions each and by two
free-text models on 10 (coded on arrival, the uncertain ones queued for reviewers), the
sample territorial table answered by four models, the crisis sample loaded (not answered).
DEBUG off, static files collected, as the container runs (plain HTTP: the secure-cookie
settings off).

With `--fresh-worker` (and `--workers 1`) each page is also the first request of a new
worker process: before each page the master is sent HUP, which forks fresh workers from the
warm master (preload_app: the application is not loaded again) — what the first visitor
after a worker's restart waits, page by page. Without it, only the first request each
worker takes pays for what the worker does once (the rows where it lands vary).

Signed in as one user in every role (a superuser, for the console): each page's row names
the role whose page it is. Times are the client's: request sent to the whole body read.
`--load N` starts N processes that spin (`while True: pass`) for the whole measure and
stops them by their ids. Exit status 1 when a first load is over --target seconds (1.0).

`--env NAME=VALUE` (repeatable) sets a variable in the server's environment. `--compare
NAME=VALUE` (repeatable) measures once per value given, a fresh server each time, on the
same data and under the same load, so that a fix behind a switch is measured off and on in
one invocation:

    .venv/bin/python bench/first_load.py --load 2 --compare CFPD_WARM_START=llm --compare CFPD_WARM_START=1

(`CFPD_WARM_START=llm`: LiteLLM alone warmed in the master, as before issue 38.)"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USER, PASSWORD = "bench-first-load", "bench-pass-123"
# (role, page, path): {run} is the demo's choice run, {model} and {versus} its two models.
PAGES = [
    ("analysts", "Territories", "/analysis/territories/"),
    ("analysts", "CFPD dashboard", "/analysis/cfpd/"),
    ("analysts", "Crisis inconsistency", "/analysis/crisis/"),
    ("analysts", "Metric validation", "/analysis/crisis/validation/"),
    ("analysts", "Models", "/models/"),
    ("analysts", "Model profile", "/models/{model}/"),
    ("analysts", "Model comparison", "/models/compare/?model={model}&model={versus}"),
    ("analysts", "Answers explorer", "/answers/"),
    ("analysts", "Answer grid", "/answers/grid/"),
    ("operators", "Runs", "/runs/"),
    ("operators", "Run page", "/runs/{run}/"),
    ("operators", "Models and keys", "/runs/models/"),
    ("operators", "Launch", "/runs/launch/"),
    ("reviewers", "Coding overview", "/encoding/"),
    ("reviewers", "Coding page", "/encoding/code/"),
    ("authors", "Benchmarks", "/benchmarks/"),
    ("all", "Home", "/"),
    ("all", "Console index", "/admin/"),
]
CHOICE_MODELS, TEXT_MODELS = ("demo-smollm2", "demo-gemma3"), ("demo-smollm2-text", "demo-gemma3-text")
TERRITORY_MODELS = ("demo-smollm2-rank", "demo-gemma3-rank") + CHOICE_MODELS
TEXTS = ["A", "**B**", "I cannot recommend either option.", "Both courses have merit; it depends.",
         "A: negotiate first", "Option B, because escalation deters."]


def _environment(var_dir: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CFPD_WARM_START")}
    env |= {"CFPD_VAR_DIR": str(var_dir), "SQLITE_PATH": str(var_dir / "cfpd.sqlite3"), "CFPD_ENV_FILE": "",
            "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "DEBUG": "0", "SECRET_KEY": "bench-only-" + "k" * 50,
            "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0", "SECURE_HSTS_SECONDS": "0", "STATIC_ROOT": str(var_dir / "static")}
    return env | (extra or {})


def build() -> dict:
    """The demo-shaped data (in this process, Django set up on the temporary database);
    what the pages' paths need."""
    import random

    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import create_user_with_role
    from accounts.roles import ROLES
    from benchmarks_app.models import DEFAULT_CONDITION_ID, Benchmark, Condition, Question
    from django.contrib.auth.models import Group
    from runs_app.models import LLMModel, Response, Run
    from runs_app.signals import responses_answered

    quiet = open(os.devnull, "w")
    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("load_demo", stdout=quiet)
    call_command("import_borderlines", str(ROOT / "territories_app" / "sample_borderlines"),
                 benchmark="borderlines", snapshot=None, stdout=quiet, stderr=quiet)
    call_command("load_crisis_sample", benchmark="crisis-sample", stdout=quiet)
    user = create_user_with_role(USER, PASSWORD, role="analysts", superuser=True)[0]
    user.groups.add(*Group.objects.filter(name__in=ROLES))
    rng = random.Random(1)

    def answer(run, model, questions, condition_id=DEFAULT_CONDITION_ID, text=False):
        rows = []
        for q in questions:
            letter = "ABCDEF"[rng.randrange(q.choice_count)]
            rows.append(Response(run=run, question=q, model=model, condition_id=condition_id, status="done",
                                 option_order=list(range(q.choice_count)), latency_ms=rng.randrange(200, 2000),
                                 **({"raw_output": rng.choice(TEXTS)} if text else
                                    {"chosen_letter": letter, "raw_output": letter, "code": letter,
                                     "code_source": "choice"})))
        return Response.objects.bulk_create(rows)

    demo = Benchmark.objects.get(name="demo")
    questions = list(Question.objects.filter(benchmark=demo).order_by("pk"))
    choice = [LLMModel.objects.create(name=name, litellm_model=f"openai/{name}", answer_mode="choice")
              for name in CHOICE_MODELS]
    run = Run.objects.create(benchmark=demo, status="done", note="demo")
    run.llm_models.set(choice)
    for model in choice:
        answer(run, model, rng.sample(questions, 40))
    text = [LLMModel.objects.create(name=name, litellm_model=f"openai/{name}") for name in TEXT_MODELS]
    text_run = Run.objects.create(benchmark=demo, status="done", note="demo, free text")
    text_run.llm_models.set(text)
    for model in text:
        rows = answer(text_run, model, rng.sample(questions, 10), text=True)
        responses_answered.send(sender=Response, response_ids=[r.pk for r in rows])
    borderlines = Benchmark.objects.get(name="borderlines")
    territory_models = choice + [LLMModel.objects.create(name=name, litellm_model=f"openai/{name}",
                                                         answer_mode="rank") for name in TERRITORY_MODELS[:2]]
    territory_run = Run.objects.create(benchmark=borderlines, status="done", note="demo, territories")
    territory_run.llm_models.set(territory_models)
    vanilla = Condition.objects.get(name="bl-vanilla")
    for model in territory_models:
        answer(territory_run, model, Question.objects.filter(benchmark=borderlines), condition_id=vanilla.pk)
    return {"run": run.pk, "model": CHOICE_MODELS[0], "versus": CHOICE_MODELS[1],
            "answers": Response.objects.count()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(var_dir: Path, workers: int, extra: dict) -> tuple[subprocess.Popen, str, float]:
    """gunicorn with the product's settings, once it listens: the process, its address and
    the seconds it took to come up."""
    port = free_port()
    env = _environment(var_dir, extra) | {"GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": str(workers)}
    gunicorn = Path(sys.executable).with_name("gunicorn")
    log = open(var_dir / f"gunicorn-{port}.log", "w")
    began = time.perf_counter()
    server = subprocess.Popen([str(gunicorn), "cfpd_site.wsgi:application", "-c", "cfpd_site/gunicorn_conf.py"],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    # Up: the master listens once the application is loaded (preload) and then forks its
    # workers. A connection only, no request: any request would import the URLconf in the
    # worker that takes it, which is what the first page loads measure.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn stopped: see {log.name}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        raise SystemExit("gunicorn did not listen in 5 minutes")
    up = time.perf_counter() - began
    time.sleep(2)  # every worker forked and idle
    return server, base, up


def sign_in(base: str) -> tuple:
    """A session signed in as the bench's user, and the sign-in page's load (seconds)."""
    import requests

    session = requests.Session()
    began = time.perf_counter()
    page = session.get(base + "/accounts/login/", timeout=120)
    seconds = time.perf_counter() - began
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    done = session.post(base + "/accounts/login/", data={"username": USER, "password": PASSWORD,
                                                         "csrfmiddlewaretoken": token},
                        headers={"Referer": base + "/accounts/login/"}, allow_redirects=False, timeout=120)
    if done.status_code != 302:
        raise SystemExit(f"sign-in failed: HTTP {done.status_code}")
    return session, seconds


def new_worker(server: subprocess.Popen, log: Path) -> None:
    """The workers replaced by fresh ones forked from the (warm) master (gunicorn's HUP:
    with preload_app the application is not loaded again); back once a new one booted."""
    booted = log.read_text().count("Booting worker")
    server.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 120
    while log.read_text().count("Booting worker") < booted + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # the old worker gone, the new one waiting on the socket


def measure(var_dir: Path, data: dict, workers: int, extra: dict, fresh_worker: bool) -> list[dict]:
    server, base, up = serve(var_dir, workers, extra)
    log = var_dir / f"gunicorn-{base.rsplit(':', 1)[1]}.log"
    try:
        session, seconds = sign_in(base)
        rows = [{"bench": "first_load", "role": "anyone", "page": "Sign-in page", "path": "/accounts/login/",
                 "status": 200, "first_s": seconds, "second_s": None, "bytes": None, "server_up_s": up}]
        for role, title, path in PAGES:
            if fresh_worker:
                new_worker(server, log)
            url = base + path.format(**data)
            loads = []
            for _ in range(2):
                began = time.perf_counter()
                response = session.get(url, allow_redirects=False, timeout=300)
                loads.append(time.perf_counter() - began)
            rows.append({"bench": "first_load", "role": role, "page": title, "path": path.format(**data),
                         "status": response.status_code, "first_s": loads[0], "second_s": loads[1],
                         "bytes": len(response.content), "server_up_s": up})
        return rows
    finally:
        server.terminate()
        server.wait(timeout=60)


def busy_loops(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def table(rows: list[dict], label: str) -> str:
    lines = [f"{label}", f"{'role':<10} {'page':<22} {'path':<46} {'HTTP':>4} {'first s':>8} {'second s':>9}"]
    for r in rows:
        lines.append(f"{r['role']:<10} {r['page']:<22} {r['path'][:46]:<46} {r['status']:>4} "
                     f"{r['first_s']:>8.3f} {'—' if r['second_s'] is None else format(r['second_s'], '.3f'):>9}")
    lines.append(f"(server listening, application preloaded, {rows[0]['server_up_s']:.1f} s after its start; "
                 "first requests 2 s later)")
    return "\n".join(lines)


def pair(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    if not name or not _:
        raise argparse.ArgumentTypeError(f"{text!r}: give NAME=VALUE")
    return name, value


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--load", type=int, default=0, help="busy-loop processes beside the server (0)")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn's workers (3, as the container)")
    parser.add_argument("--target", type=float, default=1.0)
    parser.add_argument("--env", type=pair, action="append", default=[], help="NAME=VALUE for the server")
    parser.add_argument("--compare", type=pair, action="append", default=[],
                        help="NAME=VALUE: one measure per value given (repeatable)")
    parser.add_argument("--fresh-worker", action="store_true",
                        help="each page the first request of a fresh worker (HUP before it; use --workers 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object per page, nothing else")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "build":
        print(json.dumps(build()))
        return 0
    extra = dict(args.env)
    cases = [("=".join(case), extra | dict([case])) for case in args.compare] or [("", extra)]
    with tempfile.TemporaryDirectory(prefix="cfpd-first-load-") as folder:
        var_dir = Path(folder)
        began = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "--child", "build"], env=_environment(var_dir), cwd=ROOT,
                             capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"building the data failed:\n{out.stderr[-3000:]}")
        data = json.loads(out.stdout.strip().splitlines()[-1])
        built = time.perf_counter() - began
        spinners = busy_loops(args.load)
        try:
            time.sleep(3 if args.load else 0)  # the load average climbing
            results = [(label, measure(var_dir, data, args.workers, case, args.fresh_worker))
                       for label, case in cases]
            load_average = os.getloadavg()
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    slow = False
    for label, rows in results:
        for row in rows:
            row |= {"load": args.load, "workers": args.workers, "fresh_worker": args.fresh_worker,
                    "configuration": label or None}
            slow = slow or row["first_s"] > args.target
            if args.json:
                print(json.dumps(row))
        if not args.json:
            fresh = ", each page a fresh worker's first request" if args.fresh_worker else ""
            print(table(rows, f"== {label or 'as configured'}; --load {args.load}, {args.workers} workers{fresh}"))
    if not args.json:
        print(f"(data built in {built:.1f} s: {data['answers']} answers; load average at the end "
              f"{load_average[0]:.2f}; {os.cpu_count()} cores)")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
