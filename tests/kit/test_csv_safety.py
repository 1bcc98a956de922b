"""kit.csv_safety: cells a spreadsheet would run as formulas get a leading quote;
numbers and plain text are written as they are; `restore` undoes it exactly."""

import csv
import io
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from kit.csv_safety import FORMULA_START, SafeDictWriter, SafeWriter, neutralise, restore

NUMBER_TEXT = st.from_regex(r"\A[+-]?[0-9]{1,6}(\.[0-9]{1,4})?([eE][+-]?[0-9]{1,2})?\Z")


def is_number_text(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_it_quotes_each_formula_start():
    assert neutralise('=HYPERLINK("http://evil.example","click")') == '\'=HYPERLINK("http://evil.example","click")'
    assert neutralise("+cmd|' /C calc'!A0") == "'+cmd|' /C calc'!A0"
    assert neutralise("-2+3+cmd|' /C calc'!A0") == "'-2+3+cmd|' /C calc'!A0"
    assert neutralise("@SUM(1+1)") == "'@SUM(1+1)"
    assert neutralise("\t=1+1") == "'\t=1+1"
    assert neutralise("\r=1+1") == "'\r=1+1"


def test_numbers_stay_numbers():
    assert neutralise(-0.25) == -0.25
    assert neutralise(-3) == -3
    assert neutralise(Decimal("-1.5")) == Decimal("-1.5")
    assert neutralise(None) is None
    # Text that is exactly a number is read as that number by a spreadsheet, never run.
    assert neutralise("-0.25") == "-0.25"
    assert neutralise("+3") == "+3"
    assert neutralise("-1e-05") == "-1e-05"


def test_plain_text_is_unchanged():
    assert neutralise("How should [Actor A] respond?") == "How should [Actor A] respond?"
    assert neutralise("") == ""
    assert neutralise(" =not a formula once a space leads") == " =not a formula once a space leads"


@given(st.text())
def test_a_neutralised_cell_never_starts_with_a_formula_character_unless_it_is_a_number(text):
    cell = neutralise(text)
    assert not cell.startswith(FORMULA_START) or is_number_text(cell)


@given(st.text().filter(lambda t: not t.startswith(FORMULA_START + ("'",))))
def test_a_plain_cell_is_unchanged(text):
    assert neutralise(text) == text


@given(NUMBER_TEXT)
def test_number_text_is_unchanged(text):
    assert neutralise(text) == text


@given(st.text())
def test_restore_undoes_neutralise(text):
    assert restore(neutralise(text)) == text


@given(st.lists(st.one_of(st.text(), st.integers(), st.floats(allow_nan=False))))
def test_the_writer_neutralises_every_text_cell_and_no_number(row):
    out = io.StringIO()
    SafeWriter(out).writerow(row)
    expected = io.StringIO()
    csv.writer(expected).writerow([neutralise(v) for v in row])
    assert out.getvalue() == expected.getvalue()


def test_the_dict_writer_keeps_the_header_and_quotes_values():
    out = io.StringIO()
    writer = SafeDictWriter(out, fieldnames=["note", "rate"], lineterminator="\n")
    writer.writeheader()
    writer.writerow({"note": "=1+1", "rate": -0.5})
    assert out.getvalue() == "note,rate\n'=1+1,-0.5\n"
