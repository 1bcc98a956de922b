"""The house's sizes (issue 39): no module over MAX_MODULE_LINES lines and no function over
MAX_FUNCTION_LINES lines outside bench/, the tests and the migrations. A file that grows
past them splits by topic, a function into named helpers; one that must stay larger is
listed in EXCEPTIONS with why. Read from the source with `ast`: no database, no import."""

import ast
from pathlib import Path

from tests.house import ROOT, house_modules

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
# Folders not walked: the virtualenv, run-time data, benchmarks, tests, migrations (made by
# Django), and hidden ones (.git).
# "path" (a module) or "path::function" (a function, by name, nested ones too) -> why it is larger.
EXCEPTIONS: dict[str, str] = {}



def oversized(paths, root: Path = ROOT, exceptions: dict[str, str] = EXCEPTIONS) -> list[str]:
    """Each module over MAX_MODULE_LINES and each function over MAX_FUNCTION_LINES (from
    its `def` to its last line, decorators not counted), not in EXCEPTIONS; each entry
    begins with the path (path: or path::function)."""
    found = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and relative not in exceptions:
            found.append(f"{relative}: {lines} lines (at most {MAX_MODULE_LINES}): split it by topic")
        for node in ast.walk(ast.parse(text, filename=relative)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                name = f"{relative}::{node.name}"
                if size > MAX_FUNCTION_LINES and name not in exceptions:
                    found.append(f"{name} (line {node.lineno}): {size} lines (at most {MAX_FUNCTION_LINES}): "
                                 "break it into named helpers")
    return found


def test_no_module_or_function_is_over_the_house_sizes():
    paths = house_modules()
    assert len(paths) > 100  # the walk found the apps
    found = oversized(paths)
    assert not found, "over the house's sizes (or list it in EXCEPTIONS with why):\n" + "\n".join(found)


def test_every_exception_is_still_needed():
    """An exception whose module or function shrank (or went) is taken off the list."""
    over = {entry.split(" ")[0].rstrip(":") for entry in oversized(house_modules(), exceptions={})}
    stale = sorted(set(EXCEPTIONS) - over)
    assert not stale, f"no longer over the sizes: take {', '.join(stale)} off EXCEPTIONS"


def test_it_names_a_module_and_a_function_over_the_sizes(tmp_path):
    long_function = "def long():\n" + "    x = 1\n" * MAX_FUNCTION_LINES + "\n\ndef short():\n    return 1\n"
    module = tmp_path / "app" / "big.py"
    module.parent.mkdir()
    module.write_text(long_function + "\n" * MAX_MODULE_LINES)
    found = oversized([module], root=tmp_path)
    assert [entry.split(" ")[0] for entry in found] == ["app/big.py:", "app/big.py::long"]
