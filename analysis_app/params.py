"""Checks every family's dashboard makes of its query parameters, beside the reading of
each value in `cfpd_site.params`."""

from __future__ import annotations

from cfpd_site.params import BadParameter
from runs_app.models import LLMModel, Run


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
