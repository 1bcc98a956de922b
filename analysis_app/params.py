"""Checks every family's dashboard makes of its query parameters, beside the reading of
each value in `kit.params`."""

from __future__ import annotations

from kit.params import BadParameter, text
from runs_app.models import LLMModel, Run

ADJUSTMENTS = ("bh", "holm")  # a contrasts table's multiplicity correction: Benjamini–Hochberg or Holm


def adjustment(query) -> str:
    """The `adjust` parameter (bh by default): the correction of a page's contrasts."""
    value = text(query, "adjust", default="bh", max_length=64).lower() or "bh"
    if value not in ADJUSTMENTS:
        raise BadParameter("adjust", f"must be bh (Benjamini–Hochberg) or holm, not {value!r}")
    return value


def check_known(runs, models) -> None:
    """A run or model the filter names that does not exist is a BadParameter naming it
    ("run 999 does not exist"), not an empty page that says to launch a run. A model
    that exists but has no answers here is no error: its page is empty."""
    missing = sorted(set(runs) - set(Run.objects.filter(pk__in=runs).values_list("pk", flat=True))) if runs else []
    if missing:
        raise BadParameter("run", f"{', '.join(map(str, missing))} {'does' if len(missing) == 1 else 'do'} not exist")
    missing = (sorted(set(models) - set(LLMModel.objects.filter(name__in=models).values_list("name", flat=True)))
               if models else [])
    if missing:
        raise BadParameter("model", f"{', '.join(map(repr, missing))} {'is' if len(missing) == 1 else 'are'} "
                                    f"not registered")
