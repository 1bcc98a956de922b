"""Start-up check of the free-form family's settings (`manage.py check`, every command)."""

from django.conf import settings
from django.core.checks import Error, register

from . import scorers


@register()
def inconsistency_scorer(app_configs, **kwargs):
    problem = scorers.name_problem(settings.CFPD_INCONSISTENCY_SCORER)
    if problem is None:
        return []
    return [Error(f"CFPD_INCONSISTENCY_SCORER: {problem}",
                  hint=f"set it to one of {', '.join(n for n in scorers.BUILT_IN if n != scorers.KENDALL)}, "
                       "or a scorer registered with score_inconsistency --scorer NAME --scorer-model PATH",
                  id="crisis.E001")]
