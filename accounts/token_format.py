"""API tokens as text: how one is made, how it is stored, how a presented one is read.
No Django here: plain values in and out.

A token is `cfpd_` and 40 random URL-safe characters (240 bits). Only its SHA-256 digest
is stored: a token has far more entropy than a password, so a fast hash is as safe as a
slow one (nobody can enumerate 2**240 candidates), and every request can check it in
microseconds. The first characters after the prefix are stored in clear as the token's
`prefix`, so that people can tell their tokens apart in the console without the secret.
"""

from __future__ import annotations

import hashlib
import secrets
import string

SCHEME = "cfpd_"
SECRET_CHARS = 40
PREFIX_CHARS = 8  # of the secret, shown in the console: 48 bits, enough to tell tokens apart
_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")


def new_token() -> str:
    """A fresh token: `cfpd_` + 40 URL-safe characters."""
    return SCHEME + secrets.token_urlsafe(30)  # 30 bytes -> exactly 40 base64url characters


def digest(token: str) -> str:
    """The stored form: the hex SHA-256 of the whole token."""
    return hashlib.sha256(token.encode()).hexdigest()


def prefix(token: str) -> str:
    """What the console shows of a token: `cfpd_` and its first 8 secret characters."""
    return token[:len(SCHEME) + PREFIX_CHARS]


def well_formed(token: str) -> bool:
    """Whether a presented string can be a token at all (checked before any query)."""
    body = token[len(SCHEME):]
    return token.startswith(SCHEME) and len(body) == SECRET_CHARS and set(body) <= _ALPHABET

