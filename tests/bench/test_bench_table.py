"""bench/table.py: the one table scripts/bench prints from the benches' JSON lines."""

from bench.table import format_table, number, read_records, row


def test_a_fanout_record_shows_its_ratio_and_a_configuration_built_from_its_plain_values():
    record = {"bench": "fanout", "system": "litellm", "processes": 2, "concurrency": 32, "questions": 2000,
              "seconds": 13.9, "throughput": 143.9, "ideal": 160.0, "ratio": 0.899, "cpu_ms_per_answer": 6.1,
              "rss_mib": 220.4, "failed": 0, "unit": "of ideal (C / latency)"}
    assert row(record) == ("fanout", "system=litellm processes=2 concurrency=32 questions=2000", "0.899",
                           "of ideal (C / latency)")


def test_a_named_configuration_wins_and_seconds_is_the_figure_without_a_ratio():
    record = {"bench": "bertscore_speed", "configuration": "cross-20", "seconds": 0.4312, "groups": 20}
    assert row(record) == ("bertscore_speed", "cross-20", "0.431", "s")


def test_a_skipped_record_gives_its_reason_and_a_record_without_figure_says_so():
    assert row({"bench": "fanout", "system": "inspect", "skipped": "could not be installed"}) == (
        "fanout", "system=inspect", "skipped", "could not be installed")
    assert row({"bench": "x", "configuration": "y"}) == ("x", "y", "-", "no figure")


def test_figures_keep_about_three_significant_digits():
    assert [number(v) for v in (0.8994, 0.01234, 1.5, 12.345, 146.2, 20000, 0, None)] == [
        "0.899", "0.0123", "1.50", "12.3", "146", "20,000", "0.00", "-"]


def test_the_table_lines_up_and_passes_over_lines_that_are_not_json():
    records = read_records(['installing Inspect AI ...\n', '{"bench": "a", "configuration": "long one", "ratio": 0.5}\n',
                            '{not json\n', '[1, 2]\n', '{"bench": "bb", "configuration": "c", "seconds": 12.0}\n'])
    assert format_table(records).splitlines() == [
        "| bench | configuration | figure | unit  |",
        "|-------|---------------|-------:|-------|",
        "| a     | long one      |    0.5 | ratio |",
        "| bb    | c             |   12.0 | s     |",
    ]
