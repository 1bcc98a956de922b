"""Two-move crisis conversations through the real engine: move 2 is created when its
move-1 answer arrives and asked with that answer, under injected faults and a killed
worker, each unit exactly once (real Celery workers, this pass's database and broker,
the fake OpenAI-compatible server)."""

import pytest

from crisis_app import services as crisis
from crisis_app.models import CrisisQuestion
from runs_app import services
from tests.fakes.fake_openai import prompt_key
from tests.runs_app.test_worker_runs import (  # noqa: F401  (fixtures)
    clean_broker, fake, fake_model, run_finished, wait_for, workers)

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def sample(db):
    return crisis.load_sample("crisis-t")


def generate_model(fake, **changes):
    return fake_model(fake, answer_mode="generate", temperature=0.7, max_tokens=64, **changes)


def check_every_sample_has_both_moves_once(run, per_prompt, samples, killed=False):
    move1 = run.responses.filter(previous__isnull=True)
    assert move1.count() == samples and set(move1.values_list("status", flat=True)) == {"done"}
    for first in move1:
        follow_ups = list(first.follow_ups.order_by("question__key"))
        assert [CrisisQuestion.objects.get(question=f.question).continuation.name for f in follow_ups] == [
            "revisionist", "status_quo"]
        for second in follow_ups:
            assert second.status == "done" and second.repeat == first.repeat
            assert second.condition_id == first.condition_id and second.model_id == first.model_id
            # The conversation carries this sample's own move-1 answer.
            assert second.messages[: len(first.messages)] == first.messages
            assert second.messages[len(first.messages)] == {"role": "assistant", "content": first.raw_output}
            assert second.messages[-1]["content"].startswith("The ship reached")
    assert run.responses.count() == 3 * samples
    # Every request the server saw is one recorded attempt: no unit asked twice after it
    # succeeded. (Move 1's samples share a prompt; move 2's carry their own answer.)
    attempts = {}
    for response in run.responses.all():
        key = prompt_key(response.messages)
        attempts[key] = attempts.get(key, 0) + response.attempts
    assert set(per_prompt) <= set(attempts)  # the server saw no prompt the engine did not record
    if killed:
        # A unit claimed by the killed worker counts an attempt it may never have sent.
        assert all(per_prompt.get(key, 0) <= count for key, count in attempts.items())
    else:
        assert attempts == {key: per_prompt[key] for key in attempts}


def test_move_two_follows_each_move_one_answer_under_faults_and_a_killed_worker(sample, fake, workers):
    fake.configure(fault_rate=0.2, fault_kinds=["429", "500", "timeout", "malformed"], timeout_sleep=3,
                   retry_after=0.2, latency=0.2)
    model = generate_model(fake)
    variants = services.Selection(family_keys={"domains": ["explicit", "anonymised"]})  # the family's key
    run = services.launch_run(sample.benchmark, [model], variants,
                              repeats=6, conditions=["t0-2", "t1-0"])
    assert run.responses.count() == 2 * 2 * 6  # move 1 only, at launch: 2 variants x 2 temperatures x 6 samples
    first = workers.start()
    wait_for(lambda: run.responses.filter(previous__isnull=False, status="done").count() >= 6, 90,
             "some move-2 answers")
    workers.kill(first)  # SIGKILL mid-run: claims, prefetched messages and follow-ups in flight left behind
    workers.start()
    wait_for(lambda: run_finished(run), 240, "the run to finish after the restart")
    assert run.status == "done"
    assert fake.stats()["failed"] > 5  # faults really were injected
    check_every_sample_has_both_moves_once(run, fake.stats()["requests_per_prompt"], 24, killed=True)
    temperatures = {r.condition.name: r.params.get("temperature") for r in run.responses.select_related("condition")}
    assert temperatures == {"t0-2": 0.2, "t1-0": 1.0}


def test_cancel_then_resume_asks_the_missing_moves_once(sample, fake, workers):
    fake.configure(latency=0.3)
    model = generate_model(fake, max_concurrency=2)
    run = services.launch_run(sample.benchmark, [model], services.Selection(family_keys={"domains": ["explicit"]}),
                              repeats=8, conditions=["t0-2"])
    workers.start(concurrency=2)
    wait_for(lambda: run.responses.filter(status="done").count() >= 4, 60, "some answers")
    services.cancel_run(run)
    wait_for(lambda: not run.responses.filter(status="running").exists(), 30, "calls in flight to finish")
    assert run.responses.filter(status="cancelled").exists()
    services.resume_run(run)
    wait_for(lambda: run_finished(run), 120, "the resumed run to finish")
    check_every_sample_has_both_moves_once(run, fake.stats()["requests_per_prompt"], 8)


def test_the_plan_counts_the_move_two_units_a_launch_will_create(sample, fake):
    # explicit: move 1 + 2 continuations = 3 units per sample; x 2 temperatures x 4 samples = 24
    request = services.read_launch({"benchmark": sample.benchmark, "models": [generate_model(fake)], "repeats": 4,
                                    "domains": ["explicit"], "conditions": ["t0-2", "t1-0"]})
    plan = services.plan_launch(request)
    assert plan.units == 24
    run = services.start_run(request)
    assert run.responses.count() == 8  # move 1 only; move 2 is created as each move-1 answer arrives
