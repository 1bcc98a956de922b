"""How close a model stands to a panel of people (issue 40), after GlobalOpinionQA (Durmus et
al., 2023): for each question both answered, the similarity of the two answer distributions
over the question's options, 1 − Jensen–Shannon distance (scipy, base 2, so within [0, 1]);
the mean over questions; a cluster bootstrap interval over scenarios; the panel's own ceiling
(the mean similarity between random halves of its respondents) and Krippendorff's α among
its respondents. Pure: no Django, no database; the callers pass answers as option letters.

Refusals (and any answer that is not one of the question's options) are left out of a
distribution and counted; a question with no option chosen on either side is left out of the
mean (and counted as such)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import jensenshannon

from analysis_app.metrics.bootstrap import CONFIDENCE, group_rng
from encoding_app.agreement import krippendorff_alpha

SPLITS = 200  # the ceiling's random halves (the least)
ITERATIONS = 2000  # the cluster bootstrap's resamples


def distribution(answers: Iterable[str] | Mapping[str, float], options: Sequence[str]) -> tuple[np.ndarray | None, int]:
    """(shares over `options` in their order, answers left out): None when no answer chose an
    option. An answer that is no option (a refusal, an invalid code) is left out and counted.
    `answers` is the answers given, or a mapping of answer → weight (a published reference's
    shares of its people, `panels_app.ReferenceShare`)."""
    counts = dict(answers) if isinstance(answers, Mapping) else Counter(answers)
    chosen = np.array([counts.get(option, 0) for option in options], dtype=float)
    left_out = int(round(sum(counts.values()) - chosen.sum()))
    if chosen.sum() == 0:
        return None, left_out
    return chosen / chosen.sum(), left_out


def similarity(p: Sequence[float], q: Sequence[float]) -> float:
    """1 − the Jensen–Shannon distance of two distributions (base 2): 1 for the same
    distribution, 0 for two that share no option."""
    distance = float(jensenshannon(np.asarray(p, dtype=float), np.asarray(q, dtype=float), base=2))
    if math.isnan(distance):  # scipy's rounding on two equal distributions can give sqrt(-0.0)
        distance = 0.0
    return min(1.0, max(0.0, 1.0 - distance))


@dataclass(frozen=True)
class Alignment:
    similarity: float | None  # the mean over the questions both answered
    ci_low: float | None
    ci_high: float | None
    n_questions: int
    per_question: dict[Hashable, float]
    left_out_model: int  # refusals and answers that are no option, the model's
    left_out_panel: int
    questions_without_choice: int  # asked of both, but one side chose no option


def per_question_similarity(model: Mapping[Hashable, Sequence[str]],
                            panel: Mapping[Hashable, Sequence[str] | Mapping[str, float]],
                            options: Mapping[Hashable, Sequence[str]]) -> tuple[dict[Hashable, float], int, int, int]:
    """({question: similarity}, model's left out, panel's left out, questions without a choice)
    over the questions both answered."""
    found, left_model, left_panel, without = {}, 0, 0, 0
    for question in sorted(set(model) & set(panel), key=str):
        p, out_model = distribution(model[question], options[question])
        q, out_panel = distribution(panel[question], options[question])
        left_model += out_model
        left_panel += out_panel
        if p is None or q is None:
            without += 1
            continue
        found[question] = similarity(p, q)
    return found, left_model, left_panel, without


def cluster_interval(values: Mapping[Hashable, float], cluster_of: Mapping[Hashable, Hashable], seed: int = 0,
                     iterations: int = ITERATIONS, key: Hashable = "alignment") -> tuple[float, float] | None:
    """Percentile interval of the mean of `values` with whole clusters (scenarios) resampled:
    each resample draws as many clusters as there are, with replacement, and takes the mean
    over every question of the clusters drawn. None with fewer than two clusters."""
    clusters: dict[Hashable, list[float]] = {}
    for question, value in values.items():
        clusters.setdefault(cluster_of.get(question, question), []).append(value)
    if len(clusters) < 2:
        return None
    sums = np.array([sum(v) for v in clusters.values()])
    sizes = np.array([len(v) for v in clusters.values()], dtype=float)
    draw = group_rng(seed, key).integers(0, len(clusters), size=(iterations, len(clusters)))
    means = sums[draw].sum(axis=1) / sizes[draw].sum(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    return float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def alignment(model: Mapping[Hashable, Sequence[str]], panel: Mapping[Hashable, Sequence[str]],
              options: Mapping[Hashable, Sequence[str]], cluster_of: Mapping[Hashable, Hashable] | None = None,
              seed: int = 0) -> Alignment:
    """A model's similarity to a panel: `model` and `panel` map a question to the answers
    given (a model's repeats, a panel's respondents), `options` a question to its option
    letters, `cluster_of` a question to its scenario (the bootstrap's cluster; each question
    its own when not given)."""
    found, left_model, left_panel, without = per_question_similarity(model, panel, options)
    mean = sum(found.values()) / len(found) if found else None
    interval = cluster_interval(found, cluster_of or {}, seed=seed) if found else None
    return Alignment(mean, *(interval or (None, None)), len(found), found, left_model, left_panel, without)


def _halves(respondents: list[Hashable], splits: int, seed: int) -> list[set[Hashable]]:
    """One half of each split of the respondents into two halves (sizes n//2 and the rest):
    every distinct split when there are no more than `splits` of them (so the ceiling is
    exact), else `splits` random ones."""
    n, half = len(respondents), len(respondents) // 2
    distinct = math.comb(n, half) // (2 if n % 2 == 0 else 1)
    if distinct <= splits:
        first = respondents[0]
        chosen = itertools.combinations(respondents, half)
        # with n even each split appears twice (a half and its complement): keep the halves
        # holding the first respondent
        return [set(c) for c in chosen if n % 2 or first in c]
    rng = group_rng(seed, "ceiling")
    return [set(rng.choice(np.array(respondents, dtype=object), size=half, replace=False)) for _ in range(splits)]


def ceiling(answers: Mapping[Hashable, Mapping[Hashable, str]], options: Mapping[Hashable, Sequence[str]],
            splits: int = SPLITS, seed: int = 0) -> float | None:
    """The panel's own ceiling: the mean similarity between two halves of its respondents
    (`answers`: question → {respondent: answer}), each split's similarity the mean over the
    questions both halves answered with an option; the mean over the splits. None with fewer
    than two respondents or no question both halves answered."""
    respondents = sorted({r for by in answers.values() for r in by}, key=str)
    if len(respondents) < 2:
        return None
    values = []
    for half in _halves(respondents, splits, seed):
        one = {q: [a for r, a in by.items() if r in half] for q, by in answers.items()}
        other = {q: [a for r, a in by.items() if r not in half] for q, by in answers.items()}
        found, *_ = per_question_similarity(one, other, options)
        if found:
            values.append(sum(found.values()) / len(found))
    return sum(values) / len(values) if values else None


def respondents_alpha(answers: Mapping[Hashable, Mapping[Hashable, str]]) -> float | None:
    """Krippendorff's α (nominal) among a panel's respondents: questions are the units, the
    respondents the coders."""
    return krippendorff_alpha({q: dict(by) for q, by in answers.items()})
