"""A model's profile (/models/<name>/), the comparison (/models/compare/), their CSVs and
their API (/api/profiles/): every family's headline figures as the families' own
dashboards and API compute them, ranked and set side by side; a family without answers
of the model says so; bad parameters are a 400 or 404 naming the problem.

The data (`three_families`): the CFPD demo-like answers of hawk, dove and owl; the
BorderLines sample answered by hawk (always the first claimant) and dove (always the
last); the crisis group scores of `test_crisis_dashboard` with model-a's made hawk's and
model-b's dove's. At the crisis benchmark's temperature 0.2 (bertscore-minilm, level 0):

    hawk: run A's group means 0.2, 0.3, 0.35 -> 0.28333; run B 0.4; mean (0.28333 + 0.4) / 2 = 0.341667
    dove: run A 0.5; run E 0.45; mean (0.5 + 0.45) / 2 = 0.475

so hawk ranks 1 of 2 (lower first) and hawk − dove = 0.341667 − 0.475 = −0.133333.

The fixtures register hawk, dove and owl with one placeholder address (openai/x); the seed
gives each its own, as three models, and has dove answer in choice mode like hawk, so that
the two are compared (figures are ranked and differenced among rows of the same answer
mode); owl stays in generate mode.
"""

import csv
import io
from html import unescape

import pytest

from analysis_app import headlines
from analysis_app.models import ComputedFigure
from analysis_app.results import mover_interval
from benchmarks_app.lettering import LETTERS
from benchmarks_app.models import Benchmark, Condition, Question
from crisis_app.models import GroupScore
from runs_app.models import LLMModel, Response, Run
from tests.territories_app.test_borderlines_browser import make_answered_territories
from tests.scenarios_app.test_dashboard_charts import make_demo_like
from tests.conftest import PASSWORD, rows_for_the_module
from tests.crisis_app.test_crisis_dashboard import make_scores

pytestmark = pytest.mark.django_db


def move_answers(source: str, target: LLMModel):
    """Every answer and group score of model `source` made `target`'s."""
    old = LLMModel.objects.get(name=source)
    for run in Run.objects.filter(llm_models=old):
        run.llm_models.add(target)
    Response.objects.filter(model=old).update(model=target)
    GroupScore.objects.filter(model=old).update(model=target)


def seed_three_families(hawk_name="hawk", crisis_hawk=None, crisis_dove="dove"):
    """The module docstring's data (the CFPD and BorderLines fixtures already made); the
    crisis scores and the BorderLines answers of dove and of hawk. The crisis scores go to
    the rows `crisis_hawk` (default: hawk's) and `crisis_dove`, as the demo asks the
    free-form family of a model's free-text row."""
    for name in ("hawk", "dove", "owl"):
        LLMModel.objects.filter(name=name).update(litellm_model=f"openai/{name}")
    LLMModel.objects.filter(name="dove").update(answer_mode="choice")
    hawk, dove = LLMModel.objects.get(name=hawk_name), LLMModel.objects.get(name="dove")
    move_answers("first-claimant", hawk)
    benchmark = Benchmark.objects.get(name="borderlines")
    run = Run.objects.create(benchmark=benchmark, status="done")
    run.llm_models.add(dove)
    vanilla = Condition.objects.get(name="bl-vanilla")
    Response.objects.bulk_create([
        Response(run=run, question=q, model=dove, condition=vanilla, status="done",
                 code=LETTERS[q.choice_count - 1], code_source="choice", option_order=list(range(q.choice_count)))
        for q in Question.objects.filter(benchmark=benchmark)])
    made = make_scores()
    move_answers("model-a", LLMModel.objects.get(name=crisis_hawk or hawk_name))
    move_answers("model-b", LLMModel.objects.get(name=crisis_dove))
    return made


@pytest.fixture(scope="module")
def three_families_rows(django_db_setup, django_db_blocker):
    """The three families' rows, made once for the module (every test of it uses them)."""
    with rows_for_the_module(django_db_blocker):
        make_demo_like()
        make_answered_territories()
        yield seed_three_families()


