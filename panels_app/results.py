"""What a panel's page shows analysts: how many came, finished and were excluded, each
question's answers, and how close each model stands to the panel on the questions both
answered (1 − Jensen–Shannon distance, analysis_app.metrics.alignment). People's answers
are read from this room's table only; a model's from the run engine's, never mixed."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from analysis_app.metrics import alignment as metrics
from benchmarks_app import families
from benchmarks_app.lettering import option_letters
from benchmarks_app.models import Question
from runs_app.models import Response

from .models import Panel, PanelAnswer, ReferenceShare, Respondent

RESULTS_PERMISSION = "panels_app.view_panel_results"


@dataclass(frozen=True)
class QuestionRow:
    question: Question
    answers: int
    counts: list[tuple[str, str, int]]  # (canonical letter, option text, count)


@dataclass(frozen=True)
class ModelRow:
    model: str
    similarity: float | None
    ci_low: float | None
    ci_high: float | None
    n_questions: int


@dataclass(frozen=True)
class PanelResults:
    links: int
    withdrawn: int
    consented: int
    finished: int
    excluded: int
    kept_answers: int
    questions: list[QuestionRow]
    models: list[ModelRow]
    ceiling: float | None
    alpha: float | None = None  # Krippendorff's α (nominal) among the respondents kept


def kept_answers(panel: Panel):
    """The panel's answers to its questions that count: answered, by respondents who failed
    no attention check."""
    return PanelAnswer.objects.filter(respondent__panel=panel, question__isnull=False, answered_at__isnull=False,
                                      respondent__failed_checks=0)


def people_by_question(panel: Panel) -> dict[int, dict[int, str]]:
    """{question id: {respondent id: canonical letter}} of the answers kept."""
    found: dict[int, dict[int, str]] = defaultdict(dict)
    for qid, rid, code in kept_answers(panel).values_list("question_id", "respondent_id", "code"):
        found[qid][rid] = code
    return dict(found)


def model_label(name: str, condition: str | None) -> str:
    """A model's row: its name, with the condition it answered under unless the default
    (a prompted perspective, a strategy, a temperature: each its own row, never pooled)."""
    return name if not condition or condition == "default" else f"{name} [{condition}]"


def models_by_question(question_ids) -> dict[str, dict[int, list[str]]]:
    """{model (and condition, model_label): {question id: codes over its repeats}}: the models'
    coded answers."""
    found: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    rows = (Response.objects.filter(question_id__in=question_ids, status=Response.Status.DONE).exclude(code="")
            .values_list("model__name", "condition__name", "question_id", "code"))
    for name, condition, qid, code in rows:
        found[model_label(name, condition)][qid].append(code)
    return found


def reference_shares(panel: Panel) -> dict[int, tuple[dict[str, float], int]]:
    """{question id: ({canonical letter: share}, n)} of a reference imported as shares."""
    found: dict[int, tuple[dict[str, float], int]] = {}
    for qid, code, share, n in ReferenceShare.objects.filter(panel=panel).values_list("question_id", "code", "share",
                                                                                      "n"):
        found.setdefault(qid, ({}, n))[0][code] = share
    return found


def panel_answers(panel: Panel) -> tuple[dict[int, list[str] | dict[str, float]], dict[int, dict[int, str]]]:
    """(what the panel answered, as `alignment` reads it: {question id: letters of its people,
    or {letter: share} for a reference of shares}; its people's answers by respondent, for the
    ceiling: empty for a reference of shares, which names nobody)."""
    shares = reference_shares(panel)
    if shares:
        return {qid: given for qid, (given, _) in shares.items()}, {}
    people = people_by_question(panel)
    return {qid: list(by.values()) for qid, by in people.items()}, people


def panel_results(panel: Panel) -> PanelResults:
    respondents = Respondent.objects.filter(panel=panel)
    questions = list(Question.objects.filter(pk__in=panel.panel_questions.values("question_id")).order_by("key"))
    people = people_by_question(panel)
    shares = reference_shares(panel)
    options = {q.pk: option_letters(len(q.options)) for q in questions}
    rows = []
    for question in questions:
        counted = Counter(people.get(question.pk, {}).values())
        if question.pk in shares:  # a reference of shares: its people counted as share × n
            given, n = shares[question.pk]
            counted = Counter({letter: round(share * n) for letter, share in given.items()})
        texts = question.option_texts()
        rows.append(QuestionRow(question, sum(counted.values()),
                                [(letter, texts[i], counted.get(letter, 0)) for i, letter in
                                 enumerate(options[question.pk])]))
    family = families.family(panel.benchmark.family)
    cluster_of = family.balance_groups(list(options)) if family.balance_groups else {}
    answered_by_panel, _ = panel_answers(panel)
    model_rows = []
    for name, answered in sorted(models_by_question(list(options)).items()):
        found = metrics.alignment(answered, answered_by_panel, options, cluster_of=cluster_of, seed=panel.seed)
        model_rows.append(ModelRow(name, found.similarity, found.ci_low, found.ci_high, found.n_questions))
    model_rows.sort(key=lambda row: (row.similarity is None, -(row.similarity or 0), row.model))
    return PanelResults(
        links=respondents.count(),
        withdrawn=respondents.filter(withdrawn_at__isnull=False).count(),
        consented=respondents.filter(consented_at__isnull=False).count(),
        finished=respondents.filter(finished_at__isnull=False).count(),
        excluded=respondents.filter(failed_checks__gt=0).count(),
        kept_answers=sum(row.answers for row in rows),
        questions=rows,
        models=model_rows,
        ceiling=metrics.ceiling(people, options, seed=panel.seed) if people else None,
        alpha=metrics.respondents_alpha(people) if people else None,
    )


# --- alignment per model and panel, per domain and choice count (reference_report, the API,
# the Models and people page) ----------------------------------------------------------------

REPORT_COLUMNS = ("model", "panel", "domain", "choice_count", "similarity", "ci_low", "ci_high", "n_questions",
                  "ceiling")


@dataclass(frozen=True)
class AlignmentRow:
    """A model's similarity to a panel over the questions both answered: overall (domain ""
    and choice_count None), within one domain (choice_count None) or within one choice count
    (domain ""); `ceiling` the panel's own over the same questions (None for a reference of
    shares, which names no respondents, or with fewer than two)."""

    model: str
    panel: str
    domain: str
    choice_count: int | None
    similarity: float | None
    ci_low: float | None
    ci_high: float | None
    n_questions: int
    ceiling: float | None
    panel_kind: str = Panel.Kind.INVITED
    per_question: dict = None  # {question id: similarity}, for the page's disagreements

    def as_csv(self) -> list:
        return [self.model, self.panel, self.domain, "" if self.choice_count is None else self.choice_count,
                *("" if v is None else round(v, 6) for v in (self.similarity, self.ci_low, self.ci_high)),
                self.n_questions, "" if self.ceiling is None else round(self.ceiling, 6)]

    def as_dict(self) -> dict:
        return dict(zip(REPORT_COLUMNS, (self.model, self.panel, self.domain, self.choice_count, self.similarity,
                                         self.ci_low, self.ci_high, self.n_questions, self.ceiling)))


def question_domains(questions, family_name: str) -> dict[int, str]:
    """{question id: its domain} as its family names it ("" where the family has none)."""
    return {q.pk: str(families.sample_metadata(q, family_name).get("domain", "") or "") for q in questions}


def alignment_rows(benchmark, panel: str | None = None, model: str | None = None) -> list[AlignmentRow]:
    """Each model's similarity to each panel of `benchmark` (or only panel / model named):
    for each panel and model its overall row, then one per domain and one per choice count,
    with the cluster interval (scenarios: the family's balance groups) and the panel's
    ceiling over the same questions. Models without an answer to the panel's questions have
    no rows."""
    panels = Panel.objects.filter(benchmark=benchmark).order_by("name")
    if panel is not None:
        panels = panels.filter(name=panel)
    family = families.family(benchmark.family)
    rows: list[AlignmentRow] = []
    for found_panel in panels:
        questions = list(Question.objects.filter(pk__in=found_panel.panel_questions.values("question_id")))
        options = {q.pk: option_letters(len(q.options)) for q in questions}
        domains = question_domains(questions, benchmark.family)
        counts = {q.pk: q.choice_count for q in questions}
        cluster_of = family.balance_groups(list(options)) if family.balance_groups else {}
        answered_by_panel, people = panel_answers(found_panel)
        subsets: list[tuple[str, int | None, set[int]]] = [("", None, set(options))]
        subsets += [(d, None, {q for q in options if domains[q] == d}) for d in sorted(set(domains.values())) if d]
        subsets += [("", c, {q for q in options if counts[q] == c}) for c in sorted(set(counts.values()))]
        ceilings = {}
        for domain, count, ids in subsets:
            within = {q: by for q, by in people.items() if q in ids}
            ceilings[(domain, count)] = (metrics.ceiling(within, options, seed=found_panel.seed)
                                         if within else None)
        answered_by_models = models_by_question(list(options))
        names = sorted(answered_by_models) if model is None else \
            [m for m in sorted(answered_by_models) if m == model or m.startswith(f"{model} [")]
        for name in names:
            answered = answered_by_models[name]
            for domain, count, ids in subsets:
                found = metrics.alignment({q: a for q, a in answered.items() if q in ids},
                                          {q: a for q, a in answered_by_panel.items() if q in ids}, options,
                                          cluster_of=cluster_of, seed=found_panel.seed)
                if domain or count is not None:
                    if found.n_questions == 0:
                        continue  # a domain or choice count the two have no question of in common
                rows.append(AlignmentRow(name, found_panel.name, domain, count, found.similarity, found.ci_low,
                                         found.ci_high, found.n_questions, ceilings[(domain, count)],
                                         found_panel.kind, found.per_question))
    return rows


class ReportInvalid(ValueError):
    """Bad parameters of the alignment report: {parameter: message}."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{key}: {message}" for key, message in errors.items()))


