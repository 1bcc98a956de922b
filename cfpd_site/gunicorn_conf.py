"""gunicorn's settings for the web container (`gunicorn cfpd_site.wsgi:application -c
cfpd_site/gunicorn_conf.py`): the application is loaded once in the master before the
workers are forked (`preload_app`), with what the requests need imported then
(`CFPD_WARM_START`, read by `cfpd_site.wsgi`, done by `cfpd_site.warm_start`: LiteLLM and its
OpenAI client, which a launch's plan and the models' key check use; the URLconf with every
view's module, the templates, plotly's chart parts). A fresh worker, after a start or a
restart, answers its first request without importing for seconds first — on a busy machine
the LiteLLM import alone outlasted gunicorn's 30 s timeout and the user got a 500, and the
URLconf's made every page's first visit take 2-3.5 s at load 2 (issue 38)."""

import os

os.environ.setdefault("CFPD_WARM_START", "1")

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
preload_app = True
accesslog = "-"