@pytest.fixture
def three_families(three_families_rows, db):
    return three_families_rows


@pytest.fixture
def inline(settings):
    settings.CFPD_DASHBOARD_IN_WORKER = False  # the figures computed in the request, through the same row


def signed_in(client, user):
    client.login(username=user.username, password=PASSWORD)
    return client


def family(payload, name):
    return next(f for f in payload["families"] if f["family"] == name)


def test_the_profile_shows_each_familys_figures_with_rank_spread_and_dashboard_links(
        client, analyst, three_families, inline):
    page = signed_in(client, analyst).get("/models/hawk/")
    assert page.status_code == 200
    html = page.content.decode()
    for label in ("Foreign-policy preferences (CFPD)", "Territorial disputes (BorderLines)",
                  "Free-form crisis simulations"):
        assert label in html
    assert "No answers of hawk" not in html
    # Links into each dashboard filtered to hawk.
    assert 'href="/analysis/cfpd/?model=hawk"' in html
    assert 'href="/analysis/territories/?benchmark=borderlines&amp;model=hawk"' in html
    assert 'href="/analysis/crisis/?benchmark=crisis-sample&amp;model=hawk"' in html
    # The crisis row of the docstring: 0.342 [interval], 1 of 2, the other (dove) 0.475.
    assert "0.342" in html and "1 of 2" in html and "0.475 · 0.475 · 0.475" in html
    assert "Headline figures computed by the worker at" in html
    assert html.count('class="chart"') == 3  # a chart per family
    assert 'href="/models/hawk/figures.csv"' in html
    # The runs a figure rests on are named as runs and link to their pages (a bare "4"
    # read as a count of runs).
    published = client.get("/api/profiles/hawk/").json()
    runs = {run for fam in published["families"] for figure in fam["figures"] for run in figure["runs"]}
    assert runs
    for run in runs:
        assert f'<a href="/runs/{run}/">run {run}</a>' in html


def test_a_family_without_answers_of_the_model_says_so(client, analyst, three_families, inline):
    html = signed_in(client, analyst).get("/models/owl/").content.decode()
    assert html.count("No answers of owl in this family yet.") == 2  # BorderLines and crisis; owl has CFPD
    assert 'href="/analysis/cfpd/?model=owl"' in html


def test_the_published_figures_are_the_dashboards_own(client, analyst, three_families, inline):
    client = signed_in(client, analyst)
    profile = client.get("/api/profiles/hawk/").json()
    assert profile["state"] == "current" and profile["computed_at"]
    assert all(f["has_answers"] for f in profile["families"])
    # CFPD: the rates panel of the dashboard's API at its defaults, the headline category of each form.
    rates = client.get("/api/analysis/cfpd/?panel=rates").json()["panels"]["rates"]["rows"]
    cfpd = family(profile, "cfpd")["figures"]
    assert cfpd
    for figure in cfpd:
        _, domain, count, category = figure["metric"].split(":")
        row = next(r for r in rates if r["model"] == "hawk" and r["domain"] == domain
                   and r["choice_count"] == int(count) and r["category"] == category)
        assert (figure["estimate"], figure["ci_low"], figure["ci_high"], figure["n"]) == pytest.approx(
            (row["rate"], row["ci_low"], row["ci_high"], row["n_scenarios"]))
    assert {f["metric"].split(":")[3] for f in cfpd} <= {"Use of force", "High intervention", "Cooperative",
                                                          "Balancing"}
    # BorderLines: the territories API's scores.
    scores = client.get("/api/analysis/territories/").json()["scores"]
    row = next(r for r in scores if r["model"] == "hawk" and r["strategy"] == "bl-vanilla")
    kb = next(f for f in family(profile, "borderlines")["figures"] if f["metric"] == "kb_cs")
    assert (kb["estimate"], kb["ci_low"], kb["ci_high"]) == pytest.approx((row["kb_cs"], row["kb_cs_ci_low"],
                                                                            row["kb_cs_ci_high"]))
    assert kb["condition"] == "bl-vanilla" and kb["unit"] == "percent" and kb["of"] == 2
    # Crisis: the docstring's numbers.
    crisis = next(f for f in family(profile, "freeform")["figures"]
                  if f["metric"] == "inconsistency:bertscore-minilm" and f["condition"] == "temperature 0.2")
    assert crisis["estimate"] == pytest.approx(0.341667, abs=1e-6)
    assert (crisis["rank"], crisis["of"], crisis["others_median"], crisis["direction"]) == (1, 2, 0.475, "lower")
    assert crisis["n"] == 2 and len(crisis["runs"]) == 2


