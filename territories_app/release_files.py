"""Reading one file of a BorderLines release at a time, every problem a Flaw with its
file and line (or JSON key). Nothing here raises on bad input. Used by release.read_release."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

from .question_template import template_problem
from .release_model import (
    COLUMNS, COUNTRIES, COUNTRY_FIELDS, LEGACY_COUNTRY_FIELDS, PROMPTS_DIR, TABLE, TEMPLATE_HEADER, TEMPLATES,
    TERMS_DIR, UNKNOWN, Country, Flaw, Territory, line_inds_file, terms_file,
)


def _shown(text: str, limit: int = 80) -> str:
    """A bad cell or line as a report shows it: quoted, cut to `limit` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" … ({len(text):,} characters)"


class JsonProblem(ValueError):
    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.lineno, self.msg = line, message


def decode_json(text: str, **options):
    """json.loads, with every way it can fail on untrusted text as one JsonProblem (line,
    message): invalid JSON, nesting too deep for the parser, a number too long to read."""
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as error:
        raise JsonProblem(error.lineno, error.msg) from None
    except RecursionError:
        raise JsonProblem(None, "nested too deeply") from None
    except ValueError as error:  # e.g. an integer of thousands of digits
        raise JsonProblem(None, str(error).split(";")[0]) from None


class Reader:
    """One pass over a release directory; collects flaws as it goes."""

    def __init__(self, root: Path):
        self.root = root
        self.flaws: list[Flaw] = []

    def flaw(self, file, line_or_key, reason, territory=None, language=None):
        self.flaws.append(Flaw(file, line_or_key, reason, territory, language))

    def text(self, relative: str, language: str | None = None, required: bool = True) -> str | None:
        path = self.root / relative
        if not path.is_file():
            if required:
                self.flaw(relative, None, "missing file" if not path.exists() else "not a file", language=language)
            return None
        try:
            data = path.read_bytes()
        except OSError as error:
            self.flaw(relative, None, f"unreadable ({error.strerror})", language=language)
            return None
        if b"\x00" in data:
            line = data[:data.index(b"\x00")].count(b"\n") + 1
            self.flaw(relative, line, "binary file (a NUL byte), not text", language=language)
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            self.flaw(relative, line, f"not UTF-8 text (byte 0x{data[error.start]:02x}); save it as UTF-8",
                      language=language)
            return None
        return text.removeprefix("\ufeff")


