"""Secrets cut out of text before it is stored or shown: keys, bearer tokens, key=value
credentials, long hex or base64-like strings. Pure: no Django.

Providers echo what they were sent in their errors (a wrong key, a URL with ?key=...);
an error message is stored on the response and shown on pages and in the API.
"""

from __future__ import annotations

import re

_SECRETS = [
    (re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{6,}", re.IGNORECASE), r"\1 [redacted]"),
    (re.compile(r"""((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|"""
                r"""key|authorization|credential)s?["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\b|Basic\b|Token\b)"""
                r"""(?=[^\s"',;&}]*[A-Za-z])[^\s"',;&}]{6,}""",
                re.IGNORECASE), r"\1[redacted]"),
    (re.compile(r"\b(?:sk|pk|rk|xai|gsk|hf|ghp|gho|github_pat|glpat)[-_][A-Za-z0-9_\-]{6,}"), "[redacted]"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "[redacted]"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), "[redacted]"),
    (re.compile(r"\b[0-9a-fA-F]{32,}\b"), "[redacted]"),
]
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{40,}={0,2}")


def _maybe_secret(match: re.Match) -> str:
    """A long run of base64-ish characters is a secret when it mixes upper and lower case
    letters and digits and is neither a path nor a name of words (model names and URL
    paths have several slashes or hyphens)."""
    token = match.group(0)
    mixed = all(re.search(chars, token) for chars in (r"[a-z]", r"[A-Z]", r"\d"))
    wordy = token.count("-") + token.count("_") > 4  # a-long-kebab-or_snake_name
    return "[redacted]" if mixed and not wordy and token.count("/") <= 2 else token


def redact(text: str) -> str:
    """`text` with keys, bearer tokens, key=value credentials and long hex or base64-like
    secrets replaced by [redacted]."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return _LONG_TOKEN.sub(_maybe_secret, text)