def test_the_comparison_gives_each_difference_with_its_interval(client, analyst, three_families, inline):
    client = signed_in(client, analyst)
    payload = client.get("/api/profiles/compare/?model=hawk&model=dove").json()
    assert payload["models"] == ["hawk", "dove"]
    crisis = family(payload, "freeform")
    found = next(d for d in crisis["differences"]
                 if d["metric"] == "inconsistency:bertscore-minilm" and d["condition"] == "temperature 0.2")
    assert found["difference"] == pytest.approx(-0.133333, abs=1e-6)  # 0.341667 − 0.475
    by_model = {f["model"]: f for f in crisis["figures"]
                if f["metric"] == "inconsistency:bertscore-minilm" and f["condition"] == "temperature 0.2"}
    a, b = by_model["hawk"], by_model["dove"]
    expected = mover_interval(a["estimate"], a["ci_low"], a["ci_high"], b["estimate"], b["ci_low"], b["ci_high"])
    assert (found["difference"], found["ci_low"], found["ci_high"]) == pytest.approx(expected)
    assert family(payload, "cfpd")["differences"] and family(payload, "borderlines")["differences"]
    # kendall's ranked figure is hawk's alone: no difference, and dove has answers in every family.
    assert all(f["without_answers"] == [] for f in payload["families"])

    page = client.get("/models/compare/?model=hawk&model=dove")
    html = page.content.decode()
    assert page.status_code == 200 and "hawk − dove [95% interval]" in html
    assert "−0.133" in html and html.count('class="chart"') == 3

    download = client.get("/models/compare/differences.csv?model=hawk&model=dove")
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    row = next(r for r in rows if r["metric"] == "inconsistency:bertscore-minilm"
               and r["condition"] == "temperature 0.2")
    assert float(row["difference"]) == pytest.approx(-0.133333, abs=1e-6)
    assert (row["model_a"], row["model_b"]) == ("hawk", "dove") and row["computed_at"]


