"""This process's name as a worker: its Celery node name (`celery worker -n host1@%h`),
set once when the worker starts (`tasks.name_this_worker`) and written on every unit it
claims (`transitions.claim`), so that a run's answers say which worker answered them and
the run page can name the workers serving it. Empty outside a worker (a unit asked in a
web process, a test calling the engine directly). No Django import."""

_name = ""


def set_name(name: str) -> None:
    global _name
    _name = (name or "")[:200]


def name() -> str:
    return _name
