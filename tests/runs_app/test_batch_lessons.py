"""runs_app.batch_execution.Lessons: a batch's plain answers told to their models'
controllers a few at a time (issue 45), without a database."""

from types import SimpleNamespace

from gateway.limits import LocalLimiter
from runs_app import batch_execution
from runs_app.batch_execution import Lessons


def unit(model_id=1, run_id=7, ceiling=50):
    model = SimpleNamespace(pk=model_id, max_concurrency=ceiling, is_bundled=False)
    return SimpleNamespace(response=SimpleNamespace(model=model, run_id=run_id))


def test_answers_are_told_once_the_period_has_passed(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(batch_execution.time, "monotonic", lambda: clock[0])
    limiter = LocalLimiter()
    lessons = Lessons(limiter, every=0.05)
    lessons.add(unit())
    lessons.add(unit())
    assert limiter.run_calls(7) == {}  # within 0.05 s of the batch's start: waiting
    clock[0] += 0.06
    lessons.add(unit())  # the period passed: all three told
    assert limiter.run_calls(7)["model-1"]["calls"] == 3
    assert lessons.waiting == {}
    lessons.add(unit(run_id=8))
    lessons.tell()  # the batch's end tells the rest
    assert limiter.run_calls(8)["model-1"]["calls"] == 1


def test_a_telling_grows_the_limit_within_the_batch(monkeypatch):
    # Every answer told at once (every=0): the limit climbs while the batch is asked, not
    # after it.
    limiter = LocalLimiter()
    monkeypatch.setattr(batch_execution, "holding", lambda key: 3)  # 3 of this process's calls hold slots
    lessons = Lessons(limiter, every=0.0)
    lessons.add(unit())
    # here = 3 (+ 0 others): 3 + 1 fills 4 -> 5, told at once.
    assert limiter.adaptive_limit("model-1", 50) == 5


def test_answers_whose_calls_waited_for_slots_grow_the_limit_though_the_calls_in_flight_read_low(monkeypatch):
    # 1 of this process's calls holds a slot when each answer is told, none elsewhere: 1 + 1
    # of 4 does not fill the limit. Told as limited (calls waited for slots around them,
    # `aslot`'s SlotUse), three answers in slow start take it 4 -> 5 -> 6 -> 7; told as not
    # limited, it stays at 4.
    monkeypatch.setattr(batch_execution, "holding", lambda key: 1)
    limiter = LocalLimiter()
    lessons = Lessons(limiter, every=0.0)
    for _ in range(3):
        lessons.add(unit(model_id=1), limited=True)
    assert limiter.adaptive_limit("model-1", 50) == 7
    for _ in range(3):
        lessons.add(unit(model_id=2))
    assert limiter.adaptive_limit("model-2", 50) == 4


def test_at_its_ceiling_a_models_answers_are_told_every_at_ceiling_seconds(monkeypatch):
    # The limit starts at 4 (adaptive.Policy.start) and the ceiling is 4: no success can
    # raise it, so the answers wait for `at_ceiling` (1 s), not `every` (0.05 s).
    clock = [100.0]
    monkeypatch.setattr(batch_execution.time, "monotonic", lambda: clock[0])
    limiter = LocalLimiter()
    lessons = Lessons(limiter, every=0.05, at_ceiling=1.0)
    lessons.add(unit(ceiling=4))
    clock[0] += 0.06  # past `every`, short of `at_ceiling`
    lessons.add(unit(ceiling=4))
    assert limiter.run_calls(7) == {}
    clock[0] += 0.94  # 1.00 s since the batch's start
    lessons.add(unit(ceiling=4))
    assert limiter.run_calls(7)["model-1"]["calls"] == 3


def test_a_limit_that_reaches_its_ceiling_is_told_less_often_from_then_on(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(batch_execution.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(batch_execution, "holding", lambda key: 3)  # 3 of this process's calls hold slots
    limiter = LocalLimiter()
    lessons = Lessons(limiter, every=0.0, at_ceiling=1.0)
    lessons.add(unit(ceiling=5))  # limit 4 < 5: told at once; 3 + 1 in flight fill 4 -> 5
    assert limiter.adaptive_limit("model-1", 5) == 5 and limiter.run_calls(7)["model-1"]["calls"] == 1
    clock[0] += 0.5
    lessons.add(unit(ceiling=5))  # at the ceiling now: 0.5 s < 1 s since the last telling
    assert limiter.run_calls(7)["model-1"]["calls"] == 1
    clock[0] += 0.5
    lessons.add(unit(ceiling=5))  # 1.0 s: both told
    assert limiter.run_calls(7)["model-1"]["calls"] == 3


def test_a_limit_that_cannot_be_read_is_told_as_often_as_while_climbing(monkeypatch):
    class Unreadable(LocalLimiter):
        def adaptive_limit(self, *args, **kwargs):
            raise ConnectionError("the limiter's Redis is gone")

    clock = [100.0]
    monkeypatch.setattr(batch_execution.time, "monotonic", lambda: clock[0])
    limiter = Unreadable()
    lessons = Lessons(limiter, every=0.05, at_ceiling=1.0)
    lessons.add(unit(ceiling=4))
    clock[0] += 0.06
    lessons.add(unit(ceiling=4))  # `every` passed: told, the answers stand
    assert limiter.run_calls(7)["model-1"]["calls"] == 2