def test_the_profile_csv_holds_every_figure_with_its_standing(client, analyst, three_families, inline):
    client = signed_in(client, analyst)
    profile = client.get("/api/profiles/hawk/").json()
    download = client.get("/models/hawk/figures.csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert len(rows) == sum(len(f["figures"]) for f in profile["families"])
    assert {r["family"] for r in rows} == {"cfpd", "borderlines", "freeform"}
    assert set(rows[0]) >= {"estimate", "ci_low", "ci_high", "kind", "rank", "of", "others_median", "unit",
                            "direction"}


def test_bad_parameters_are_a_400_or_404_naming_the_problem(client, analyst, three_families, inline):
    client = signed_in(client, analyst)
    missing = client.get("/models/nobody/")
    assert missing.status_code == 404 and "nobody" in missing.content.decode()
    assert client.get("/models/nobody/figures.csv").status_code == 404
    one = client.get("/models/compare/?model=hawk")
    assert one.status_code == 400 and "pick two models or more" in one.content.decode()
    unknown = client.get("/models/compare/?model=hawk&model=nobody")
    assert unknown.status_code == 400 and "'nobody' is not a registered model" in unescape(unknown.content.decode())
    assert client.get("/models/compare/?model=hawk&model=hawk").status_code == 400  # the same model twice is one
    assert client.get("/models/compare/differences.csv?model=hawk").status_code == 400
    assert client.get("/models/compare/?model=a%00b&model=hawk").status_code == 400
    api = client.get("/api/profiles/nobody/")
    assert api.status_code == 404 and "nobody" in api.json()["detail"]
    api = client.get("/api/profiles/compare/?model=hawk")
    assert api.status_code == 400 and "pick two models or more" in api.json()["model"][0]


def test_only_analysts_read_profiles(client, outsider, three_families, inline):
    assert client.get("/api/profiles/hawk/").status_code == 401
    signed_in(client, outsider)
    assert client.get("/models/hawk/").status_code == 403
    assert client.get("/api/profiles/hawk/").status_code == 403
    assert client.get("/models/compare/?model=hawk&model=dove").status_code == 403


def test_the_page_shows_a_placeholder_until_the_worker_has_computed_the_figures(
        client, analyst, three_families, worker, django_capture_on_commit_callbacks, monkeypatch):
    client = signed_in(client, analyst)
    published = []
    for item in headlines.publishers():  # no family computes inside a request
        def guarded(models=None, publish=item.publish):
            assert worker_running, "a family's figures were computed inside the request"
            published.append(models)
            return publish(models)
        monkeypatch.setitem(headlines._PUBLISHERS, item.family, item.__class__(
            **{**item.__dict__, "publish": guarded}))
    worker_running = False

    def get(url):
        with django_capture_on_commit_callbacks(execute=True):  # the enqueue runs at commit
            return client.get(url)

    first = get("/models/hawk/").content.decode()
    assert "Computing…" in first and 'id="figures-waiting"' in first
    assert get("/api/profiles/hawk/").json()["state"] == "computing"
    assert get("/models/hawk/figures.csv").status_code == 202
    listed = get("/models/").content.decode()  # no figure counted yet is not "no answers"
    assert "Computing…" in listed and "no answers yet" not in listed
    assert len(worker.queued) == 1  # asked once, whatever the number of pages waiting
    worker_running = True
    worker.run()
    worker_running = False
    assert published == [None, None, None]  # each family once, every model
    done = get("/models/hawk/").content.decode()
    assert "Computing…" not in done and "Headline figures computed by the worker at" in done
    # A new answer: the figures shown are the earlier ones, labelled, while the worker counts again.
    Response.objects.create(run=Run.objects.get(note="demo-like"), question=Question.objects.filter(
        benchmark__name="demo-like").first(), model=LLMModel.objects.get(name="owl"), repeat=5, status="done",
        raw_output="A", option_order=[0, 1])
    stale = get("/models/hawk/").content.decode()
    assert "Newer answers are being counted" in stale and "1 of 2" in stale
    assert ComputedFigure.objects.filter(kind=headlines.KIND).count() == 2  # the one shown and the one asked for


def test_a_family_that_fails_is_named_and_the_others_still_show(client, analyst, three_families, inline,
                                                                monkeypatch):
    def broken(models=None):
        raise RuntimeError("the table is gone")

    original = headlines.publisher("borderlines")
    monkeypatch.setitem(headlines._PUBLISHERS, "borderlines", original.__class__(
        **{**original.__dict__, "publish": broken}))
    html = signed_in(client, analyst).get("/models/hawk/").content.decode()
    assert "could not be computed: RuntimeError: the table is gone" in html
    assert "1 of 2" in html  # the crisis figures are there


def test_model_names_link_to_their_profiles_for_analysts(client, analyst, three_families, inline):
    from analysis_app.templatetags.profiles import model_link

    class Reader:
        def __init__(self, allowed):
            self.allowed = allowed

        def has_perm(self, permission):
            return self.allowed

    assert model_link({"user": Reader(True)}, "hawk") == '<a class="model-link" href="/models/hawk/">hawk</a>'
    assert model_link({"user": Reader(False)}, "hawk") == "hawk"
    assert model_link({}, "a<b") == '<a class="model-link" href="/models/a%3Cb/">a&lt;b</a>'
    html = signed_in(client, analyst).get("/models/").content.decode()
    assert '<a class="model-link" href="/models/hawk/">hawk</a>' in html
    link = '<td><a class="model-link" href="/models/hawk/">hawk</a></td>'
    for dashboard in ("/analysis/cfpd/", "/analysis/territories/", "/analysis/crisis/?benchmark=crisis-sample"):
        assert link in client.get(dashboard).content.decode(), dashboard  # the panels' tables link models


def test_a_model_registered_as_rows_per_answer_mode_has_one_profile(client, analyst, three_families, inline):
    """hawk (choice) and hawk-text (generate, the same address) are one model: its profile,
    at hawk's address, has both rows' figures, each naming its row; hawk-text's address
    redirects there. owl (generate) is ranked among generate rows only: with hawk-text,
    not with hawk or dove (choice)."""
    text = LLMModel.objects.create(name="hawk-text", litellm_model="openai/hawk", answer_mode="generate")
    LLMModel.objects.create(name="owl-2", litellm_model="openai/owl", answer_mode="generate")  # no answers
    owl = LLMModel.objects.get(name="owl")
    # hawk-text answers as owl did in the CFPD fixture: a copy of owl's answers.
    fields = [f.attname for f in Response._meta.concrete_fields if f.attname != "id"]
    Response.objects.bulk_create([Response(**{**{name: getattr(r, name) for name in fields}, "model_id": text.pk})
                                  for r in Response.objects.filter(model=owl)])
    for run in Run.objects.filter(llm_models=owl):
        run.llm_models.add(text)
    client = signed_in(client, analyst)

    moved = client.get("/models/hawk-text/?x=1")
    assert moved.status_code == 302 and moved["Location"] == "/models/hawk/?x=1"
    assert client.get("/models/owl-2/")["Location"] == "/models/owl/"
    html = client.get("/models/hawk/").content.decode()
    assert 'id="model-rows"' in html and "<strong>hawk-text</strong> (generate)" in html
    assert 'href="/analysis/cfpd/?model=hawk-text"' in html and 'href="/analysis/cfpd/?model=hawk"' in html

    profile = client.get("/api/profiles/hawk-text/").json()  # any row's name: the whole model
    assert profile["model"] == "hawk" and profile["rows"] == [{"name": "hawk", "kind": "choice"},
                                                              {"name": "hawk-text", "kind": "generate"}]
    cfpd = family(profile, "cfpd")["figures"]
    mine = {(f["model"], f["kind"]) for f in cfpd}
    assert mine == {("hawk", "choice"), ("hawk-text", "generate")}
    # Same answers, same estimates: hawk-text's figures are owl's, and each ranks 1 or 2 of 2 (owl and it).
    owls = {f["metric"]: f for f in family(client.get("/api/profiles/owl/").json(), "cfpd")["figures"]}
    for figure in (f for f in cfpd if f["model"] == "hawk-text"):
        assert figure["estimate"] == owls[figure["metric"]]["estimate"]
        assert figure["of"] == 2 and figure["others_median"] == owls[figure["metric"]]["estimate"]
    for figure in (f for f in cfpd if f["model"] == "hawk"):
        assert figure["of"] == 2  # hawk and dove (choice); owl and hawk-text are not ranked with them

    # Compared with owl: only generate-mode figures are set side by side (hawk-text's against owl's).
    payload = client.get("/api/profiles/compare/?model=owl&model=hawk").json()
    assert payload["models"] == ["owl", "hawk"]
    differences = family(payload, "cfpd")["differences"]
    assert differences and {(d["model_a"], d["model_b"], d["kind"]) for d in differences} == {
        ("owl", "hawk-text", "generate")}
    assert all(d["difference"] == 0 for d in differences)
    assert family(payload, "borderlines")["differences"] == []  # hawk's are choice mode, owl has none
    page = client.get("/models/compare/?model=owl&model=hawk").content.decode()
    assert "<td>generate</td>" in page
    one = client.get("/models/compare/?model=hawk&model=hawk-text")
    assert one.status_code == 400 and "rows of one model (hawk)" in unescape(one.content.decode())
    index = client.get("/models/").content.decode()
    assert 'href="/models/hawk-text/"' not in index and "with hawk-text" in index
