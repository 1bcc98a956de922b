"""runs_app.batch_execution.Lessons: a batch's plain answers told to their models'
controllers a few at a time (issue 45), without a database."""

from types import SimpleNamespace

from gateway.limits import LocalLimiter
from runs_app import batch_execution
from runs_app.batch_execution import Lessons


def unit(model_id=1, run_id=7, ceiling=50):
    model = SimpleNamespace(pk=model_id, max_concurrency=ceiling)
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
