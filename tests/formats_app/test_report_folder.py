"""export_report --format folder (issue 30): a dashboard view as a folder for a paper, on
each family's dashboard: every figure drawn offline as SVG and PNG by Chromium (kaleido),
every table as the dashboard's own CSV and as LaTeX, and a README naming them."""

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from formats_app import report_drawing, report_folder
from tests.territories_app.test_borderlines_browser import answered_territories  # noqa: F401 (fixture)
from tests.scenarios_app.test_dashboard_charts import demo_like  # noqa: F401 (fixture)
from tests.crisis_app.test_crisis_dashboard import scores  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.embedded_pass(reason=(
        "figures drawn offline by Chromium (kaleido) from the dashboards' pages; the dashboards' "
        "queries are tested in both passes by their own tests"))]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def _chromium():
    if report_drawing.chromium_path() is None:
        pytest.skip("no Chromium to draw with (Debian's chromium package)")


def export(user, out, page="/analysis/cfpd/", query="iterations=200"):
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("export_report", "--page", page, "--url-query", query, "--user", user.username,
                 "--out", str(out), stdout=stdout, stderr=stderr)
    return stdout.getvalue(), stderr.getvalue()


def marks(svg_path: Path) -> list[ET.Element]:
    """What plotly drew for the data: bars, dots and map markers (`point`), lines
    (`js-line`), a heatmap's cells (plotly draws them as one PNG `image` inside the SVG),
    as elements of the parsed SVG."""
    root = ET.parse(svg_path).getroot()
    assert root.tag == f"{SVG}svg"
    found = []
    for element in root.iter():
        classes = (element.get("class") or "").split()
        href = element.get("{http://www.w3.org/1999/xlink}href") or element.get("href") or ""
        if {"point", "js-line", "js-fill"} & set(classes) or (element.tag == f"{SVG}image"
                                                             and href.startswith("data:image/png")):
            found.append(element)
    return found


def check_folder(out: Path, client, page, query):
    index = (out / "README.md").read_text()
    svgs = sorted((out / "figures").glob("*.svg"))
    assert svgs, "no figure drawn"
    for svg in svgs:
        assert marks(svg), f"{svg.name} has no plotted marks"
        png = svg.with_suffix(".png").read_bytes()
        assert png.startswith(PNG_SIGNATURE) and len(png) > 10_000, svg.name
        # 2x the SVG's size: 960 px wide at scale 2.
        assert int.from_bytes(png[16:20], "big") == 2 * int(float(ET.parse(svg).getroot().get("width")))
        assert f"`figures/{svg.name}`" in index and f"`figures/{svg.stem}.png`" in index
    csvs = sorted((out / "tables").glob("*.csv"))
    panels = report_folder.panels_in(client.get(f"{page}?{query}").content.decode())
    assert [c.stem for c in csvs] == [report_folder.file_stem(n, p.key) for n, p in enumerate(panels, 1)]
    for csv, panel in zip(csvs, panels):
        # The dashboard's own CSV of that panel, every row, byte for byte.
        assert csv.read_text() == client.get(f"{page}{panel.key}.csv?{query}").content.decode()
        tex = csv.with_suffix(".tex").read_text()
        assert r"\begin{tabular}" in tex and tex.rstrip().endswith(r"\end{tabular}")
        assert f"`tables/{csv.name}`" in index and f"`tables/{csv.stem}.tex`" in index
    return svgs, csvs


def test_the_cfpd_dashboard_becomes_svg_png_csv_and_latex(client, analyst, demo_like, tmp_path,  # noqa: F811
                                                          settings):
    stdout, stderr = export(analyst, tmp_path / "paper")
    client.force_login(analyst)
    settings.CFPD_DASHBOARD_IN_WORKER = False
    svgs, csvs = check_folder(tmp_path / "paper", client, "/analysis/cfpd/", "iterations=200")
    assert len(svgs) >= 13  # every chart of the dashboard (test_dashboard_charts names them)
    n, f = len(csvs), len(svgs)
    assert re.search(rf"wrote .*paper/ \({n} csv, 1 md, {f} png, {f} svg, {n} tex; [\d,]+ bytes\) in [\d.]+ s", stdout)
    assert f"[{n + 1}/{n + f + 2}] drawing Model comparison by domain (1 of {f})" in stderr
    assert [s.stem for s in svgs][:3] == ["01-rates", "02-actions", "03-repeats"]
    # The rates chart: one bar per (model, domain, category) with an estimate, three models.
    bars = [m for m in marks(tmp_path / "paper" / "figures" / "01-rates.svg") if "point" in m.get("class")]
    rows = (tmp_path / "paper" / "tables" / "01-rates.csv").read_text().strip().splitlines()[1:]
    assert len(bars) == len(rows)
    index = (tmp_path / "paper" / "README.md").read_text()
    assert index.startswith("# /analysis/cfpd/?iterations=200\n") and "## Model comparison by domain" in index


def test_the_territories_map_is_drawn_on_the_sites_shapes(client, analyst, answered_territories, tmp_path,  # noqa: F811
                                                          settings):
    export(analyst, tmp_path / "territories", page="/analysis/territories/")
    client.force_login(analyst)
    check_folder(tmp_path / "territories", client, "/analysis/territories/", "iterations=200")
    svg = next((tmp_path / "territories" / "figures").glob("*-map.svg")).read_text()
    # The countries drawn from the file given beforehand, no network: land paths and the markers.
    assert re.search(r'<g class="layer countries"><path d="M[^"]{200,}', svg)
    assert svg.count('class="point"') >= 10


def test_the_crisis_dashboard_becomes_a_folder(client, analyst, scores, tmp_path, settings):  # noqa: F811
    export(analyst, tmp_path / "crisis", page="/analysis/crisis/")
    client.force_login(analyst)
    svgs, csvs = check_folder(tmp_path / "crisis", client, "/analysis/crisis/", "iterations=200")
    assert len(svgs) >= 2 and len(csvs) >= len(svgs)


def test_a_bad_filter_or_reader_writes_nothing(analyst, outsider, demo_like, tmp_path):  # noqa: F811
    with pytest.raises(CommandError, match=r"answered 400 .*iterations must be between 100 and 10000"):
        export(analyst, tmp_path / "bad", query="iterations=5")
    with pytest.raises(CommandError, match="answered 403|not allowed"):
        export(outsider, tmp_path / "outsider")
    assert not (tmp_path / "bad" / "figures").exists() and not (tmp_path / "outsider").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(CommandError, match="is a file"):
        call_command("export_report", "--user", analyst.username, "--out", str(tmp_path / "file"),
                     "--format", "folder", stdout=io.StringIO(), stderr=io.StringIO())


def test_the_drawing_page_loads_only_local_files():
    page = report_drawing.page_generator().generate_index()
    sources = re.findall(r'<script src="([^"]+)"', page)
    assert sources and all(src.startswith("file:///") for src in sources), sources
    assert "mathjax" not in page.lower() and "http" not in page
