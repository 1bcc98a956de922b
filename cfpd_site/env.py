"""Small readers for settings that fail loudly on bad values (no Django imports)."""

import os
from urllib.parse import parse_qs, unquote, urlsplit


class ConfigError(ValueError):
    """An environment variable holds a value the settings cannot use."""


TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def envstr(name, default=None):
    return os.environ.get(name, default)


def envbool(name, default):
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off")


def envint(name, default):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None


def envlist(name, default):
    """Comma-separated list; blanks dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def secret(name, default=None):
    """A secret from NAME, or from the file named by NAME_FILE (Docker secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read().strip()
        except OSError as exc:
            raise ConfigError(f"{name}_FILE={path!r} cannot be read: {exc.strerror}") from None
    return os.environ.get(name, default)


def storage_backend(url):
    """STORAGES["default"] for CFPD_STORAGE_URL: the database (kit.file_store.DatabaseStorage)
    when it is unset, empty or `db`; S3-compatible object storage for
    `s3://KEY:SECRET@HOST[:PORT]/BUCKET[/PREFIX][?region=REGION]` (HTTPS) or `s3+http://...`
    (plain HTTP, for a server on the same network). Anything else is a ConfigError."""
    if url is None or url.strip() in ("", "db"):
        return {"BACKEND": "kit.file_store.DatabaseStorage"}
    parts = urlsplit(url.strip())
    shape = "s3://KEY:SECRET@HOST[:PORT]/BUCKET[/PREFIX][?region=REGION] (or s3+http://... without TLS), or db"
    if parts.scheme not in ("s3", "s3+http"):
        raise ConfigError(f"CFPD_STORAGE_URL has the scheme {parts.scheme!r}: use {shape}")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"CFPD_STORAGE_URL has a port that is not a number: use {shape}") from None
    bucket, _, prefix = parts.path.lstrip("/").partition("/")
    if not (parts.username and parts.password and parts.hostname and bucket):
        raise ConfigError(f"CFPD_STORAGE_URL needs a key, a secret, a host and a bucket: use {shape}")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    unknown = set(query) - {"region"}
    if unknown:
        raise ConfigError(f"CFPD_STORAGE_URL has options it does not know: {', '.join(sorted(unknown))} (only region)")
    scheme = "http" if parts.scheme == "s3+http" else "https"
    return {"BACKEND": "kit.file_store.ObjectStorage", "OPTIONS": {
        "access_key": unquote(parts.username), "secret_key": unquote(parts.password), "bucket_name": bucket,
        "location": prefix.strip("/"), "region_name": query.get("region", "us-east-1"),
        "endpoint_url": f"{scheme}://{parts.hostname}" + (f":{port}" if port else ""),
        # Path-style addresses work with every S3-compatible server; virtual hosts need DNS per bucket.
        "addressing_style": "path", "signature_version": "s3v4", "file_overwrite": True, "default_acl": None}}
