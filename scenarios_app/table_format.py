"""The scenario table of paper 000 (Table 3) as CSV: reading rows into scenario specs,
with every inference shown, and writing specs back. Pure: no Django.

Columns: Domain, Sub Action Comparison, Scenario, Response Option 1, Response Option 2,
Response Option 3 (`NA` when absent), Actor Set; optional: Key, Option 1..3 Category,
Qualified Actor (`A` or `B`).
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field

# The file-level reading every importer shares lives in benchmarks_app; table_format's
# callers keep importing TableError, decode_text and read_records from here.
from benchmarks_app.text_files import Record, TableError, decode_text, read_records  # noqa: F401
from kit.csv_safety import SafeDictWriter, restore

from .naming import actor_slots
from .notation import ActorSetText, NotationError, format_pairs, parse_actor_set
from .taxonomy import Taxonomy
from .validation import OptionSpec, Problem, ScenarioSpec

REQUIRED_COLUMNS = [
    "Domain", "Sub Action Comparison", "Scenario",
    "Response Option 1", "Response Option 2", "Response Option 3", "Actor Set",
]
OPTIONAL_COLUMNS = ["Key", "Option 1 Category", "Option 2 Category", "Option 3 Category", "Qualified Actor"]
EXPORT_COLUMNS = ["Key"] + REQUIRED_COLUMNS + OPTIONAL_COLUMNS[1:]
MISSING = {"", "NA", "N/A"}


@dataclass
class TableRow:
    """One CSV row read into a spec; `actor_set` still holds any set expressions."""

    line: int
    spec: ScenarioSpec
    actor_set: ActorSetText
    inferences: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


_CLOSING_SENTENCE = re.compile(r"[^.?!]*\?\s*$")


def infer_qualified_actor(template: str) -> tuple[str | None, str]:
    """Which actor the closing question advises: `How should [Actor B] respond?` -> B.

    Reads the last sentence that is a question; if it names exactly one actor that
    actor is qualified. Returns (None, reason) when the question names none or both.
    """
    match = _CLOSING_SENTENCE.search(template.strip())
    if not match:
        return None, "the scenario does not end with a question"
    slots = actor_slots(match.group(0))
    if len(slots) == 1:
        which = slots.pop()
        return which, f"closing question {match.group(0).strip()!r} advises [Actor {which}]"
    if not slots:
        return None, f"closing question {match.group(0).strip()!r} names no actor"
    return None, f"closing question {match.group(0).strip()!r} names both actors"


def derived_key(comparison: str | None, template: str) -> str:
    """A key for a row without one: stable for the same comparison and text."""
    digest = hashlib.sha1(template.strip().encode("utf-8")).hexdigest()[:8]
    return f"{comparison or 'scenario'}-{digest}"


def _cell(row: dict, column: str) -> str:
    # `restore`: a cell the exporter quoted against spreadsheet formulas reads back as written.
    return restore((row.get(column) or "").strip())


def read_row(line: int, row: dict, taxonomy: Taxonomy) -> TableRow:
    problems: list[Problem] = []
    inferences: list[str] = []

    domain = taxonomy.find_domain(_cell(row, "Domain"))
    if domain is None:
        problems.append(Problem("Domain", f"{_cell(row, 'Domain')!r} is not a domain; use one of "
                                + ", ".join(taxonomy.domains.values())))
    comparison = taxonomy.find_comparison(_cell(row, "Sub Action Comparison"))
    if comparison is None:
        problems.append(Problem("Sub Action Comparison",
                                f"{_cell(row, 'Sub Action Comparison')!r} is not a known codified comparison"))

    texts = [_cell(row, f"Response Option {n}") for n in (1, 2, 3)]
    texts = [t for t in texts[:2]] + ([texts[2]] if texts[2] not in MISSING else [])
    explicit = [_cell(row, f"Option {n} Category") for n in (1, 2, 3)][: len(texts)]
    categories: list[str | None]
    if any(explicit):
        categories = []
        for n, name in enumerate(explicit, start=1):
            slug = taxonomy.find_category(name) if name else None
            if name and slug is None:
                problems.append(Problem(f"Option {n} Category", f"{name!r} is not an action category"))
            categories.append(slug)
    elif comparison is not None and len(taxonomy.comparisons[comparison].categories) == len(texts):
        categories = list(taxonomy.comparisons[comparison].categories)
        inferences.append("categories in the comparison's order: " + ", ".join(
            f"option {n} = {taxonomy.categories[slug].name}" for n, slug in enumerate(categories, start=1)))
    else:
        categories = [None] * len(texts)
        if comparison is not None:
            expected = len(taxonomy.comparisons[comparison].categories)
            problems.append(Problem(
                "Response Option 3",
                f"'{taxonomy.comparisons[comparison].name}' compares {expected} options but the row has {len(texts)}; "
                + ("write NA for option 3" if expected == 2 else "add the third option")
                + " or choose another comparison"))

    template = _cell(row, "Scenario")
    qualified = _cell(row, "Qualified Actor").upper() or None
    if qualified is None:
        qualified, reason = infer_qualified_actor(template)
        if qualified:
            inferences.append(f"qualified actor {qualified}: {reason}")
        else:
            problems.append(Problem("Qualified Actor",
                                    f"cannot infer the qualified actor ({reason}); add a Qualified Actor column (A or B)"))

    try:
        actor_set = parse_actor_set(_cell(row, "Actor Set"))
    except NotationError as exc:
        problems.append(Problem("Actor Set", str(exc)))
        actor_set = ActorSetText()

    key = _cell(row, "Key") or derived_key(comparison, template)
    spec = ScenarioSpec(
        key=key,
        domain=domain,
        comparison=comparison,
        template=template,
        options=[OptionSpec(text, category) for text, category in zip(texts, categories)],
        qualified_actor=qualified,
        dyads=list(actor_set.pairs),
    )
    return TableRow(line=line, spec=spec, actor_set=actor_set, inferences=inferences, problems=problems)


def read_table(text: str, taxonomy: Taxonomy) -> list[TableRow]:
    """Every data row of a CSV text; raises TableError when the file is not CSV or
    required columns are missing."""
    columns, records = read_records(text)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise TableError("line 1: missing column(s) " + ", ".join(missing)
                         + "; the header must have " + ", ".join(REQUIRED_COLUMNS))
    rows = []
    for record in records:
        row = read_row(record.line, record.cells, taxonomy)
        shape = record.shape_problem(columns, REQUIRED_COLUMNS)
        if shape:
            row.problems.insert(0, Problem("row", shape))
        rows.append(row)
    return rows


def write_table(specs: list[ScenarioSpec], taxonomy: Taxonomy) -> str:
    """Specs as CSV with every column, so that reading it back gives the same specs."""
    out = io.StringIO(newline="")
    # Neutralised against spreadsheet formulas; read_table restores the cells.
    writer = SafeDictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for spec in specs:
        record = {
            "Key": spec.key,
            "Domain": taxonomy.domains[spec.domain],
            "Sub Action Comparison": taxonomy.comparisons[spec.comparison].name,
            "Scenario": spec.template,
            "Actor Set": format_pairs(spec.dyads),
            "Qualified Actor": spec.qualified_actor,
        }
        for n in (1, 2, 3):
            option = spec.options[n - 1] if n <= len(spec.options) else None
            record[f"Response Option {n}"] = option.text if option else "NA"
            record[f"Option {n} Category"] = taxonomy.categories[option.category].name if option else ""
        writer.writerow(record)
    return out.getvalue()
