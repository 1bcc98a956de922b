"""Several worker hosts share one run (issue 42): three Celery workers, each a "host" with
its own CFPD_VAR_DIR and its own node name (`-n hostK@%h`), on this pass's PostgreSQL and
Redis, against the fake OpenAI-compatible server. The units spread over the three (each
answer records the worker that answered it), every unit has exactly one answer, and a
host killed mid-run (SIGKILL: its claims and the messages it had taken are left behind)
loses nothing: its units finish on the other two and the run ends by itself."""

import re

import pytest
from django.conf import settings
from django.db.models import Count
from django.urls import reverse

from runs_app import services
from runs_app.models import Run
from tests.runs_app.test_worker_runs import (clean_broker, demo, fake, fake_model, hosts,  # noqa: F401
                                             run_finished, wait_for)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True, serialized_rollback=True)]




def workers_section(client, run) -> str:
    page = client.get(reverse("run-detail", args=[run.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    return html[html.index('id="run-workers"'):html.index('id="run-latest"')]


def test_three_hosts_share_a_run_and_a_killed_host_loses_nothing(demo, fake, hosts, client, admin_user):  # noqa: F811
    if not settings.REDIS_URL:
        pytest.skip("several hosts share one broker: the services pass (Redis)")
    # The three hosts are up before the launch, and each answer takes a second: 90 units at 12
    # at a time last about 8 s, so the kill below comes while units are left (started after
    # the launch, a host slow to start under load found the run already done).
    processes = {name: hosts(name) for name in ("host1", "host2", "host3")}
    hosts.ready(*processes)
    fake.configure(latency=1.0)
    run = services.launch_run(demo, [fake_model(fake, max_concurrency=12, timeout_seconds=5)],
                              services.Selection(sample=90, seed=4))
    # Every host has answered before one of them is killed.
    wait_for(lambda: run.responses.filter(status="done").values("worker").distinct().count() >= 3, 120,
             "answers from all three hosts")
    # The run page names the workers serving it while it runs.
    client.force_login(admin_user)
    live = workers_section(client, run)
    assert all(re.search(rf"<code>{name}@[^<]+</code>", live) for name in ("host1", "host2", "host3")), live
    processes["host2"].kill()  # SIGKILL
    processes["host2"].wait()
    done_at_kill = run.responses.filter(status="done").count()
    assert done_at_kill < 90
    wait_for(lambda: run_finished(run), 240, "the run to finish on the two hosts left")

    assert run.status == Run.Status.DONE
    responses = run.responses.all()
    assert responses.count() == 90 and set(responses.values_list("status", flat=True)) == {"done"}
    # Exactly one answer per unit: no (question, model, condition, repeat) twice.
    keys = responses.values("question", "model", "condition", "repeat").annotate(n=Count("pk")).order_by()
    assert len(keys) == 90 and {k["n"] for k in keys} == {1}
    # The units spread over the hosts; each answer names its worker ("hostK@<machine>").
    per_worker = dict(responses.values_list("worker").annotate(n=Count("pk")).order_by())
    names = {name.split("@")[0] for name in per_worker}
    assert names == {"host1", "host2", "host3"}, per_worker
    assert all(name.startswith(("host1@", "host2@", "host3@")) for name in per_worker)
    # After the kill the two hosts left finished what host2 held: every unit not done at
    # the kill was answered by host1 or host3.
    host2 = sum(n for name, n in per_worker.items() if name.startswith("host2@"))
    assert host2 <= done_at_kill and sum(per_worker.values()) == 90
    # And once it is done, with each worker's count of answers.
    section = workers_section(client, run)
    for name, n in per_worker.items():
        assert re.search(rf"<code>{re.escape(name)}</code></td><td class=\"num\">{n}</td><td class=\"num\">0</td>",
                         section), (name, n, section)
