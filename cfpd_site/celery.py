"""The Celery application; settings come from Django's under the CELERY_ namespace."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
# Celery's Django fix-up runs Django's checks at a worker's start and ignores what they
# find (it never reads run_checks' result): all they did there was load every URL's views
# and every template library, with pandas, scipy and statsmodels, 1.3 s of a worker's 2.4 s
# start on a 2-core machine. `manage.py check`, `migrate` and the web server run them.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("cfpd_site")
# The default app of every thread of the process: the engine sends through `celery.current_app`
# (runs_app.queueing), so that no room imports the site (.importlinter: the-site-on-top).
app.set_default()
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
