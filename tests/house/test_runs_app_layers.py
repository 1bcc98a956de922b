"""runs_app's modules import one another in one direction only (issue 27): the queue
(`queueing`) below the engine that writes answers (`execution`, `batch_execution`),
below the workflows (`services` and the modules it re-exports), below the worker's
tasks; no import hidden inside a function to get round a circle. Read from the source with `ast`: no Django here."""

from __future__ import annotations

import ast
from pathlib import Path

RUNS_APP = Path(__file__).resolve().parents[2] / "runs_app"


def imports(path: Path) -> tuple[set[str], set[str]]:
    """The runs_app modules `path` imports at module level, and inside functions."""
    modules = {p.stem for p in RUNS_APP.glob("*.py")}
    top: set[str] = set()
    inner: set[str] = set()

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                if child.level == 1:
                    names = [child.module] if child.module else [alias.name for alias in child.names]
                elif child.level == 0 and (child.module or "").startswith("runs_app."):
                    names = [child.module.split(".", 1)[1]]
                elif child.level == 0 and child.module == "runs_app":
                    names = [alias.name for alias in child.names]
                else:
                    names = []
                for name in names:
                    if name.split(".")[0] in modules:
                        (inner if nested else top).add(name.split(".")[0])
            visit(child, nested)

    visit(ast.parse(path.read_text()), False)
    return top, inner


def graph() -> dict[str, set[str]]:
    return {path.stem: imports(path)[0] | imports(path)[1] for path in RUNS_APP.glob("*.py")}


# The workflows: services, the public face, and the modules it re-exports (issue 39).
WORKFLOWS = {"services", "launching", "run_control", "run_progress", "sweeping", "service_wait"}


def test_the_engine_has_no_import_inside_a_function_between_its_layers():
    engine = sorted(WORKFLOWS) + ["tasks", "execution", "batch_execution", "queueing"]
    for name in engine:
        _, inner = imports(RUNS_APP / f"{name}.py")
        assert not inner, f"runs_app/{name}.py imports {sorted(inner)} inside a function"


def test_the_queue_imports_nothing_that_imports_it_back():
    top, inner = imports(RUNS_APP / "queueing.py")
    assert top | inner <= {"models", "batching", "health", "infra", "local_weights"}
    # health, infra (a failed send marks its units never sent) and local_weights (which queue a
    # model's units go to) import nothing of runs_app.
    for name in ("health", "infra", "local_weights"):
        assert not any(imports(RUNS_APP / f"{name}.py")), name


def test_the_layers_go_one_way():
    below = {"queueing": {"execution", "batch_execution", "tasks"} | WORKFLOWS,
             "execution": {"batch_execution", "tasks"} | WORKFLOWS,
             "batch_execution": {"tasks"} | WORKFLOWS,
             **{workflow: {"tasks", "views", "api", "forms"} for workflow in WORKFLOWS}}
    edges = graph()
    for lower, uppers in below.items():
        assert not edges[lower] & uppers, f"runs_app/{lower}.py imports {sorted(edges[lower] & uppers)}"


def test_runs_app_has_no_import_circle():
    edges = graph()
    seen: dict[str, int] = {}  # 1 while on the path, 2 once done

    def walk(name: str, path: list[str]):
        seen[name] = 1
        for other in sorted(edges.get(name, ())):
            assert seen.get(other) != 1, "import circle: " + " -> ".join([*path, name, other])
            if other not in seen:
                walk(other, [*path, name])
        seen[name] = 2

    for name in sorted(edges):
        if name not in seen:
            walk(name, [])
