"""Actors that are not ISO 3166 states: organisations, disputed entities, territories."""

import pycountry

from django.db import transaction

from .models import Actor
from .naming import takes_definite_article
from .notation import ACTOR_CODE
from .table_format import TableError, read_records

COLUMNS = ["code", "name", "prompt_name", "takes_article", "kind"]
REQUIRED = ["code", "name", "kind"]
NAME_MAX = 120  # Actor.name and Actor.prompt_name


class ActorFileError(ValueError):
    """Every problem of the file, each `line N: reason` or `file: reason`."""

    def __init__(self, problems: str | list[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


def import_actors(text: str) -> tuple[int, int]:
    """Upsert actors from CSV; atomic, every bad line reported. ISO states are not touched."""
    try:
        columns, records = read_records(text)
    except TableError as exc:
        raise ActorFileError(str(exc)) from None
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ActorFileError(f"line 1: missing column(s) {', '.join(missing)}; columns are {', '.join(COLUMNS)}")
    if not records:
        raise ActorFileError("file: has no actors after the header")
    kinds = {k for k, _ in Actor.Kind.choices} - {Actor.Kind.STATE}
    rows, problems, seen = [], [], {}
    for record in records:
        line, cells = record.line, {column: value.strip() for column, value in record.cells.items()}
        shape = record.shape_problem(columns, REQUIRED)
        if shape:
            problems.append(f"line {line}: {shape}")
            continue
        code, kind = cells["code"].upper(), cells["kind"]
        if not ACTOR_CODE.match(code):
            problems.append(f"line {line}: code {code!r} must be 2-12 capitals, digits or _")
        elif pycountry.countries.get(alpha_2=code) is not None:
            problems.append(f"line {line}: {code!r} is the ISO 3166 code of "
                            f"{pycountry.countries.get(alpha_2=code).name}; choose another code")
        elif code in seen:
            problems.append(f"line {line}: code {code!r} is also on line {seen[code]}; give each actor one line")
        seen.setdefault(code, line)
        if kind not in kinds:
            problems.append(f"line {line}: kind {kind!r} must be one of {', '.join(sorted(kinds))}")
        for column in ("name", "prompt_name"):
            if len(cells.get(column, "")) > NAME_MAX:
                problems.append(f"line {line}: {column} is {len(cells[column])} characters long; "
                                f"use at most {NAME_MAX}")
        if not cells["name"]:
            problems.append(f"line {line}: name is empty; write the actor's official name")
        rows.append((code, cells, kind))
    if problems:
        raise ActorFileError(problems)
    created = updated = 0
    with transaction.atomic():
        for code, cells, kind in rows:
            prompt_name = cells.get("prompt_name") or cells["name"]
            article = cells.get("takes_article", "").lower()
            _, was_created = Actor.objects.update_or_create(code=code, defaults={
                "name": cells["name"], "prompt_name": prompt_name, "kind": kind,
                "takes_article": article in ("1", "true", "yes") if article else takes_definite_article(prompt_name),
            })
            created += was_created
            updated += not was_created
    return created, updated
