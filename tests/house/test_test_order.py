"""The suite's own order (issue 37): the units of work measured longest start first
(tests/passes.longest_first), from the seconds scripts/test-durations --order writes."""

import importlib.machinery
import importlib.util
import json
from types import SimpleNamespace

from tests import passes


def durations_script():
    path = str(passes.ROOT / "scripts" / "test-durations")
    loader = importlib.machinery.SourceFileLoader("test_durations_script", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def items(*units):
    return [SimpleNamespace(cfpd_unit=unit, name=f"{unit}#{index}") for index, unit in enumerate(units)]


def test_the_longest_units_start_first_and_each_keeps_its_tests_order(tmp_path, monkeypatch):
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({"embedded": {"a": 5.0, "b": 120.0, "c": 1.0},
                                     "services": {"a": 300.0, "b": 2.0, "c": 1.0}}))
    monkeypatch.setattr(passes, "DURATIONS", durations)
    # Units a, b, c and d (not measured: the median unit's 5 s, so level with a and after it).
    tests = items("a", "c", "a", "b", "d", "b")
    passes.longest_first(tests, "embedded")
    assert [t.name for t in tests] == ["b#3", "b#5", "a#0", "a#2", "d#4", "c#1"]
    tests = items("a", "c", "a", "b", "d", "b")
    # Services: a is the long one there; d weighs the median (b's 2 s) and comes after b,
    # collected first, each unit's tests together.
    passes.longest_first(tests, "services")
    assert [t.name for t in tests] == ["a#0", "a#2", "b#3", "b#5", "d#4", "c#1"]
    tests = items("a", "c", "b")
    passes.longest_first(tests, "fast")  # the fast lane runs on SQLite: the embedded pass's seconds
    assert [t.name for t in tests] == ["b#2", "a#0", "c#1"]


def test_without_measurements_the_order_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(passes, "DURATIONS", tmp_path / "missing.json")
    tests = items("a", "b", "a")
    passes.longest_first(tests, "embedded")
    assert [t.name for t in tests] == ["a#0", "b#1", "a#2"]
    (tmp_path / "broken.json").write_text("{not json")
    monkeypatch.setattr(passes, "DURATIONS", tmp_path / "broken.json")
    passes.longest_first(tests, "embedded")
    assert [t.name for t in tests] == ["a#0", "b#1", "a#2"]


def test_the_order_file_holds_a_groups_total_and_a_spread_files_mean(tmp_path):
    report = tmp_path / "embedded.xml"
    report.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="tests.integration.test_w" name="test_one@tests.integration.test_w" time="2.0"/>'
        '<testcase classname="tests.integration.test_w" name="test_two@tests.integration.test_w" time="3.5"/>'
        '<testcase classname="tests.integration.test_w" name="test_three@tests.integration.test_w.transactional"'
        ' time="10"/>'
        '<testcase classname="tests.integration.test_fuzz" name="test_x[a/]" time="0.5"/>'
        '<testcase classname="tests.integration.test_fuzz" name="test_x[b/]" time="1.5"/>'
        '</testsuite></testsuites>')
    out = tmp_path / "durations.json"
    durations_script().main(["--order", str(out), str(report)])
    # The group: 2.0 + 3.5 = 5.5; its transactional group 10; the spread file: (0.5 + 1.5) / 2 = 1.0.
    assert json.loads(out.read_text()) == {"embedded": {
        "tests.integration.test_w": 5.5, "tests.integration.test_w.transactional": 10.0,
        "tests/integration/test_fuzz.py": 1.0}}
