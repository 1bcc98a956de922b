"""Concurrence scores of territorial-dispute answers (BorderLines, paper 003, section 5.2).

A territory has claimants (ordered), a controller (a claimant, or None for "Unknown") and
each claimant's language. It is asked once per claimant language (a language shared by
two claimants is asked once) and once in English as the control. A model's answer is
resolved to a claimant code, or None when it could not be resolved.

Inputs
------
answers: one row per answer, columns
    model, strategy, repeat, territory, language, answer_claimant (code or None/NaN).
    One row per (model, strategy, repeat, territory, language): the English row is the
    control, and when English is also a claimant's language that same row is that
    claimant's in-language answer as well (there is one English question, not two).
territories: one row per territory, columns
    territory, controller (code or None), claimants (ordered list of codes),
    claimant_languages (mapping claimant -> language code; a claimant missing from the
    mapping, or mapped to None, has no question in its language).
Rows the definitions cannot place (an unknown territory, a language that is neither "en"
nor a claimant's, an answer that is not a claimant, a second answer to one question, a
controller outside the claimants) raise ValueError naming the row and the fix.

API: concurrence_table(answers, territories, iterations, seed) -> one row per (model,
strategy); case_view(answers, territories, territory=, model=, strategy=) -> one row per
question; territory_scores(answers, territories) -> the per-territory values both rest on.

Scores, per (model, strategy, repeat) over the territories asked, in percent
----------------------------------------------------------------------------
Let t be a territory, k its controller, L(c) a claimant's language, a(l) the resolved
answer to the question in language l. "In-language" languages are the distinct L(c)
of the claimants; English ("en") is among them only when it is some claimant's language.

- KB CS: over known-k territories with a resolved English answer, share with a(en) = k.
- Control CS: over known-k territories with a resolved answer in L(k), share with
  a(L(k)) = k. Territories with no question in L(k) (no language, or no row) are left out
  and counted (n_no_control_question); an unresolved a(L(k)) is left out as unresolved.
- Non-control CS: for each known-k territory, the share of its resolved answers in the
  in-language languages other than L(k) that equal k; then the mean over the territories
  with at least one such answer (the paper's per-territory average over non-controllers,
  Table 3, counted per question rather than per claimant since a shared language is one
  question).
- ΔCS = 100 * (Control - Non-control) / Non-control (relative, percent of Non-control);
  delta_cs_abs = Control - Non-control (points). With Non-control = 0, ΔCS is +inf
  (Control > 0; "approaches infinity" in the paper) or NaN (Control = 0).
- Consistency CS: for each territory, the share of agreeing pairs among its resolved
  in-language answers (the English control only when English is a claimant language);
  the mean over territories with at least two. consistency_cs uses every territory,
  consistency_cs_unknown only those with controller None.
- mean_countries: the mean number of distinct claimants named by the resolved
  in-language answers, over territories with at least one; mean_countries_with_control
  adds the English control answer (1 for a fully consistent model).

Choices where the definition leaves room
----------------------------------------
- A language shared by the controller and a non-controller (e.g. two Arabic-speaking
  claimants) is the controller's language: its single answer is the territory's Control
  answer and is not a Non-control answer, since the question a controller-speaker would
  ask is exactly that one. If every claimant shares the controller's language, the
  territory has no Non-control answers and drops out of Non-control CS (n_shared_control
  counts known territories whose controller's language is shared).
- Claimants that all share one language give one in-language answer: such a territory
  has no pair for Consistency and names at most one country without the control.
- English as a claimant's language: the English answer serves as KB answer and as that
  claimant's in-language answer (Control if the claimant is the controller, Non-control
  otherwise, and in Consistency).
- Unresolved answers (None) leave every denominator they would enter and are counted
  (n_unresolved, over all repeats). A missing row is a question not asked: it is not an
  unresolved answer.
- ΔCS (relative and absolute) is computed within each repeat from that repeat's Control
  and Non-control CS, which may rest on different sets of territories (each score keeps
  its own denominator, as in the paper), then averaged over repeats like every score.

Random baseline: a model answering each question uniformly at random among the
territory's n claimants names any given claimant with chance 1/n, and two independent
answers agree with chance sum_c (1/n)^2 = 1/n. So the expected per-territory value is
1/n for KB, Control and Non-control (each answer is the controller w.p. 1/n, and a mean
of such shares has expectation 1/n) and for Consistency (each pair agrees w.p. 1/n);
m answers name on average n * (1 - (1 - 1/n)^m) distinct claimants. Each random_<score>
column averages these expectations over exactly the territories (and answers) that
entered <score>, so score and baseline compare like with like. A random model's ΔCS is
about 0 (slightly above on small tables: the mean of a ratio is not the ratio of means),
so no random ΔCS column. random_baseline is the paper's single "Random" figure: the mean
of 100/n over the known-controller territories asked.

Repeats and intervals: every score is computed per repeat, then reported as the mean
over repeats with the sample sd (ddof=1; NaN for one repeat). 95% CIs are percentile
bootstrap intervals over territories: one index matrix rng.integers(0, n, (iterations, n))
over the territories asked (sorted by name, so row order never matters) resamples the
same territories in every repeat and for every score at once (so ΔCS is recomputed from
the same resample's Control and Non-control); a resample's statistic is the mean over
repeats, as for the point value. Resamples where a score is undefined (e.g. no Unknown
territory drawn) are left out of its percentiles. Each (model, strategy) draws from its
own generator seeded from `seed` and the pair's names, so adding a model moves nothing.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

CONTROL_LANGUAGE = "en"
CONFIDENCE = 0.95
ANSWER_COLUMNS = ["model", "strategy", "repeat", "territory", "language", "answer_claimant"]
TERRITORY_COLUMNS = ["territory", "controller", "claimants", "claimant_languages"]
GROUP = ["model", "strategy"]

# Per-territory values: the name in territory_scores -> the score it feeds (x100 for CS).
CS_SCORES = {"kb": "kb_cs", "control": "control_cs", "non_control": "non_control_cs",
             "consistency": "consistency_cs", "consistency_unknown": "consistency_cs_unknown"}
COUNT_SCORES = {"countries": "mean_countries", "countries_with_control": "mean_countries_with_control"}
SCORES = ["kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs", "consistency_cs",
          "consistency_cs_unknown", "mean_countries", "mean_countries_with_control"]
RANDOM_SCORES = [f"random_{score}" for score in [*CS_SCORES.values(), *COUNT_SCORES.values()]]
COUNTS = ["n_kb", "n_control", "n_non_control", "n_consistency", "n_consistency_unknown",
          "n_no_control_question", "n_shared_control"]


@dataclass(frozen=True)
class Territory:
    name: str
    controller: str | None
    claimants: tuple[str, ...]
    language_of: Mapping[str, str | None]

    @cached_property  # asked once per answer row when checking the answers
    def languages(self) -> tuple[str, ...]:
        """The distinct claimant languages, in claimant order (one question each)."""
        seen: dict[str, None] = {}
        for claimant in self.claimants:
            language = self.language_of.get(claimant)
            if language is not None:
                seen.setdefault(language, None)
        return tuple(seen)

    @property
    def controller_language(self) -> str | None:
        return None if self.controller is None else self.language_of.get(self.controller)

    def speakers(self, language: str) -> tuple[str, ...]:
        return tuple(c for c in self.claimants if self.language_of.get(c) == language)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def read_territories(territories: pd.DataFrame) -> dict[str, Territory]:
    """Validated territory specs by name; a bad row raises ValueError naming it and the fix."""
    absent = [c for c in TERRITORY_COLUMNS if c not in territories.columns]
    if absent:
        raise ValueError(f"territories table lacks column(s) {absent}; expected {TERRITORY_COLUMNS}")
    specs: dict[str, Territory] = {}
    for position, row in enumerate(territories[TERRITORY_COLUMNS].itertuples(index=False)):
        where = f"territories row {position} ({row.territory!r})"
        if row.territory in specs:
            raise ValueError(f"{where}: territory is listed twice; keep one row per territory")
        claimants = tuple(row.claimants) if not _missing(row.claimants) else ()
        if not claimants or len(set(claimants)) != len(claimants):
            raise ValueError(f"{where}: claimants must be a non-empty list without repeats, got {row.claimants!r}")
        controller = None if _missing(row.controller) else row.controller
        if controller is not None and controller not in claimants:
            raise ValueError(f"{where}: controller {controller!r} is not among the claimants {list(claimants)}; "
                             "add it to the claimants or set the controller to None (Unknown)")
        languages = {} if _missing(row.claimant_languages) else dict(row.claimant_languages)
        strangers = set(languages) - set(claimants)
        if strangers:
            raise ValueError(f"{where}: claimant_languages names non-claimants {sorted(strangers)}")
        specs[row.territory] = Territory(row.territory, controller, claimants,
                                         {c: (None if _missing(v) else v) for c, v in languages.items()})
    return specs


def _check_answers(answers: pd.DataFrame, specs: Mapping[str, Territory]) -> pd.DataFrame:
    absent = [c for c in ANSWER_COLUMNS if c not in answers.columns]
    if absent:
        raise ValueError(f"answers table lacks column(s) {absent}; expected {ANSWER_COLUMNS}")
    answers = answers[ANSWER_COLUMNS].reset_index(drop=True)
    keys = ANSWER_COLUMNS[:-1]
    duplicated = answers.duplicated(keys, keep="first")
    if duplicated.any():
        row = answers[duplicated].iloc[0]
        raise ValueError(f"answers row {int(answers[duplicated].index[0])}: a second answer for "
                         f"{dict(row[keys])}; keep one row per question and repeat")
    for position, row in enumerate(answers.itertuples(index=False)):
        spec = specs.get(row.territory)
        if spec is None:
            raise ValueError(f"answers row {position}: territory {row.territory!r} is not in the territories table")
        if row.language != CONTROL_LANGUAGE and row.language not in spec.languages:
            raise ValueError(f"answers row {position}: language {row.language!r} is neither the English control nor "
                             f"a claimant language of {row.territory!r} {list(spec.languages)}")
        if not _missing(row.answer_claimant) and row.answer_claimant not in spec.claimants:
            raise ValueError(f"answers row {position}: answer_claimant {row.answer_claimant!r} is not a claimant of "
                             f"{row.territory!r} {list(spec.claimants)}; resolve it to a claimant or to None")
    return answers


def _agreeing_pair_share(values: list[str]) -> float:
    """Share of agreeing pairs; unordered pairs give the paper's 1/(n(n-1)) sum over i != j."""
    m = len(values)
    agreeing = sum(count * (count - 1) // 2 for count in Counter(values).values())
    return agreeing / (m * (m - 1) // 2)


def _expected_distinct(n: int, m: int) -> float:
    return n * (1 - (1 - 1 / n) ** m) if m else math.nan


def _territory_row(spec: Territory, asked: Mapping[str, str | None]) -> dict:
    """Per-territory values of one pass; `asked` maps language -> answer (None unresolved)."""
    nan = math.nan
    n = len(spec.claimants)
    k = spec.controller
    known = k is not None
    k_language = spec.controller_language
    in_language = {l: asked[l] for l in spec.languages if l in asked}
    resolved = [a for a in in_language.values() if a is not None]
    control = asked.get(CONTROL_LANGUAGE)
    with_control = resolved + ([control] if control is not None and CONTROL_LANGUAGE not in in_language else [])
    others = [a for l, a in in_language.items() if l != k_language and a is not None] if known else []

    kb = float(control == k) if known and control is not None else nan
    control_answer = in_language.get(k_language) if known and k_language is not None else None
    control_cs = float(control_answer == k) if control_answer is not None else nan
    non_control = sum(a == k for a in others) / len(others) if others else nan
    consistency = _agreeing_pair_share(resolved) if len(resolved) >= 2 else nan
    return {
        "territory": spec.name, "known": known, "claimant_count": n,
        "kb": kb, "control": control_cs, "non_control": non_control,
        "consistency": consistency, "consistency_unknown": nan if known else consistency,
        "countries": float(len(set(resolved))) if resolved else nan,
        "countries_with_control": float(len(set(with_control))) if with_control else nan,
        # The random model's expectation over the same territories and answers.
        "random_kb": nan if math.isnan(kb) else 1 / n,
        "random_control": nan if math.isnan(control_cs) else 1 / n,
        "random_non_control": nan if math.isnan(non_control) else 1 / n,
        "random_consistency": nan if math.isnan(consistency) else 1 / n,
        "random_consistency_unknown": nan if math.isnan(consistency) or known else 1 / n,
        "random_countries": _expected_distinct(n, len(resolved)),
        "random_countries_with_control": _expected_distinct(n, len(with_control)),
        "random_baseline": 1 / n if known else nan,
        "n_answers": len(asked),
        "n_unresolved": sum(a is None for a in asked.values()),
        "no_control_question": known and (k_language is None or k_language not in asked),
        "shared_control": known and k_language is not None and len(spec.speakers(k_language)) > 1,
    }


def territory_scores(answers: pd.DataFrame, territories: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, strategy, repeat, territory asked) with the per-territory values.

    Columns kb, control, non_control, consistency, consistency_unknown are shares in 0..1
    (NaN where the territory does not enter that score), countries and
    countries_with_control are counts, random_* the uniform-random expectations, and
    n_answers, n_unresolved, no_control_question, shared_control are bookkeeping.
    """
    specs = read_territories(territories)
    rows = [{"model": model, "strategy": strategy, "repeat": repeat, **_territory_row(specs[territory], asked)}
            for (model, strategy, repeat, territory), asked in _passes(_check_answers(answers, specs)).items()]
    if not rows:  # the columns of a row, from a throwaway territory
        return pd.DataFrame(columns=["model", "strategy", "repeat"] + list(_territory_row(
            Territory("", None, ("x",), {}), {}).keys()))
    return pd.DataFrame(rows)


def _passes(answers: pd.DataFrame) -> dict[tuple, dict[str, str | None]]:
    """(model, strategy, repeat, territory) -> {language: answer or None}, keys sorted.

    Plain dictionaries: a pandas groupby over some 10,000 small groups took seconds.
    """
    passes: dict[tuple, dict[str, str | None]] = {}
    columns = [answers[c] for c in ANSWER_COLUMNS]
    for model, strategy, repeat, territory, language, answer in zip(*columns):
        passes.setdefault((model, strategy, repeat, territory), {})[language] = None if _missing(answer) else answer
    try:
        order = sorted(passes)
    except TypeError:  # mixed types in a key column: any fixed order will do
        order = sorted(passes, key=lambda key: tuple(map(str, key)))
    return {key: passes[key] for key in order}


def group_rng(seed: int, model, strategy) -> np.random.Generator:
    """The generator of one (model, strategy), independent of the other pairs in the table."""
    label = f"{model}\x1f{strategy}".encode()
    return np.random.default_rng([int(seed), zlib.crc32(label)])


def resample_index(n: int, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """(iterations, n) territory positions drawn with replacement."""
    return rng.integers(0, n, size=(iterations, n))


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(values, axis=axis)


def pass_statistics(matrices: Mapping[str, np.ndarray], index: np.ndarray) -> dict[str, np.ndarray]:
    """Scores of each resample (rows of `index`) in each repeat: name -> (resamples, repeats).

    `matrices` maps a per-territory value name to a (territories, repeats) array, NaN where
    the territory does not enter. A score is the mean of its non-NaN values (x100 for CS
    shares). The draws are gathered one column at a time, so memory stays
    (resamples, repeats) and a plain loop over resamples adds in the same order.
    """
    stats = {}
    for name, matrix in matrices.items():
        valid = ~np.isnan(matrix)
        values = np.where(valid, matrix, 0.0)
        total = np.zeros((index.shape[0], matrix.shape[1]))
        count = np.zeros_like(total)
        for draws in index.T:
            total += values[draws]
            count += valid[draws]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / count
        stats[name] = mean
    for name, score in CS_SCORES.items():
        if name in stats:
            stats[score] = 100 * stats.pop(name)
        if f"random_{name}" in stats:
            stats[f"random_{score}"] = 100 * stats.pop(f"random_{name}")
    for name, score in COUNT_SCORES.items():
        if name in stats:
            stats[score] = stats.pop(name)
        if f"random_{name}" in stats:
            stats[f"random_{score}"] = stats.pop(f"random_{name}")
    if "random_baseline" in stats:
        stats["random_baseline"] = 100 * stats["random_baseline"]
    if "control_cs" in stats and "non_control_cs" in stats:
        control, non_control = stats["control_cs"], stats["non_control_cs"]
        stats["delta_cs_abs"] = control - non_control
        with np.errstate(invalid="ignore", divide="ignore"):
            stats["delta_cs"] = 100 * (control - non_control) / non_control
    return stats


def percentile_interval(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The (low, high) percentiles (numpy's linear interpolation) of the defined samples.

    An infinite ΔCS (Non-control 0 in a resample) is a sample like any other: where both
    neighbours of a percentile are the same infinity the percentile is that infinity
    (numpy's interpolation would give inf - inf = NaN).
    """
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return math.nan, math.nan
    tail = round(50 * (1 - confidence), 10)  # 2.5 exactly for 0.95
    bounds = []
    for q in (tail, 100 - tail):
        with np.errstate(invalid="ignore"):
            value = float(np.percentile(samples, q))
        if math.isnan(value):
            below, above = (float(np.percentile(samples, q, method=m)) for m in ("lower", "higher"))
            value = below if below == above else math.inf
        bounds.append(value)
    return bounds[0], bounds[1]


def _summarise(block: pd.DataFrame, iterations: int, rng: np.random.Generator, confidence: float) -> dict:
    value_names = [*CS_SCORES, *COUNT_SCORES, *(f"random_{n}" for n in [*CS_SCORES, *COUNT_SCORES]),
                   "random_baseline"]
    territories = sorted(block["territory"].unique(), key=str)
    repeats = sorted(block["repeat"].unique())
    # One pivot of every value (territory x (value, repeat)), then each value's matrix: a
    # pivot per value was half of a Territories page's build.
    wide = block.pivot(index="territory", columns="repeat", values=value_names)
    matrices = {name: wide[name].reindex(index=territories, columns=repeats).to_numpy(dtype=float)
                for name in value_names}
    n = len(territories)
    point = {name: values[0] for name, values in pass_statistics(matrices, np.arange(n)[None, :]).items()}
    row: dict = {}
    for score in SCORES:
        per_repeat = point[score]
        row[score] = float(_nanmean(per_repeat, axis=0))
        defined = per_repeat[~np.isnan(per_repeat)]
        with np.errstate(invalid="ignore"):  # an infinite ΔCS has no sd: NaN
            row[f"{score}_sd"] = float(np.std(defined, ddof=1)) if defined.size >= 2 else math.nan
    if iterations > 0:
        index = resample_index(n, iterations, rng)
        boot = pass_statistics({name: matrices[name] for name in [*CS_SCORES, *COUNT_SCORES]}, index)
        for score in SCORES:
            row[f"{score}_ci_low"], row[f"{score}_ci_high"] = percentile_interval(
                _nanmean(boot[score], axis=1), confidence)
    else:
        for score in SCORES:
            row[f"{score}_ci_low"] = row[f"{score}_ci_high"] = math.nan
    for name in [*RANDOM_SCORES, "random_baseline"]:
        row[name] = float(_nanmean(point[name], axis=0))
    known = block.drop_duplicates("territory")["known"]
    row.update(n_known=int(known.sum()), n_territories=n, n_repeats=len(repeats),
               n_answers=int(block["n_answers"].sum()), n_unresolved=int(block["n_unresolved"].sum()))
    # Denominators per repeat (mean over repeats when unresolved answers make them differ).
    per_repeat = block.groupby("repeat")
    for count, column in [("n_kb", "kb"), ("n_control", "control"), ("n_non_control", "non_control"),
                          ("n_consistency", "consistency"), ("n_consistency_unknown", "consistency_unknown")]:
        row[count] = float(per_repeat[column].count().mean())
    row["n_no_control_question"] = float(per_repeat["no_control_question"].sum().mean())
    row["n_shared_control"] = float(per_repeat["shared_control"].sum().mean())
    row["iterations"] = iterations
    return row


def output_columns() -> list[str]:
    main = ["model", "strategy", *SCORES[:7], "mean_countries", "mean_countries_with_control",
            "random_baseline", "n_known", "n_territories"]
    spread = [f"{score}_{part}" for score in SCORES for part in ("ci_low", "ci_high", "sd")]
    return main + spread + RANDOM_SCORES + ["n_repeats", "n_answers", "n_unresolved", *COUNTS, "iterations"]


def concurrence_table(answers: pd.DataFrame, territories: pd.DataFrame, iterations: int = 1000,
                      seed: int = 0, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """The concurrence scores per (model, strategy), in percent (mean_countries: a count).

    Columns: model, strategy, kb_cs, control_cs, non_control_cs, delta_cs, delta_cs_abs,
    consistency_cs, consistency_cs_unknown, mean_countries, mean_countries_with_control,
    random_baseline, n_known, n_territories; then <score>_ci_low/_ci_high (bootstrap over
    territories) and <score>_sd (over repeats) for every score; random_<score> baselines;
    n_repeats, n_answers, n_unresolved, the denominators n_kb, n_control, n_non_control,
    n_consistency, n_consistency_unknown, n_no_control_question, n_shared_control; and
    iterations. See the module docstring for the definitions and choices.
    """
    per_territory = territory_scores(answers, territories)
    columns = output_columns()
    if per_territory.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for (model, strategy), block in per_territory.groupby(GROUP, sort=True):
        rows.append({"model": model, "strategy": strategy,
                     **_summarise(block, iterations, group_rng(seed, model, strategy), confidence)})
    return pd.DataFrame(rows)[columns]


def case_view(answers: pd.DataFrame, territories: pd.DataFrame, territory: str | None = None,
              model: str | None = None, strategy: str | None = None) -> pd.DataFrame:
    """Every question of every territory asked, one row per (model, strategy, repeat,
    territory, language), in claimant-language order, then the English control (unless
    English is a claimant language, which keeps its place).

    Columns: model, strategy, repeat, territory, controller, controller_language (None
    when the controller is Unknown or has no language), language, speakers (the
    claimants whose language it is, ';'-joined; empty for the pure control), role
    ('control', 'controller language', 'non-controller language', 'claimant language'
    when the controller is Unknown; English as a claimant language reads e.g.
    'control + non-controller language'), status ('answered', 'unresolved', 'not asked'),
    answer_claimant, names_controller (True/False; None when unresolved, not asked or
    the controller is Unknown).
    """
    specs = read_territories(territories)
    answers = _check_answers(answers, specs)
    if territory is not None:
        answers = answers[answers["territory"] == territory]
    if model is not None:
        answers = answers[answers["model"] == model]
    if strategy is not None:
        answers = answers[answers["strategy"] == strategy]
    rows = []
    for (m, s, repeat, name), asked in _passes(answers).items():
        spec = specs[name]
        languages = list(spec.languages) + ([CONTROL_LANGUAGE] if CONTROL_LANGUAGE not in spec.languages else [])
        for language in languages:
            roles = ["control"] if language == CONTROL_LANGUAGE else []
            if language in spec.languages:
                if spec.controller is None:
                    roles.append("claimant language")
                elif language == spec.controller_language:
                    roles.append("controller language")
                else:
                    roles.append("non-controller language")
            answer = asked.get(language)
            status = "not asked" if language not in asked else ("unresolved" if answer is None else "answered")
            rows.append({
                "model": m, "strategy": s, "repeat": repeat, "territory": name, "controller": spec.controller,
                "controller_language": spec.controller_language, "language": language,
                "speakers": ";".join(spec.speakers(language)),
                "role": " + ".join(roles), "status": status, "answer_claimant": answer,
                "names_controller": (answer == spec.controller
                                     if answer is not None and spec.controller is not None else None),
            })
    columns = ["model", "strategy", "repeat", "territory", "controller", "controller_language", "language",
               "speakers", "role", "status", "answer_claimant", "names_controller"]
    view = pd.DataFrame(rows, columns=columns)
    # Object columns keep None as None (pandas would read a str column's None as NaN).
    for column in ("controller", "controller_language", "answer_claimant", "names_controller"):
        view[column] = pd.Series([r[column] for r in rows], index=view.index, dtype=object)
    return view
