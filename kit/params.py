"""Query parameters read one way in every view and API: each helper returns the value or
raises `BadParameter` naming the field and the reason, which a view answers with a 400
(a page for people, JSON for the API). Pure: no Django import; `query` is anything with
`get` and `getlist` (a QueryDict, DRF's `query_params`).

Whole numbers are plain ASCII digits with an optional sign (`int()` alone would take
`١٢`, ` 12 ` and `1_000`), and must fit the databases' 64-bit integers, so a huge id
is a 400 rather than an OverflowError deep in a query. Text is capped in length and may
not hold a NUL character (PostgreSQL refuses it in a query).
"""

from __future__ import annotations

import re

MAX_INT = 2**63 - 1  # bigint in PostgreSQL and SQLite's INTEGER
MAX_TEXT = 200
MAX_VALUES = 200  # values of one repeated parameter (run=1&run=2...)
_WHOLE = re.compile(r"[+-]?[0-9]{1,30}")


class BadParameter(ValueError):
    """A query parameter the view cannot use: `field` names it, `reason` says why."""

    def __init__(self, field: str, reason: str):
        self.field, self.reason = field, reason
        super().__init__(f"{field} {reason}")  # "iterations must be between 100 and 10000, got 5"


def _shown(value: str, limit: int = 40) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "…")


def to_int(value: str, field: str, *, minimum: int | None = None, maximum: int = MAX_INT) -> int:
    """One whole number between `minimum` and `maximum` (both included)."""
    text = value.strip()
    if text == "":
        raise BadParameter(field, "must be a whole number, and it was empty")
    if not _WHOLE.fullmatch(text):
        raise BadParameter(field, f"must be a whole number, got {_shown(value)}")
    number = int(text)
    if (minimum is not None and number < minimum) or number > maximum:
        bounds = f"between {minimum} and {maximum}" if minimum is not None else f"at most {maximum}"
        raise BadParameter(field, f"must be {bounds}, got {_shown(text)}")
    return number


def integer(query, field: str, *, default: int | None = None, minimum: int | None = None,
            maximum: int = MAX_INT) -> int | None:
    """The parameter as a whole number; `default` when it is absent (an empty box is an error)."""
    value = query.get(field)
    if value is None:
        return default
    return to_int(value, field, minimum=minimum, maximum=maximum)


def optional_integer(query, field: str, *, minimum: int | None = None, maximum: int = MAX_INT) -> int | None:
    """A whole number, or None when the parameter is absent or empty (an "any" choice in a filter)."""
    value = query.get(field)
    if value is None or value.strip() == "":
        return None
    return to_int(value, field, minimum=minimum, maximum=maximum)


def integers(query, field: str, *, minimum: int | None = 1, maximum: int = MAX_INT) -> tuple[int, ...]:
    """Every value of a repeated parameter as whole numbers, sorted, without repeats; empty values skipped."""
    values = [v for v in _values(query, field) if v.strip() != ""]
    return tuple(sorted({to_int(v, field, minimum=minimum, maximum=maximum) for v in values}))


def text(query, field: str, *, default: str = "", max_length: int = MAX_TEXT) -> str:
    """The parameter as text, stripped; `default` when absent."""
    value = query.get(field)
    return default if value is None else _checked_text(value, field, max_length)


def texts(query, field: str, *, max_length: int = MAX_TEXT) -> tuple[str, ...]:
    """Every non-blank value of a repeated parameter, stripped, sorted, without repeats."""
    return tuple(sorted({t for v in _values(query, field) if (t := _checked_text(v, field, max_length))}))


def choices(query, field: str, allowed: tuple[str, ...], *, upper_letters: bool = False) -> tuple[str, ...]:
    """Every value of a repeated parameter, each one of `allowed` (a 400 naming the others);
    with `upper_letters` a one-letter value is read in capitals (code=b is B)."""
    values = texts(query, field)
    if upper_letters:
        values = tuple(v.upper() if len(v) == 1 else v for v in values)
    wrong = [v for v in values if v not in allowed]
    if wrong:
        raise BadParameter(field, f"must be one of {', '.join(allowed)}; got {', '.join(map(repr, wrong))}")
    return values


def choice(query, field: str, allowed: tuple[str, ...], *, default: str = "") -> str:
    """One parameter that must be one of `allowed`; `default` when absent or blank."""
    value = text(query, field)
    if value and value not in allowed:
        raise BadParameter(field, f"must be one of {', '.join(allowed)}; got {value!r}")
    return value or default


def flag(query, field: str) -> bool:
    """A checkbox: on for 1, on, true, yes; off when absent or anything else."""
    return (query.get(field) or "").strip().lower() in ("1", "on", "true", "yes")


def _checked_text(value: str, field: str, max_length: int) -> str:
    if "\x00" in value:
        raise BadParameter(field, "must not contain a NUL character")
    if len(value) > max_length:
        raise BadParameter(field, f"is {len(value)} characters long, at most {max_length} allowed")
    return value.strip()


def _values(query, field: str) -> list[str]:
    values = query.getlist(field)
    if len(values) > MAX_VALUES:
        raise BadParameter(field, f"given {len(values)} times, at most {MAX_VALUES} allowed")
    return values
