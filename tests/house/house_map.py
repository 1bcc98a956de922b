"""The house's map, made from the code: which room imports which (grimp, the graph import-linter
itself reads) and the rules that hold them (`.importlinter`'s contracts). `scripts/house-map`
prints it as markdown; docs/architecture.md holds the same text between its markers, and
tests/house/test_house_map.py fails when the two differ (the map is made again, not edited).

Only what changes when the house changes is in the map: the arrows between rooms and the
contracts, not lines of code (docs/architecture.md, "The house in numbers", dates those)."""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN = "<!-- house-map: made by scripts/house-map; edit the code or .importlinter, not this block -->"
END = "<!-- house-map end -->"


def contracts(path: Path = ROOT / ".importlinter") -> tuple[list[str], list[tuple[str, str, str]]]:
    """(the root packages, [(id, type, name)]) as .importlinter declares them."""
    config = configparser.ConfigParser()
    config.read(path)
    rooms = config["importlinter"]["root_packages"].split()
    found = []
    for section in config.sections():
        if section.startswith("importlinter:contract:"):
            found.append((section.split(":", 2)[2], config[section]["type"], " ".join(config[section]["name"].split())))
    return rooms, found


def arrows(rooms: list[str]) -> dict[str, list[str]]:
    """{room: the rooms it imports}, direct imports at run time (TYPE_CHECKING left out, as the
    contracts read them)."""
    import grimp

    graph = grimp.build_graph(*rooms, include_external_packages=False, exclude_type_checking_imports=True)
    return {room: sorted(other for other in rooms if other != room
                         and graph.direct_import_exists(importer=room, imported=other, as_packages=True))
            for room in rooms}


def circles(edges: dict[str, list[str]]) -> list[tuple[str, str]]:
    """Pairs of rooms that import each other, directly or through others."""
    def reaches(start, goal):
        seen, stack = set(), [start]
        while stack:
            room = stack.pop()
            for other in edges[room]:
                if other == goal:
                    return True
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        return False

    rooms = sorted(edges)
    return [(a, b) for i, a in enumerate(rooms) for b in rooms[i + 1:] if reaches(a, b) and reaches(b, a)]


def render(rooms: list[str], found: list[tuple[str, str, str]], edges: dict[str, list[str]]) -> str:
    importers = {room: sorted(other for other in rooms if room in edges[other]) for room in rooms}
    lines = [BEGIN, "",
             f"{sum(len(v) for v in edges.values())} arrows between {len(rooms)} rooms; "
             f"circles between rooms: {', '.join(f'{a} ⇄ {b}' for a, b in circles(edges)) or 'none'}.", "",
             "| room | imports | imported by |", "|---|---|---|"]
    for room in rooms:
        lines.append(f"| `{room}` | {', '.join(edges[room]) or '—'} | {', '.join(importers[room]) or '—'} |")
    lines += ["", "```mermaid", "graph TD"]
    lines += [f"  {room} --> {other}" for room in rooms for other in edges[room]]
    lines += ["```", "", "The rules (`.importlinter`, checked by `tests/house/test_import_contracts.py`):", "",
              "| contract | kind | rule |", "|---|---|---|"]
    lines += [f"| `{ident}` | {kind} | {name} |" for ident, kind, name in found]
    lines += ["", END]
    return "\n".join(lines)


def house_map() -> str:
    rooms, found = contracts()
    return render(rooms, found, arrows(rooms))


def block_in(text: str) -> str | None:
    """The map's block as a document holds it, markers included, or None."""
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN):text.index(END) + len(END)]


if __name__ == "__main__":
    import sys

    made = house_map()
    if "--write" in sys.argv:
        doc = ROOT / "docs" / "architecture.md"
        text = doc.read_text()
        old = block_in(text)
        if old is None:
            sys.exit(f"{doc}: no house-map block (put the two markers where the map goes)")
        doc.write_text(text.replace(old, made))
        print(f"wrote the map into {doc.relative_to(ROOT)}")
    else:
        print(made)
