"""Actors that are not ISO 3166 states: organisations, disputed entities, territories."""

import csv
import io

import pycountry

from django.db import transaction

from .models import Actor
from .naming import takes_definite_article
from .notation import ACTOR_CODE

COLUMNS = ["code", "name", "prompt_name", "takes_article", "kind"]


class ActorFileError(ValueError):
    pass


def import_actors(text: str) -> tuple[int, int]:
    """Upsert actors from CSV; atomic, every bad line reported. ISO states are not touched."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in ("code", "name", "kind") if c not in (reader.fieldnames or [])]
    if missing:
        raise ActorFileError(f"line 1: missing column(s) {', '.join(missing)}; columns are {', '.join(COLUMNS)}")
    kinds = {k for k, _ in Actor.Kind.choices} - {Actor.Kind.STATE}
    rows, problems = [], []
    for row in reader:
        line = reader.line_num
        code = (row.get("code") or "").strip().upper()
        kind = (row.get("kind") or "").strip()
        if not ACTOR_CODE.match(code):
            problems.append(f"line {line}: code {code!r} must be 2-12 capitals, digits or _")
        elif pycountry.countries.get(alpha_2=code) is not None:
            problems.append(f"line {line}: {code!r} is the ISO 3166 code of "
                            f"{pycountry.countries.get(alpha_2=code).name}; choose another code")
        if kind not in kinds:
            problems.append(f"line {line}: kind {kind!r} must be one of {', '.join(sorted(kinds))}")
        rows.append((code, row, kind))
    if problems:
        raise ActorFileError("; ".join(problems))
    created = updated = 0
    with transaction.atomic():
        for code, row, kind in rows:
            prompt_name = (row.get("prompt_name") or "").strip() or row["name"].strip()
            article = (row.get("takes_article") or "").strip().lower()
            _, was_created = Actor.objects.update_or_create(code=code, defaults={
                "name": row["name"].strip(), "prompt_name": prompt_name, "kind": kind,
                "takes_article": article in ("1", "true", "yes") if article else takes_definite_article(prompt_name),
            })
            created += was_created
            updated += not was_created
    return created, updated
