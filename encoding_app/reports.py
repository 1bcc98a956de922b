"""What the encoding pages and commands show: coding state counts, agreement between
coders, and the audit of the automatic encoder. Queries here; the statistics come from
the pure `agreement` module."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from django.db.models import Case, CharField, Count, Q, Value, When

from runs_app.models import Response

from .agreement import MIN_ITEMS, krippendorff_alpha, pair_agreement, too_few, wilson_interval
from .audits import RuleAudit, coded_responses, rule_audits
from .filters import Filters
from .models import Code, ReviewTask, RuleStatus, Source

STATES = ["choice", "auto", "judge", "reviewer", "adjudication", "unresolved", "missing", "pending"]
STATE_LABELS = {"choice": "Choice mode", "auto": "Automatic rule", "judge": "Promoted judge", "reviewer": "Reviewer",
                "adjudication": "Adjudicated", "unresolved": "With reviewers", "missing": "Missing",
                "pending": "Not answered yet"}
# The overview's column heads: soft hyphens (U+00AD) where a long word may break, so that
# twelve columns fit a card at 1,366 px without splitting words at random letters.
STATE_HEADERS = {**STATE_LABELS, "auto": "Auto\u00admatic rule", "judge": "Pro\u00admoted judge",
                 "adjudication": "Adjudi\u00adcated", "unresolved": "With review\u00aders",
                 "pending": "Not an\u00adswered yet"}
NOT_ANSWERED = Q(status__in=[Response.Status.PENDING, Response.Status.RUNNING])


def coding_state():
    """Each response's state: its code's source; unresolved while a reviewer has still to
    code it; pending while not answered; otherwise missing (a failed or cancelled call, an
    empty answer): never coded, never R."""
    return Case(
        When(~Q(code=""), then="code_source"),
        When(NOT_ANSWERED, then=Value("pending")),
        When(code_source="unresolved", then=Value("unresolved")),
        default=Value("missing"), output_field=CharField())


def state_counts(filters: Filters = Filters()) -> list[dict]:
    """Per run and model: how many answers are in each state."""
    rows = (coded_responses(filters).annotate(state=coding_state())
            .values("run_id", "model__name", "state").annotate(n=Count("id")).order_by("run_id", "model__name"))
    table: dict[tuple, dict] = {}
    for row in rows:
        entry = table.setdefault((row["run_id"], row["model__name"]),
                                 {"run": row["run_id"], "model": row["model__name"], "total": 0,
                                  **{state: 0 for state in STATES}})
        entry[row["state"]] = entry.get(row["state"], 0) + row["n"]
        entry["total"] += row["n"]
    for entry in table.values():
        answered = entry["total"] - entry["missing"] - entry["pending"]
        entry["auto_share"] = (entry["choice"] + entry["auto"] + entry["judge"]) / answered if answered else None
    return list(table.values())


def rule_shares(filters: Filters = Filters()) -> list[dict]:
    """Answers by how they were coded: current automatic codes by rule, reviewers' items by
    the encoder's reason, and missing answers; with shares of all answers."""
    responses = coded_responses(filters)
    total = responses.count()
    rows = Counter()
    current = Code.objects.filter(is_current=True, response__in=responses)
    for row in current.values("source", "rule").annotate(n=Count("id")):
        rows[(row["source"], row["rule"] or "—")] += row["n"]
    open_primary = ReviewTask.objects.filter(purpose=ReviewTask.Purpose.PRIMARY, status=ReviewTask.Status.OPEN,
                                             response__in=responses)
    for row in open_primary.values("reason").annotate(n=Count("id")):
        rows[("unresolved", row["reason"] or "unresolved")] += row["n"]
    uncoded = dict(responses.filter(code="").annotate(state=coding_state()).values("state")
                   .annotate(n=Count("id")).values_list("state", "n"))
    rows[("missing", "failed or empty")] += uncoded.get("missing", 0)
    rows[("pending", "not answered yet")] += uncoded.get("pending", 0)
    return [{"source": source, "label": STATE_LABELS.get(source, source), "rule": rule, "n": n,
             "share": n / total if total else 0, "percent": round(100 * n / total, 1) if total else 0}
            for (source, rule), n in sorted(rows.items(), key=lambda item: (STATES.index(item[0][0]), -item[1]))
            if n]


# ---------------------------------------------------------------- agreement

