"""The families' headline figures in one place: each family registers a publisher here
(from its AppConfig.ready), and the worker asks every publisher for every model's
figures (`analysis_app.computed`, kind "model-headlines"), so that a model's profile and
the comparison read one stored result in milliseconds.

A publisher is `publish(models)`: the family's `results.Figure`s of those models (None:
of every model it has answers of). Registered with it: the family's label, its
dashboard's URL filtered to one model (`link(model, benchmark)`), and `version()`, what
moves when its figures would change without a change to an answer or a code (a new
score, say); the answers, codes and runs every family shares are in `data_version`
already (`benchmarks_app.data_version`, moved by every change to a code, the runs'
numbers and finishing times).

This module names no family: families import it, never the other way round."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Max

from benchmarks_app import data_version as data_version_number

from . import computed
from .models import ComputedFigure
from .results import Figure

KIND = "model-headlines"


@dataclass(frozen=True)
class Publisher:
    family: str
    label: str
    publish: Callable[[Sequence[str] | None], Iterable[Figure]]
    link: Callable[[str, str], str] | None = None
    version: Callable[[], object] | None = None
    about: str = ""  # one sentence on what the figures are, shown on the profile


_PUBLISHERS: dict[str, Publisher] = {}


def register(family: str, publish, *, label: str = "", link=None, version=None, about: str = "") -> None:
    """Register (or replace: AppConfig.ready may run twice in tests) a family's publisher."""
    _PUBLISHERS[family] = Publisher(family=family, label=label or family, publish=publish, link=link,
                                    version=version, about=about)


def unregister(family: str) -> None:
    """Forget a family's publisher (tests that register a family of their own)."""
    _PUBLISHERS.pop(family, None)


def publishers() -> list[Publisher]:
    """In the order the apps registered them (INSTALLED_APPS: CFPD first)."""
    return list(_PUBLISHERS.values())


def publisher(family: str) -> Publisher | None:
    return _PUBLISHERS.get(family)


def data_version() -> tuple:
    """Moves with every new answer, change to a code, new, finished or deleted run, and each
    family's own version."""
    from runs_app.models import Response, Run

    runs = Run.objects.aggregate(m=Max("pk"), f=Max("finished_at"))
    shared = (Response.objects.aggregate(m=Max("pk"))["m"], data_version_number.current(), runs["m"],
              str(runs["f"]))
    return shared + tuple((p.family, p.version() if p.version else None) for p in publishers())


def compute_headlines(version: str = "") -> dict:
    """The worker's side (`computed.KINDS`): every family's figures of every model. A
    family that fails is recorded with its error; the others are kept."""
    families = {}
    for item in publishers():
        started = time.perf_counter()
        try:
            figures = [figure.to_dict() for figure in item.publish(None)]
            error = ""
        except Exception as exc:  # noqa: BLE001 — shown on the profile beside that family
            figures, error = [], f"{type(exc).__name__}: {exc}"[:500]
        families[item.family] = {"figures": figures, "error": error,
                                 "seconds": round(time.perf_counter() - started, 3)}
    return {"families": families, "version": version}


def _key(version) -> str:
    return f"{KIND}:" + hashlib.sha256(repr(version).encode()).hexdigest()[:40]


@dataclass
class Headlines:
    """What a page shows: the newest computed figures (maybe of older data), or none yet."""

    state: str  # "current", "stale" (newer ones are being computed), "computing", "failed"
    waiting_key: str = ""
    error: str = ""
    computed_at: datetime | None = None
    requested_at: datetime | None = None
    families: dict = field(default_factory=dict)  # family -> {"figures": [Figure], "error", "seconds"}

    @property
    def ready(self) -> bool:
        return self.computed_at is not None

    def figures(self, family: str | None = None) -> list[Figure]:
        names = [family] if family else list(self.families)
        return [f for name in names for f in self.families.get(name, {}).get("figures", [])]

    def models(self) -> list[str]:
        return sorted({f.model for f in self.figures()})


def request_headlines(*, fresh: bool = False) -> Headlines:
    """The figures to show now, and those of the current data asked of the worker when
    they are not computed (`fresh`: asked again even when they are). With
    `CFPD_DASHBOARD_IN_WORKER` off (tests, a one-process setup) they are computed here."""
    version = data_version()
    key = _key(version)
    row = computed.request(key, KIND, {"version": repr(version)}, retry_after=timedelta(0) if fresh else None)
    if not getattr(settings, "CFPD_DASHBOARD_IN_WORKER", True) and row.status in (
            ComputedFigure.Status.PENDING, ComputedFigure.Status.RUNNING):
        try:
            computed.compute(row.pk)
        except Exception:  # noqa: BLE001 — on the row, and the page shows it
            pass
        row.refresh_from_db()
    shown = row if row.result is not None else (
        ComputedFigure.objects.filter(kind=KIND, status=ComputedFigure.Status.DONE).exclude(pk=row.pk)
        .order_by("-computed_at").first())
    # Older results are of no more use: the one shown and the one asked for stay.
    (ComputedFigure.objects.filter(kind=KIND).exclude(pk__in={row.pk, shown.pk if shown else row.pk})
     .exclude(status=ComputedFigure.Status.RUNNING).delete())
    waiting = row.status in (ComputedFigure.Status.PENDING, ComputedFigure.Status.RUNNING)
    failed = row.status == ComputedFigure.Status.FAILED
    if shown is None:
        return Headlines(state="failed" if failed else "computing", waiting_key="" if failed else row.key,
                         error=row.error, requested_at=row.requested_at)
    families = {name: {**part, "figures": [Figure.from_dict(f) for f in part["figures"]]}
                for name, part in shown.result["families"].items()}
    return Headlines(state="stale" if waiting or failed else "current", waiting_key=row.key if waiting else "",
                     error=row.error if failed else "", computed_at=shown.computed_at,
                     requested_at=row.requested_at, families=families)
