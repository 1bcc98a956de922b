"""A PostgreSQL and a Redis of their own, on spare ports in a temporary folder, with
Celery workers over them and the fake provider: the fault tests (tests/faults) and the
fault bench (bench/faults.py) stop and start each of them under a run.

No Django settings of the calling process are used: the workers and the launches run
in subprocesses with this stack's DATABASE_URL and REDIS_URL; the caller reads the run's
rows with psycopg directly (so it can poll while the database is down).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests import migrated

ROOT = Path(__file__).resolve().parents[2]

# The workers' settings: short leases and sweeps so that faults resolve in seconds; the
# long-stop requeue left at its default (the watcher, not it, must recover the run).
WORKER_ENV = {
    "CFPD_SWEEP_SECONDS": "1", "CFPD_LEASE_MARGIN": "3", "CFPD_BACKOFF_FACTOR": "1", "CFPD_BACKOFF_MAX": "2",
    "CFPD_SERVICE_RETRY": "1", "CFPD_WRITE_PATIENCE": "60", "CFPD_CONNECTION_PAUSE": "1",
    "CELERY_VISIBILITY_TIMEOUT": "3600", "DB_POOL_MAX": "8", "CFPD_UNCODED_GRACE": "10",
}


def spare_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def available() -> str:
    """Why the stack cannot run here ("" when it can)."""
    if postgres_bin() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
    if shutil.which("redis-server") is None:
        return "no redis-server"
    return ""


class Stack:
    def __init__(self, folder: Path, appendonly: bool = False, worker_env: dict | None = None):
        self.worker_env = worker_env or {}  # over WORKER_ENV: a module's own periods
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.pg_port, self.redis_port = spare_port(), spare_port()
        self.pg_bin = postgres_bin()
        # Its own folder under the system's temporary one: the caller's (pytest's, mode
        # 700) may be closed to the postgres user PostgreSQL runs as under root.
        self.pg_data = Path(tempfile.mkdtemp(prefix="cfpd-faults-pg-")) / "data"
        self.redis_dir = self.folder / "redis"
        self.redis_dir.mkdir(exist_ok=True)
        self.appendonly = appendonly
        self.redis: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.disk_full_flag = self.folder / "disk-full"
        self.log = self.folder / "worker.log"

    # -- the services ------------------------------------------------------------------
    @property
    def database_url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.pg_port}/cfpd"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self, **extra) -> dict:
        return {**os.environ, "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                "CFPD_VAR_DIR": str(self.folder / "var"), "DJANGO_SETTINGS_MODULE": "cfpd_site.settings_test",
                "CFPD_FAULT_DISK_FULL": str(self.disk_full_flag), **WORKER_ENV, **getattr(self, "worker_env", {}),
                **extra}

    def _as_owner(self) -> list:
        """PostgreSQL refuses to run as root: as the system's postgres user then."""
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def start(self):
        self.pg_data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.pg_data.parent, "postgres")
            shutil.chown(self.pg_data, "postgres")
        subprocess.run([*self._as_owner(), self.pg_bin / "initdb", "-D", self.pg_data, "-U", "postgres",
                        "--auth=trust", "-E", "UTF8"], check=True, capture_output=True)
        self.start_postgres()
        subprocess.run([self.pg_bin / "createdb", "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres",
                        "cfpd"], check=True, capture_output=True)
        self.start_redis()
        migrated.migrate(self.env())  # the migrated copy (tests/migrated.py), not 30 s of `migrate`

    def start_postgres(self):
        subprocess.run([*self._as_owner(), self.pg_bin / "pg_ctl", "-D", self.pg_data, "-l", self.pg_data / "pg.log",
                        "-w", "-o",
                        f"-p {self.pg_port} -k {self.pg_data} -c listen_addresses=127.0.0.1 -c fsync=off "
                        "-c max_connections=200", "start"], check=True, capture_output=True)

    def stop_postgres(self):
        subprocess.run([*self._as_owner(), self.pg_bin / "pg_ctl", "-D", self.pg_data, "-m", "fast", "-w", "stop"],
                       check=True, capture_output=True)

    def start_redis(self):
        persistence = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.appendonly else [
            "--appendonly", "no"]
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--dir", str(self.redis_dir),
             "--save", "", *persistence], stdout=open(self.folder / "redis.log", "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.redis_port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def use_appendonly(self):
        """Turn the append-only file on in the running Redis (as docker-compose runs it),
        written in full before this returns; later starts read it back."""
        import redis

        client = redis.Redis.from_url(self.redis_url)
        client.config_set("appendonly", "yes")
        deadline = time.monotonic() + 30
        while client.info("persistence").get("aof_rewrite_in_progress") or client.info("persistence").get(
                "aof_rewrite_scheduled"):
            assert time.monotonic() < deadline, "the append-only file was not written"
            time.sleep(0.1)
        self.appendonly = True

    def flush_and_restart_redis(self):
        """FLUSHALL, then a restart of about a second without persistence (systemctl
        restart, an eviction): everything Redis held is gone, too quickly for a watcher
        to see it down."""
        import redis

        redis.Redis.from_url(self.redis_url).flushall()
        self.stop_redis()
        self.start_redis()

    def uncoded(self, run_id: int) -> int:
        """Answers of the run with no code and no code source: neither coded nor queued."""
        [(count,)] = self.sql("SELECT count(*) FROM runs_app_response WHERE run_id = %s AND status = 'done' "
                              "AND code = '' AND code_source = ''", (run_id,))
        return count

    def first_answer_after(self, run_id: int, when: float) -> float | None:
        """Epoch seconds of the run's first answer written after `when` (None: none yet)."""
        [(first,)] = self.sql("SELECT extract(epoch FROM min(answered_at)) FROM runs_app_response "
                              "WHERE run_id = %s AND answered_at > to_timestamp(%s)", (run_id, when))
        return None if first is None else float(first)

    def stop_redis(self):
        """SIGTERM: with append-only on, Redis writes its file before it exits; without
        persistence everything it held (the queue, the limiter's slots) is gone."""
        if self.redis is not None and self.redis.poll() is None:
            self.redis.send_signal(signal.SIGTERM)
            self.redis.wait(15)

    def close(self):
        self.stop_workers()
        self.stop_redis()
        try:
            self.stop_postgres()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.pg_data.parent, ignore_errors=True)

    # -- Django commands and workers ---------------------------------------------------------
    def manage(self, *args, input: str | None = None) -> str:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env(), input=input,
                              capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def python(self, code: str) -> str:
        return self.manage("shell", "-c", code)

    def start_worker(self, concurrency: int = 8) -> subprocess.Popen:
        """A worker of `concurrency` threads, named `wN@<host>` (N counts the workers this
        stack started): each unit it claims says so (`Response.worker`)."""
        sys.path.insert(0, str(ROOT))
        self.started_workers = getattr(self, "started_workers", 0) + 1
        command = [sys.executable, "-m", "celery", "-A", "cfpd_site", "worker", "--pool", "threads",
                   "--concurrency", str(concurrency), "--loglevel", "WARNING", "--without-mingle",
                   "--without-gossip", "--without-heartbeat", "-n", f"w{self.started_workers}@%h"]
        process = subprocess.Popen(command, cwd=ROOT, env=self.env(), stdout=open(self.log, "ab"),
                                   stderr=subprocess.STDOUT)
        process.worker_name = f"w{self.started_workers}@"  # then the host, as Celery reads it
        self.workers.append(process)
        return process

    def kill_worker(self, process: subprocess.Popen):
        """SIGKILL the worker; `held_by_killed` is then the units its claims still hold (running
        under its name): the calls it had asked and not written, which may be asked again."""
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.held_by_killed = self.held_by(process.worker_name)

    def held_by(self, worker_name: str) -> int:
        """Units running under a claim of the worker named `wN@` (on any host)."""
        [(held,)] = self.sql("SELECT count(*) FROM runs_app_response WHERE status = 'running' AND worker LIKE %s",
                             (worker_name + "%",))
        return held

    def worker_killer(self, concurrency: int):
        """The fault tests' pair (inject, restore): SIGKILL the first worker; then start a new
        one of `concurrency` threads in its place."""
        def kill_worker():
            self.kill_worker(self.workers[0])

        def restart():
            self.workers.pop(0)
            self.start_worker(concurrency)

        return kill_worker, restart

    def stop_workers(self):
        for process in self.workers:
            if process.poll() is None:
                process.terminate()
        for process in self.workers:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()

    # -- runs ------------------------------------------------------------------------------
    def setup_models(self, base_url: str, models: int = 1):
        """The demo benchmark and `models` fake models (fake-0, fake-1, ...)."""
        self.python(
            "from django.core.management import call_command\n"
            "import os\n"
            "call_command('load_demo', stdout=open(os.devnull, 'w'))\n"
            "from runs_app.models import LLMModel\n"
            f"for i in range({models}):\n"
            f"    LLMModel.objects.get_or_create(name=f'fake-{{i}}', defaults=dict(litellm_model='openai/fake', "
            f"api_base={base_url!r}, answer_mode='choice', choice_strategy='logprobs', max_concurrency=16, "
            "timeout_seconds=5))\n")

    def launch(self, units: int, models: int = 1, seed: int = 1) -> int:
        """A run of `units` units over the demo's questions and the first `models` fake
        models (no cache: each unit is one call); its id."""
        out = self.python(
            "from scenarios_app.models import Benchmark\n"
            "from runs_app import services\n"
            "from runs_app.models import LLMModel\n"
            "demo = Benchmark.objects.get(name='demo')\n"
            f"models = list(LLMModel.objects.filter(name__startswith='fake-').order_by('name')[:{models}])\n"
            f"run = services.launch_run(demo, models, services.Selection(sample={units // models}, seed={seed}), "
            "use_cache=False)\n"
            "print('RUN', run.pk, run.responses.count())\n")
        return int(out.split("RUN")[1].split()[0])

    def questions(self) -> int:
        return int(self.python("from scenarios_app.models import Benchmark\n"
                               "from benchmarks_app import services\n"
                               "print(services.current_questions(Benchmark.objects.get(name='demo')).count())")
                   .split()[-1])

    def sql(self, query: str, args=()) -> list[tuple]:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.pg_port} user=postgres dbname=cfpd",
                             connect_timeout=2) as conn:
            return conn.execute(query, args).fetchall()

    def counts(self, run_id: int) -> dict:
        """The run's status and its units by status; {} while the database is down."""
        try:
            rows = self.sql("SELECT status, count(*) FROM runs_app_response WHERE run_id = %s GROUP BY status",
                            (run_id,))
            [(status, wait)] = self.sql("SELECT status, service_wait FROM runs_app_run WHERE id = %s", (run_id,))
        except Exception:  # noqa: BLE001 — the database is down
            return {}
        return {"run": status, "service_wait": wait, **dict(rows)}


