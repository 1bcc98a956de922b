"""What the *Models and people* page shows for one benchmark (issue 40): per panel, the
models ranked by similarity with their intervals and the panel's ceiling drawn; per model, a
domain × panel heat map; the questions where a model and a panel disagree most, with both
distributions. Built from `results.alignment_rows`; the charts are plotly JSON through
`analysis_app.panels.chart`, as every dashboard's, drawn by static/js/dashboard.js."""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis_app.metrics import alignment as metrics
from analysis_app.panels import PALETTE, chart, layout
from benchmarks_app.lettering import option_letters
from benchmarks_app.models import Benchmark, Question

from .models import Panel
from .results import AlignmentRow, alignment_rows, models_by_question, panel_answers

WORST = 5  # disagreements shown per model and panel (questions where the two agree fully are not)
AGREE = 0.999
CEILING_COLOUR, MODEL_COLOUR = "#d1495b", PALETTE[0]


@dataclass(frozen=True)
class Ranking:
    panel: str
    kind: str
    ceiling: float | None
    rows: list[AlignmentRow]  # the overall rows, the most similar first
    figure: dict | None
    script_id: str = ""
    alpha: float | None = None  # Krippendorff's α among the panel's respondents (None: a reference of shares)


@dataclass(frozen=True)
class HeatMap:
    model: str
    domains: list[str]
    panels: list[str]
    cells: list[list[float | None]]  # [domain][panel]
    figure: dict | None
    script_id: str = ""

    @property
    def table(self):
        return list(zip(self.domains, self.cells))


@dataclass(frozen=True)
class Disagreement:
    model: str
    panel: str
    question: str
    similarity: float
    options: list[tuple[str, str, float, float]]  # (letter, text, model's share, panel's share)


@dataclass
class Page:
    benchmark: Benchmark | None
    benchmarks: list[Benchmark]
    rankings: list[Ranking] = field(default_factory=list)
    heat_maps: list[HeatMap] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    why_empty: str = ""


def benchmarks_with_panels() -> list[Benchmark]:
    return list(Benchmark.objects.filter(panels__isnull=False).distinct().order_by("name"))


def ranking_figure(panel: str, rows: list[AlignmentRow], ceiling: float | None) -> dict | None:
    drawn = [row for row in rows if row.similarity is not None]
    if not drawn:
        return None
    drawn = drawn[::-1]  # plotly draws the first category at the bottom: the most similar on top
    low = [row.similarity - row.ci_low if row.ci_low is not None else 0 for row in drawn]
    high = [row.ci_high - row.similarity if row.ci_high is not None else 0 for row in drawn]
    traces = [{"type": "scatter", "mode": "markers", "name": "similarity (95% interval)", "orientation": "h",
               "x": [row.similarity for row in drawn], "y": [row.model for row in drawn],
               "marker": {"color": MODEL_COLOUR, "size": 10},
               "error_x": {"type": "data", "symmetric": False, "array": high, "arrayminus": low, "thickness": 1.5},
               "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"}]
    shapes, notes = [], []
    if ceiling is not None:
        shapes.append({"type": "line", "x0": ceiling, "x1": ceiling, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
                       "line": {"color": CEILING_COLOUR, "dash": "dash", "width": 2}})
        notes.append({"x": ceiling, "xref": "x", "y": 1, "yref": "y domain", "yanchor": "bottom", "showarrow": False,
                      "text": f"panel's ceiling {ceiling:.3f}", "font": {"color": CEILING_COLOUR, "size": 12}})
    return chart(traces, layout(f"Models by similarity to {panel}", height=max(220, 90 + 40 * len(drawn)),
                                xaxis={"title": {"text": "similarity (1 − Jensen–Shannon distance)"},
                                       "range": [0, 1.02]},
                                shapes=shapes, annotations=notes, showlegend=False))