def read_report_params(benchmark, panel=None, model=None):
    """(Benchmark, panel name or None, model name or None) of untrusted parameters;
    ReportInvalid names each bad one."""
    from benchmarks_app.models import Benchmark
    from runs_app.models import LLMModel

    errors: dict[str, str] = {}
    found = None
    for key, value in (("benchmark", benchmark), ("panel", panel), ("model", model)):
        if value is not None and (not isinstance(value, str) or not value or len(value) > 200 or "\x00" in value):
            errors[key] = "must be a name of 1 to 200 characters"
    if "benchmark" not in errors:
        if benchmark is None:
            errors["benchmark"] = "required: the benchmark whose panels to compare"
        else:
            found = Benchmark.objects.filter(name=benchmark).first()
            if found is None:
                errors["benchmark"] = f"no benchmark named {benchmark!r}"
    if found is not None and panel is not None and "panel" not in errors:
        if not Panel.objects.filter(benchmark=found, name=panel).exists():
            names = ", ".join(Panel.objects.filter(benchmark=found).values_list("name", flat=True)[:20]) or "none"
            errors["panel"] = f"no panel named {panel!r} on benchmark {benchmark!r} (its panels: {names})"
    if model is not None and "model" not in errors and not LLMModel.objects.filter(name=model).exists():
        errors["model"] = f"no model named {model!r}"
    if errors:
        raise ReportInvalid(errors)
    return found, panel, model
