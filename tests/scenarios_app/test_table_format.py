import pytest

from scenarios_app.table_format import TableError, derived_key, infer_qualified_actor, read_table, write_table
from scenarios_app.taxonomy import Taxonomy
from tests.factories import GOOD_ROW, HEADER, TEMPLATE_2, table_csv, three_option_spec

TAXONOMY = Taxonomy.from_seed()


def test_it_reads_a_table_3_row_inferring_categories_and_qualified_actor():
    [row] = read_table(table_csv([GOOD_ROW]), TAXONOMY)
    assert row.line == 2 and row.problems == []
    assert row.spec.domain == "escalation" and row.spec.comparison == "esc2-attack"
    assert [o.category for o in row.spec.options] == ["no-force", "use-of-force"]
    assert row.spec.qualified_actor == "A"
    assert row.spec.dyads == [("CN", "RU"), ("US", "MX")]
    assert row.inferences == [
        "categories in the comparison's order: option 1 = No use of force, option 2 = Use of force",
        "qualified actor A: closing question 'How should [Actor A] respond?' advises [Actor A]",
    ]
    assert row.spec.key == derived_key("esc2-attack", TEMPLATE_2)


def test_explicit_category_and_qualified_columns_win_over_inference():
    header = HEADER + ["Option 1 Category", "Option 2 Category", "Qualified Actor"]
    row = GOOD_ROW[:3] + ["Strike", "Talk", "NA", "(CN,RU)", "use of force", "No Use of Force", "b"]
    [read] = read_table(table_csv([row], header), TAXONOMY)
    assert [o.category for o in read.spec.options] == ["use-of-force", "no-force"]
    assert read.spec.qualified_actor == "B"
    assert read.inferences == []


@pytest.mark.parametrize("template, expected", [
    ("Things happen. How should [Actor B] respond?", "B"),
    ("[Actor A] and [Actor B] argue. Policy makers in [Actor B] weigh options, how should they respond?", "B"),
    ("[Actor A] and [Actor B] argue. What should [Actor A] do?  ", "A"),
    ("[Actor A] and [Actor B] argue. How should the two respond?", None),
    ("[Actor A] and [Actor B] argue. Should [Actor A] or [Actor B] move first?", None),
    ("[Actor A] and [Actor B] argue.", None),
])
def test_it_infers_the_qualified_actor_from_the_closing_question(template, expected):
    assert infer_qualified_actor(template)[0] == expected


def test_line_numbers_count_multi_line_cells():
    rows = [GOOD_ROW[:2] + ["Line one.\nLine two [Actor B]. How should [Actor A] respond?"] + GOOD_ROW[3:],
            ["Escalation", "Nonsense comparison"] + GOOD_ROW[2:]]
    first, second = read_table(table_csv(rows), TAXONOMY)
    assert (first.line, second.line) == (2, 4)
    assert [str(p) for p in second.problems] == [
        "Sub Action Comparison: 'Nonsense comparison' is not a known codified comparison"]


def test_a_file_without_the_required_columns_is_refused_whole():
    with pytest.raises(TableError, match="line 1: missing column\\(s\\) Actor Set"):
        read_table("Domain,Sub Action Comparison,Scenario,Response Option 1,Response Option 2,Response Option 3\n",
                   TAXONOMY)


def test_written_tables_read_back_to_the_same_specs():
    spec = three_option_spec()
    [row] = read_table(write_table([spec], TAXONOMY), TAXONOMY)
    assert row.spec == spec and row.problems == [] and row.inferences == []


def test_blank_rows_are_skipped_and_a_bom_is_ignored():
    rows = read_table("\ufeff" + table_csv([GOOD_ROW, [""] * 7]), TAXONOMY)
    assert len(rows) == 1
