"""formats_app.report_folder (pure): a dashboard's panels read back from the page the site
renders, each table as LaTeX with every special character escaped, and the folder's index."""

import re

import pandas as pd
from django.template.loader import render_to_string
from hypothesis import given
from hypothesis import strategies as st

from kit.csv_safety import neutralise
from formats_app import report_folder

FIGURE = {"data": [{"type": "bar", "x": ["a", "b"], "y": [0.25, 0.75]}],
          "layout": {"title": {"text": "Rates </script> & more"}}}


def rendered_panels():
    """The panels as the dashboards render them (analysis_app/panels.html, the same
    template every family's page includes), so that the reader follows the real markup."""
    table = pd.DataFrame({"model": ["hawk"], "rate": [0.5]})
    panels = [
        {"key": "rates", "anchor": "rates", "script_id": "figure-data-rates", "title": "Rates & ranks <by model>",
         "note": "Normalised rates; 95% CI.", "figure": FIGURE, "columns": list(table.columns),
         "rows": [["hawk", 0.5]], "total_rows": 1, "csv": "rates.csv?iterations=200&model=a%26b"},
        {"key": "cases", "anchor": "cases", "script_id": "figure-data-cases", "title": "Cases", "note": "",
         "figure": None, "columns": ["territory"], "rows": [["Crimea"]], "total_rows": 1,
         "csv": "cases.csv?iterations=200", "table_only": True},
    ]
    return "<main>" + render_to_string("analysis_app/panels.html", {"panels": panels}) + "</main>"


def test_it_reads_each_panels_title_note_csv_link_and_figure_from_the_page():
    panels = report_folder.panels_in(rendered_panels())
    assert [p.key for p in panels] == ["rates", "cases"]
    rates, cases = panels
    assert rates.title == "Rates & ranks <by model>"  # unescaped back from the page
    assert rates.note == "Normalised rates; 95% CI."
    assert rates.csv_href == "rates.csv?iterations=200&model=a%26b"
    assert rates.figure == FIGURE  # json_script's \u003C escapes read back as "<"
    assert cases.figure is None and cases.note == "" and cases.csv_href == "cases.csv?iterations=200"


def test_a_page_without_panels_has_none():
    assert report_folder.panels_in("<main><p>No answers in this filter yet.</p></main>") == []


def test_file_stems_keep_the_pages_order_and_are_safe_names():
    assert report_folder.file_stem(3, "refusals_by_country") == "03-refusals-by-country"
    assert report_folder.file_stem(12, "../../etc/passwd") == "12-etc-passwd"
    assert report_folder.file_stem(1, "***") == "01-panel"


def test_every_latex_special_character_in_headings_and_cells_is_escaped():
    table = report_folder.read_csv('model & co_1,note\n"50% of $x$ #1 {y} ~z ^w \\back",plain\n')
    tex = report_folder.latex_table(table, "Rates: 100% & more")
    assert tex.splitlines()[0] == "% Rates: 100% & more"
    assert r"model \& co\_1 & note \\" in tex
    assert (r"50\% of \$x\$ \#1 \{y\} \textasciitilde z \textasciicircum w \textbackslash back & plain \\"
            in tex)
    assert tex.splitlines()[1] == r"\begin{tabular}{ll}"


def test_columns_of_numbers_are_right_aligned_and_written_alike():
    table = report_folder.read_csv("model,rate,n,p\nhawk,0.5,4,0.00001\ndove,1,12,0.000002\nowl,,3,\n")
    tex = report_folder.latex_table(table)
    assert r"\begin{tabular}{lrrr}" in tex
    # rate: 0.5 and 1 as 0.5000 and 1.0000 (a column of fractions); n: whole numbers as
    # they are; p: every value below 0.0001, so two significant digits in exponent form.
    assert r"hawk & 0.5000 & 4 & 1.00e-05 \\" in tex
    assert r"dove & 1.0000 & 12 & 2.00e-06 \\" in tex
    assert r"owl &  & 3 &  \\" in tex  # empty cells stay empty, never "nan"


