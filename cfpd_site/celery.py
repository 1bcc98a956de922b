"""The Celery application; settings come from Django's under the CELERY_ namespace."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")

app = Celery("cfpd_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
