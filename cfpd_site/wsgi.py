"""
WSGI config for cfpd_site project.

It exposes the WSGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/5.2/howto/deployment/wsgi/
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'cfpd_site.settings')

application = get_wsgi_application()

if os.environ.get("CFPD_WARM_START") in ("1", "llm"):
    # Loaded once before gunicorn forks its workers (cfpd_site/gunicorn_conf.py): what a request
    # would otherwise import or compile on its first call, for seconds, is done here.
    from cfpd_site import warm_start

    warm_start.warm_up(os.environ["CFPD_WARM_START"])
