# CFPD Workbench: one image for the web server and the Celery worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# collectstatic needs settings to load; the key is a build-time placeholder only.
RUN SECRET_KEY=build-only-placeholder python manage.py collectstatic --noinput

RUN useradd --create-home --uid 1000 cfpd && mkdir -p /app/var && chown -R cfpd /app/var
USER cfpd
EXPOSE 8000
CMD ["gunicorn", "cfpd_site.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
