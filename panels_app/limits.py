"""Rate limits of the respondents' pages (issue 40, safety of the only public pages): at most
PANEL_RATE_PER_LINK requests a minute through one link and PANEL_RATE_PER_ADDRESS from one
address, counted in Django's cache (fixed one-minute windows; Redis when there is one, so every
web process counts together). The cache keys hold a keyed hash of the address and of the token,
never either in clear, and nothing of it is written to the database."""

from __future__ import annotations

import hashlib
import hmac
import time

from django.conf import settings
from django.core.cache import cache

from accounts.signin import client_ip

WINDOW = 60  # seconds


def _digest(kind: str, value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()[:32]


def _count(key: str, now: float) -> int:
    """This window's requests under `key`, this one included."""
    full = f"panels:rate:{key}:{int(now // WINDOW)}"
    cache.add(full, 0, WINDOW * 2)
    try:
        return cache.incr(full)
    except ValueError:  # expired between add and incr
        cache.set(full, 1, WINDOW * 2)
        return 1


def _redis_client():
    """Django's Redis cache's client, or None for another cache (each web process's memory in
    the embedded set-up)."""
    backend = getattr(cache, "_cache", None)
    get_client = getattr(backend, "get_client", None)
    return get_client(None, write=True) if get_client is not None else None


def _counts(keys: list[str], now: float) -> list[int]:
    """Each key's requests this window, this one included. With Redis: INCR and EXPIRE of
    every key in one pipeline, one round trip (through Django's cache API a count is three:
    ADD, then EXISTS and INCR, so six a request; under fifty respondents at once on a busy
    machine each was a wait, bench/panel_load.py). Django's Redis cache stores whole numbers
    unpickled, so the counters stay readable through `cache.get`."""
    client = _redis_client()
    window = int(now // WINDOW)
    if client is None:
        return [_count(key, now) for key in keys]
    pipe = client.pipeline(transaction=False)
    for key in keys:
        full = cache.make_and_validate_key(f"panels:rate:{key}:{window}")
        pipe.incr(full)
        pipe.expire(full, WINDOW * 2)
    return [int(found) for found in pipe.execute()[::2]]


def over_limit(request, token: str, now: float | None = None) -> int | None:
    """Seconds until the window ends when the link or the address has sent more than its
    limit this minute (the view answers 429 with Retry-After), else None. Both are counted on
    every request, so a flood through many links from one address is stopped too."""
    now = time.time() if now is None else now
    by_link, by_address = _counts(["link:" + _digest("link", token),
                                   "address:" + _digest("address", client_ip(request))], now)
    if by_link > settings.PANEL_RATE_PER_LINK or by_address > settings.PANEL_RATE_PER_ADDRESS:
        return max(1, WINDOW - int(now % WINDOW))
    return None