class EmbeddedStack(Stack):
    """The embedded default of its own: a SQLite file and the file broker's folder in a
    temporary folder (CFPD_VAR_DIR), no DATABASE_URL or REDIS_URL, real Celery workers
    over them. The caller reads the run's rows with sqlite3 directly."""

    def __init__(self, folder: Path):
        # Not Stack's: it would make PostgreSQL's and Redis's folders.
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.workers: list[subprocess.Popen] = []
        self.disk_full_flag = self.folder / "disk-full"
        self.log = self.folder / "worker.log"
        self.var = self.folder / "var"
        self.queue = self.var / "queue"

    def env(self, **extra) -> dict:
        base = {key: value for key, value in os.environ.items()
                if key not in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH")}
        # Batches of 4 and one message reserved per worker thread: the queue folder still
        # holds messages a quarter into a few hundred units, for its fault to meet.
        return {**base, "CFPD_VAR_DIR": str(self.var), "DJANGO_SETTINGS_MODULE": "cfpd_site.settings_test",
                "CFPD_FAULT_DISK_FULL": str(self.disk_full_flag), **WORKER_ENV, "CFPD_BATCH_SIZE": "4",
                "CELERY_PREFETCH": "1", **extra}

    def start(self):
        migrated.migrate(self.env())

    def close(self):
        self.queue_writable()
        self.stop_workers()

    # -- the queue folder unwritable ---------------------------------------------------
    def _queue_folders(self) -> list[Path]:
        return [self.queue, *(path for path in self.queue.iterdir() if path.is_dir())]

    def queue_unwritable(self):
        """Every folder of the broker refuses new files and removals (a read-only mount, a
        change of owner): `chattr +i` as root (whom modes do not stop), else mode 555."""
        for path in self._queue_folders():
            if os.geteuid() == 0:
                subprocess.run(["chattr", "+i", path], check=True, capture_output=True)
            else:
                path.chmod(0o555)

    def queue_writable(self):
        if not self.queue.exists():
            return
        for path in self._queue_folders():
            if os.geteuid() == 0:
                subprocess.run(["chattr", "-i", path], capture_output=True)
            else:
                path.chmod(0o755)

    def sql(self, query: str, args=()) -> list[tuple]:
        import sqlite3

        with sqlite3.connect(f"file:{self.var / 'cfpd.sqlite3'}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute(query.replace("%s", "?"), args).fetchall()

    def counts(self, run_id: int) -> dict:
        import json

        counts = super().counts(run_id)
        if isinstance(counts.get("service_wait"), str):  # SQLite keeps JSON as text
            counts["service_wait"] = json.loads(counts["service_wait"])
        return counts


def queue_can_be_made_unwritable() -> str:
    """Why the queue folder cannot be made unwritable here ("" when it can)."""
    if os.geteuid() != 0:
        return ""
    if shutil.which("chattr") is None:
        return "root, and no chattr to make a folder immutable"
    with tempfile.TemporaryDirectory(prefix="cfpd-faults-chattr-") as folder:
        if subprocess.run(["chattr", "+i", folder], capture_output=True).returncode:
            return "root, and chattr +i refused here (no CAP_LINUX_IMMUTABLE, or the filesystem has no such flag)"
        subprocess.run(["chattr", "-i", folder], capture_output=True)
    return ""