@dataclass
class AgreementRow:
    label: str
    n: int
    agree: int
    percent: float | None
    kappa: float | None
    alpha: float | None = None
    coders: int = 2
    kappa_interval: tuple[float, float] | None = None
    min_items: int = MIN_ITEMS

    @property
    def too_few(self) -> bool:
        return too_few(self.n)

    @property
    def percent_interval(self):
        return wilson_interval(self.agree, self.n)


@dataclass
class AgreementReport:
    pairs: list[AgreementRow] = field(default_factory=list)
    models: list[AgreementRow] = field(default_factory=list)
    overall: AgreementRow | None = None
    units: int = 0


def _reviewer_codes(filters: Filters):
    """{response_id: {coder: code}} for answers coded by two or more reviewers (first and
    blind second codes, audits are the audit page's); the latest code per coder counts."""
    codes = (Code.objects.filter(source=Source.REVIEWER, undone_at__isnull=True,
                                 task__purpose__in=[ReviewTask.Purpose.PRIMARY, ReviewTask.Purpose.SECOND],
                                 response__in=coded_responses(filters))
             .values_list("response_id", "response__model__name", "coder__username", "code").order_by("id"))
    units: dict[int, dict[str, str]] = defaultdict(dict)
    model_of = {}
    for response_id, model, coder, code in codes:
        units[response_id][coder] = code
        model_of[response_id] = model
    units = {rid: coders for rid, coders in units.items() if len(coders) >= 2}
    return units, model_of


def _row(label, units: dict) -> AgreementRow:
    first = [list(codes.values())[0] for codes in units.values()]
    second = [list(codes.values())[1] for codes in units.values()]
    pair = pair_agreement(first, second)
    coders = len({coder for codes in units.values() for coder in codes})
    alpha = krippendorff_alpha(units) if coders > 2 else None
    return AgreementRow(label, pair.n, pair.agree, pair.percent, pair.kappa, alpha, coders, pair.kappa_interval)


def agreement(filters: Filters = Filters()) -> AgreementReport:
    units, model_of = _reviewer_codes(filters)
    report = AgreementReport(units=len(units))
    if not units:
        return report
    by_pair: dict[tuple, dict] = defaultdict(dict)
    for rid, codes in units.items():
        for a, b in combinations(sorted(codes), 2):
            by_pair[(a, b)][rid] = {a: codes[a], b: codes[b]}
    report.pairs = [_row(f"{a} & {b}", pair_units) for (a, b), pair_units in sorted(by_pair.items())]
    by_model: dict[str, dict] = defaultdict(dict)
    for rid, codes in units.items():
        by_model[model_of[rid]][rid] = codes
    report.models = [_row(model, model_units) for model, model_units in sorted(by_model.items())]
    report.overall = _row("All answers", units)
    return report


# ---------------------------------------------------------------- audit of the automatic encoder

def audit(filters: Filters = Filters()) -> list[RuleAudit]:
    """Automatic and promoted judges' codes against people's on the audited sample, per rule
    with its status (coding or suspended), then all rules together."""
    rules = rule_audits(filters)
    statuses = {status.rule: status for status in RuleStatus.objects.all()}
    for rule in rules:
        rule.status = statuses.get(rule.rule)
    # Suspended rules with no audit in this filter are still listed: the page says so.
    rules += [RuleAudit(rule, 0, 0, Counter(), status) for rule, status in statuses.items()
              if status.suspended and rule not in {r.rule for r in rules}]
    if rules:
        total = RuleAudit("all rules", sum(r.n for r in rules), sum(r.correct for r in rules), Counter())
        for r in rules:
            total.confusion.update(r.confusion)
        rules.append(total)
    return rules


def queue_progress(filters: Filters = Filters(), queue: str = "review") -> dict:
    purposes = [ReviewTask.Purpose.ADJUDICATION] if queue == "adjudication" else \
        [ReviewTask.Purpose.PRIMARY, ReviewTask.Purpose.SECOND, ReviewTask.Purpose.AUDIT]
    tasks = filters.apply(ReviewTask.objects.filter(purpose__in=purposes))
    counts = dict(tasks.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    done, left = counts.get(ReviewTask.Status.DONE, 0), counts.get(ReviewTask.Status.OPEN, 0)
    return {"done": done, "left": left, "total": done + left}