def test_a_spreadsheet_safe_cell_is_shown_as_it_was_written():
    # The site's CSV puts a quote before a cell a spreadsheet would run ("=cmd", "-x");
    # a paper shows the model's name as it is.
    table = report_folder.read_csv(f"model,rate\n{neutralise('=HYPERLINK(1)')},0.5\n{neutralise('-x')},0.25\n")
    tex = report_folder.latex_table(table)
    assert r"=HYPERLINK(1) & 0.5000 \\" in tex and r"-x & 0.2500 \\" in tex
    assert "'" not in tex


_UNESCAPE = re.compile(r"\\textbackslash |\\textasciitilde |\\textasciicircum |\\space |\\[&%$#_{}]")


def _read_back(cell: str) -> str:
    return _UNESCAPE.sub(lambda m: {r"\textbackslash ": "\\", r"\textasciitilde ": "~",
                                    r"\textasciicircum ": "^", r"\space ": " "}.get(m.group(0), m.group(0)[-1:]), cell)


@given(st.text(alphabet="ab &%$#_{}~^\\-=+@'\"", min_size=1, max_size=30).filter(lambda t: not t.startswith("'")))
def test_any_text_cell_reads_back_as_written_and_leaves_no_bare_special_character(text):
    table = pd.DataFrame({"name": [text], "n": ["1"]})
    row = report_folder.latex_table(table).splitlines()[4]  # % none, \begin, \toprule, heading, \midrule: row 4
    cell = row.rsplit(" & ", 1)[0]
    # Every & % $ # _ { } is escaped by a backslash, every \ ~ ^ spelt as a command (and a
    # space after one as \space, which LaTeX would otherwise swallow)...
    assert not re.search(r"(?<!\\)[&%$#_]", cell.replace(r"\textbackslash ", "").replace(
        r"\textasciitilde ", "").replace(r"\textasciicircum ", ""))
    # ...and unescaping gives the text back (runs of spaces as one, as the cell is written).
    assert _read_back(cell).strip() == " ".join(text.split())


def test_the_index_names_each_panels_files_and_where_they_came_from():
    text = report_folder.index_text("/analysis/cfpd/?iterations=200", "andy", "2026-11-26 01:00 UTC", [
        report_folder.FolderEntry("Rates", "Normalised rates.", ["tables/01-rates.csv", "figures/01-rates.svg"]),
        report_folder.FolderEntry("Cases", "", [])])
    assert "as andy saw it on 2026-11-26 01:00 UTC" in text
    assert "## Rates\n\nNormalised rates.\n\n- `tables/01-rates.csv`\n- `figures/01-rates.svg`" in text
    assert "## Cases\n\n- (nothing to write for this filter)" in text


def test_it_reads_a_profiles_family_sections_and_the_pages_one_csv():
    # The markup of analysis_app/model_profile.html and model_compare.html: one section per
    # family, no CSV link in it, one link above them for the whole page.
    page = ('<a class="button" id="profile-csv" href="/models/hawk/figures.csv" download>Figures (CSV)</a>'
            '<section class="panel chart-panel family" id="family-cfpd"><div class="page-head"><h2>CFPD</h2></div>'
            '<p class="muted small panel-note">Rates, 95% CI.</p><div class="chart" data-figure="figure-data-cfpd">'
            '</div><script id="figure-data-cfpd" type="application/json">{"data": []}</script></section>'
            '<section class="panel chart-panel family" id="family-freeform"><h2>Free-form</h2>'
            '<p class="empty-note no-answers">No answers of hawk in this family yet.</p></section>')
    cfpd, freeform = report_folder.panels_in(page)
    assert (cfpd.key, cfpd.title, cfpd.note, cfpd.csv_href, cfpd.figure) == ("cfpd", "CFPD", "Rates, 95% CI.", "",
                                                                            {"data": []})
    assert (freeform.key, freeform.figure, freeform.csv_href) == ("freeform", None, "")
    assert report_folder.page_csv(page) == ("/models/hawk/figures.csv", "Figures (CSV)")
    assert report_folder.page_csv(rendered_panels()) is None  # a family's dashboard links a CSV per panel


def test_the_index_says_when_a_panel_has_no_table_of_its_own():
    text = report_folder.index_text("/models/hawk/", "andy", "2026-11-26 01:00 UTC", [
        report_folder.FolderEntry("CFPD", "", ["figures/01-cfpd.svg"], no_table="the page links no CSV for it")])
    assert "## CFPD\n\n- `figures/01-cfpd.svg`\n- no table of its own: the page links no CSV for it\n" in text