def text_lines(text: str) -> list[str]:
    """Lines split on \\n only: str.splitlines would also split on U+2028 and friends,
    which a translated query may hold."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _number(raw) -> int | float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return raw if math.isfinite(raw) else None
    if isinstance(raw, str) and re.fullmatch(r"-?\d+", raw.strip()):
        return int(raw)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def read_table(reader: Reader) -> list[Territory]:
    text = reader.text(TABLE)
    if text is None:
        return []
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip() for name in next(rows)]
    except StopIteration:
        reader.flaw(TABLE, None, f"empty file; expected the header {','.join(COLUMNS)}")
        return []
    except csv.Error as error:
        reader.flaw(TABLE, 1, f"malformed header ({error})")
        return []
    for column in COLUMNS:
        if column not in header:
            reader.flaw(TABLE, 1, f"missing column {column}")
    if "Territory" not in header or "Claimants" not in header:
        return []
    position = {name: header.index(name) for name in COLUMNS if name in header}
    territories: list[Territory] = []
    first_line: dict[str, int] = {}
    end = rows.line_num
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as error:
            reader.flaw(TABLE, end + 1, f"malformed row ({error}); the rest of the table is not read")
            break
        line, end = end + 1, rows.line_num
        if not any(cell.strip() for cell in row):
            reader.flaw(TABLE, line, "empty row (skipped: it takes no row index)")
            continue
        cell = {name: row[i].strip() if i < len(row) else "" for name, i in position.items()}
        name = cell["Territory"]
        territories.append(_territory(reader, len(territories), line, row, header, cell))
        if name in first_line:
            reader.flaw(TABLE, line, f"territory {name!r} is already on line {first_line[name]}", name)
        first_line.setdefault(name, line)
    return territories


def _territory(reader: Reader, index: int, line: int, row: list[str], header: list[str],
               cell: dict[str, str]) -> Territory:
    name = cell["Territory"]

    def flaw(reason):
        reader.flaw(TABLE, line, reason, name)

    if len(row) != len(header):
        flaw(f"row has {len(row)} fields, the header {len(header)}")
    if not name:
        flaw("no territory name")
    raw_claimants = cell["Claimants"]
    parts = [part.strip() for part in raw_claimants.split(";")] if raw_claimants else []
    if any(not part for part in parts):
        flaw(f"empty claimant name in {raw_claimants!r}")
    claimants = tuple(part for part in parts if part)
    for claimant in {c for c in claimants if claimants.count(c) > 1}:
        flaw(f"claimant {claimant!r} is listed twice")
    if len(set(claimants)) < 2:
        flaw(f"{len(set(claimants))} claimant(s) in {raw_claimants!r}; a dispute has at least two, ';'-separated")
    raw_controller = cell.get("Controller", UNKNOWN)
    controller = None if raw_controller.lower() == UNKNOWN.lower() else raw_controller
    if not raw_controller:
        flaw(f"no controller; write a claimant's name or {UNKNOWN}")
        controller = None
    elif controller is not None and controller not in claimants:
        flaw(f"controller {controller!r} is not among the claimants ({', '.join(claimants)})")
    raw_population = cell.get("Population", "")
    population = _number(raw_population)
    if "Population" in cell and population is None:
        flaw(f"population {raw_population!r} is not a number")
    return Territory(index, name, claimants, controller, cell.get("Region", ""), population,
                     cell.get("Query", ""), cell.get("QueryID", ""), line)


def read_countries(reader: Reader) -> dict[str, Country]:
    """Countries by name ({} when the file cannot be read)."""
    text = reader.text(COUNTRIES)
    if text is None:
        return {}
    pairs_seen: list[list[tuple[str, object]]] = []

    def keep_pairs(pairs):
        pairs_seen.append(pairs)
        return dict(pairs)

    try:
        data = decode_json(text, object_pairs_hook=keep_pairs)
    except JsonProblem as error:
        reader.flaw(COUNTRIES, error.lineno, f"not valid JSON ({error.msg})")
        return {}
    if not isinstance(data, dict):
        reader.flaw(COUNTRIES, None, "not a JSON object of countries")
        return {}
    top = pairs_seen[-1]  # the outermost object is closed last
    names = [name for name, _ in top]
    for name in {n for n in names if names.count(n) > 1}:
        reader.flaw(COUNTRIES, name, "country listed twice; the last entry is read")
    countries = {}
    for name, info in data.items():
        if not isinstance(info, dict):
            reader.flaw(COUNTRIES, name, f"expected an object with {', '.join(COUNTRY_FIELDS)}")
            continue
        info = {LEGACY_COUNTRY_FIELDS.get(key, key): value for key, value in info.items()}
        missing = [f for f in COUNTRY_FIELDS if f not in info]
        if missing:
            reader.flaw(COUNTRIES, name, f"missing {', '.join(missing)}")
        texts = {}
        for key in COUNTRY_FIELDS[:4]:
            value = info.get(key, "")
            if not isinstance(value, str):
                reader.flaw(COUNTRIES, name, f"{key} {value!r} is not text")
                value = ""
            texts[key] = value
        if "Lang_Code" in info and not texts["Lang_Code"]:
            reader.flaw(COUNTRIES, name, "empty Lang_Code: the country's language is unknown")
        population = _number(info.get("Population"))
        if "Population" in info and population is None:
            reader.flaw(COUNTRIES, name, f"Population {info['Population']!r} is not a number")
        countries[name] = Country(name, texts["Lang_Code"], texts["Lang_Name"], texts["Lang_Name_Native"],
                                  texts["Religion"], population)
    return countries


def read_templates(reader: Reader) -> tuple[dict[str, str], bool]:
    text = reader.text(TEMPLATES)
    if text is None:
        return {}, False
    lines = text_lines(text)
    if not lines or lines[0].split("\t") != TEMPLATE_HEADER:
        reader.flaw(TEMPLATES, 1, "missing header code<TAB>template")
        return {}, False
    templates: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0].strip():
            reader.flaw(TEMPLATES, number, f"expected code<TAB>template, got {_shown(line)}")
            continue
        code, template = fields[0].strip(), fields[1]
        if code in first_line:
            reader.flaw(TEMPLATES, number, f"second template for {code} (first on line {first_line[code]})",
                        language=code)
            continue
        first_line[code] = number
        problem = template_problem(template)
        if problem:
            reader.flaw(TEMPLATES, number, problem, language=code)
        templates[code] = template
    return templates, True


def read_terms(reader: Reader) -> dict[str, dict[str, str]]:
    terms = {}
    folder = reader.root / TERMS_DIR
    for path in sorted(folder.glob("terms_gt.*.json")) if folder.is_dir() else []:
        language = path.name[len("terms_gt."):-len(".json")]
        relative = terms_file(language)
        text = reader.text(relative)
        if text is None:
            continue
        try:
            data = decode_json(text)
        except JsonProblem as error:
            reader.flaw(relative, error.lineno, f"not valid JSON ({error.msg})")
            continue
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            reader.flaw(relative, None, "expected a JSON object of English term -> translated term")
            continue
        terms[language] = data
    return terms


def json_lines(reader: Reader, relative: str, lines: list[str], language: str | None,
               territory_of=lambda i: None) -> list[tuple[str, ...] | None]:
    """Each line a JSON list of names (None where it is not one); territory_of(i) names the
    territory line i+1 is for, so that a bad line leaves out that question only."""
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            value = decode_json(line)
        except JsonProblem:
            value = None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            reader.flaw(relative, number, f"expected a JSON list of names, got {_shown(line)}", territory_of(number - 1),
                        language)
            out.append(None)
        else:
            out.append(tuple(value))
    return out


def read_line_inds(reader: Reader, language: str) -> tuple[list[tuple[int | None, int | str]], bool]:
    """(row index or None, where it is: line or JSON key) per query, and whether the file was read."""
    relative = line_inds_file(language)
    text = reader.text(relative, language)
    if text is None:
        return [], False
    if text.lstrip().startswith("["):
        try:
            values = decode_json(text)
        except JsonProblem as error:
            reader.flaw(relative, error.lineno, f"not valid JSON ({error.msg})", language=language)
            return [], False
        places: list[int | str] = [str(i) for i in range(len(values))] if isinstance(values, list) else []
        if not isinstance(values, list):
            reader.flaw(relative, None, "expected a JSON list of row indexes", language=language)
            return [], False
    else:  # one index per line
        values = [line.strip() for line in text_lines(text)]
        values = [int(v) if re.fullmatch(r"-?\d+", v) else v for v in values]
        places = list(range(1, len(values) + 1))
    indexes = []
    for value, place in zip(values, places):
        if isinstance(value, bool) or not isinstance(value, int):
            reader.flaw(relative, place, f"row index {value!r} is not a whole number", language=language)
            value = None
        indexes.append((value, place))
    return indexes, True


def translation_languages(root: Path) -> list[str]:
    found = set()
    for folder, pattern in ((PROMPTS_DIR, r"(?:prompts|choices)\.(.+)"), (TERMS_DIR, r"line_inds\.(.+)\.txt")):
        if (root / folder).is_dir():
            for path in (root / folder).iterdir():
                match = re.fullmatch(pattern, path.name)
                if match:
                    found.add(match.group(1))
    return sorted(found)