def heat_figure(model: str, domains: list[str], panels: list[str], cells) -> dict | None:
    if not domains or not panels or all(v is None for row in cells for v in row):
        return None
    text = [["" if v is None else f"{v:.3f}" for v in row] for row in cells]
    traces = [{"type": "heatmap", "x": panels, "y": domains, "z": cells, "text": text, "texttemplate": "%{text}",
               "zmin": 0, "zmax": 1, "colorscale": "Blues", "reversescale": True,  # darker: closer "colorbar": {"title": {"text": "similarity"}},
               "hovertemplate": "%{y} · %{x}: %{z:.3f}<extra></extra>"}]
    return chart(traces, layout(f"{model}: similarity by domain and panel", height=max(240, 120 + 40 * len(domains)),
                                xaxis={"title": {"text": "panel"}}, yaxis={"title": {"text": "domain"}}))


def _disagreements(benchmark: Benchmark, overall: list[AlignmentRow]) -> list[Disagreement]:
    found = []
    panels = {p.name: p for p in Panel.objects.filter(benchmark=benchmark)}
    by_panel: dict[str, list[AlignmentRow]] = {}
    for row in overall:
        if row.per_question:
            by_panel.setdefault(row.panel, []).append(row)
    for name, rows in by_panel.items():
        answered_by_panel, _ = panel_answers(panels[name])
        worst_ids = {qid for row in rows for qid, value in row.per_question.items() if value < AGREE}
        questions = {q.pk: q for q in Question.objects.filter(pk__in=worst_ids)}
        by_model = models_by_question(list(worst_ids))
        for row in rows:
            disagreeing = [(qid, value) for qid, value in row.per_question.items() if value < AGREE]
            for qid, value in sorted(disagreeing, key=lambda kv: (kv[1], questions[kv[0]].key))[:WORST]:
                question = questions[qid]
                letters = option_letters(len(question.options))
                mine, _ = metrics.distribution(by_model[row.model][qid], letters)
                theirs, _ = metrics.distribution(answered_by_panel[qid], letters)
                found.append(Disagreement(row.model, name, question.key, value, [
                    (letter, text, float(mine[i]), float(theirs[i]))
                    for i, (letter, text) in enumerate(zip(letters, question.option_texts()))]))
    return found


def build(benchmark_name: str | None) -> Page:
    """The page for `benchmark_name` (already checked: results.read_report_params), or for the
    first benchmark with a panel when None."""
    benchmarks = benchmarks_with_panels()
    if benchmark_name is None:
        benchmark = benchmarks[0] if benchmarks else None
    else:
        benchmark = Benchmark.objects.get(name=benchmark_name)
    page = Page(benchmark, benchmarks)
    if benchmark is None:
        page.why_empty = ("No panel yet: authors make one in the console (Panels of people), or import a published "
                          "reference with import_reference.")
        return page
    panels = list(Panel.objects.filter(benchmark=benchmark).order_by("name"))
    if not panels:
        page.why_empty = f"Benchmark {benchmark.name} has no panel: nothing to set the models beside."
        return page
    rows = alignment_rows(benchmark)
    if not rows:
        page.why_empty = (f"No model has coded answers to the questions of {benchmark.name}'s panels yet "
                          f"({', '.join(p.name for p in panels)}): run the benchmark to compare.")
        return page
    overall = [row for row in rows if not row.domain and row.choice_count is None]
    ceilings = {row.panel: row.ceiling for row in overall}
    for panel in panels:
        ranked = sorted((row for row in overall if row.panel == panel.name),
                        key=lambda row: (row.similarity is None, -(row.similarity or 0), row.model))
        if not ranked:
            continue
        ceiling = ceilings.get(panel.name)
        _, people = panel_answers(panel)
        page.rankings.append(Ranking(panel.name, panel.kind, ceiling, ranked,
                                     ranking_figure(panel.name, ranked, ceiling), f"ranking-{len(page.rankings) + 1}",
                                     metrics.respondents_alpha(people) if people else None))
    by_domain = [row for row in rows if row.domain]
    domains = sorted({row.domain for row in by_domain})
    panel_names = [p.name for p in panels if any(r.panel == p.name for r in overall)]
    for model in sorted({row.model for row in overall}):
        cell = {(row.domain, row.panel): row.similarity for row in by_domain if row.model == model}
        cells = [[cell.get((d, p)) for p in panel_names] for d in domains]
        page.heat_maps.append(HeatMap(model, domains, panel_names, cells,
                                      heat_figure(model, domains, panel_names, cells),
                                      f"heat-{len(page.heat_maps) + 1}"))
    page.disagreements = _disagreements(benchmark, overall)
    return page
