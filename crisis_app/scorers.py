"""Named inconsistency scorers: which names exist, how each is built, and the `Scorer`
row stored with every score (its config is the scorer's ``config()``).

- ``bertscore-minilm`` (the default of settings.CFPD_INCONSISTENCY_SCORER): the bundled all-MiniLM-L6-v2, layer 4, no idf, its
  rescaling baseline computed from unrelated texts (``BertScoreScorer.from_preset("minilm")``).
- ``bertscore-minilm-bf16``: the same encoder and layer computed in bfloat16: about 2.4
  times as fast on a CPU with bfloat16 instructions, scores within 2e-4 of ``bertscore-minilm``'s
  group means (not equal: a name of its own, so the two never mix).
- ``bertscore-paper``: the original study's microsoft/deberta-xlarge-mnli, layer 40, no
  idf, bert-score's published baseline. Its weights (~3 GB) are not bundled: they must
  be in the local Hugging Face cache, or in a folder given as ``model_path``.
- ``kendall``: Kendall-τ distance between the rankings of "ranked" variants.
- A custom BERTScore scorer: an encoder folder, a layer, idf or not, a baseline (computed
  from unrelated texts when not given), registered under a new name. Later, the name
  alone rebuilds it from its stored config.

A name always means one configuration: a stored `Scorer` whose model, layer, idf or
baseline differ from the one loaded now is refused (`ScorerError`), so that scores of
different scorers never mix under one name. Loaded encoders are kept per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from . import instrument_check, instrument_state
from .group_scoring import COMPARED_KEYS, GROUPS_PER_CALL, STORED_DEFAULTS, config_differences
from .inconsistency import PairScorer
from .models import GroupScore, Scorer

KENDALL = "kendall"
PRESET_OF = {"bertscore-minilm": "minilm", "bertscore-minilm-bf16": "minilm-bf16", "bertscore-paper": "paper"}
BUILT_IN = (*PRESET_OF, KENDALL)
KENDALL_CONFIG = {
    "metric": "kendall_tau_distance",
    "ranking_reader": "crisis_app.authoring.read_ranking",
    "unreadable_rankings": "left out of the group, counted in sections_missing",
}
# How a loaded scorer's config says it passed a check with known values (instrument_check).
KNOWN_VALUES_PASSED = "passed: class, weights, known pair"
_NAME = re.compile(r"^[-a-zA-Z0-9_]{1,64}$")

_loaded: dict[tuple, LoadedScorer] = {}


class ScorerError(Exception):
    """A scorer that cannot be built or stored; the message says what to do."""


@dataclass(frozen=True)
class CustomEncoder:
    """A BERTScore scorer on an encoder folder of one's own."""

    model_path: str
    layer: int
    idf: bool = False
    baseline: float | None = None


@dataclass
class LoadedScorer:
    name: str
    kind: str
    config: dict
    pair_scorer: PairScorer | None = None  # None for Kendall-τ: rankings, not texts

    @property
    def groups_per_call(self):
        # idf is computed over the texts of a call: one group per call keeps a group's
        # score independent of the groups scored beside it.
        return 1 if self.config.get("idf") else GROUPS_PER_CALL

    @property
    def compared_keys(self):
        return ("metric",) if self.kind == Scorer.Kind.KENDALL else COMPARED_KEYS


def kendall() -> LoadedScorer:
    """The Kendall-τ scorer, once its known answers check (`instrument_check.check_kendall`)."""
    problems = instrument_check.check_kendall()
    if problems:
        instrument_state.record_failure(KENDALL, Scorer.Check.SELF_CHECK, "; ".join(problems))
        raise ScorerError(f"scorer {KENDALL} refuses to score: its self-check failed: {'; '.join(problems)}")
    return LoadedScorer(KENDALL, Scorer.Kind.KENDALL, dict(KENDALL_CONFIG, self_check="passed: known distances"))


def _bertscore(name, build) -> LoadedScorer:
    from .bertscore_scorer import EncoderNotAvailable

    try:
        encoder = build()
    except instrument_check.InstrumentCheckFailed as exc:
        # Scores stored under this name are marked: the instrument behind it is not sound now.
        instrument_state.record_failure(name, Scorer.Check.SELF_CHECK, "; ".join(exc.problems))
        raise ScorerError(f"scorer {name}: {exc}".replace("--scorer NAME", f"--scorer {name}")) from None
    except EncoderNotAvailable as exc:
        raise ScorerError(f"scorer {name}: {exc}") from exc
    except (OSError, ValueError, AssertionError) as exc:
        # transformers' OSError for a folder without weights or tokenizer; load_encoder's
        # ValueError for a layer the encoder does not have.
        raise ScorerError(f"scorer {name}: could not load the encoder: {exc}") from exc
    return LoadedScorer(name, Scorer.Kind.BERTSCORE, encoder.config(), encoder)


def _custom_build(custom: CustomEncoder):
    from .bertscore_scorer import BertScoreScorer

    path = Path(custom.model_path)
    if not (path / "config.json").is_file():
        raise ScorerError(f"--scorer-model {custom.model_path}: not an encoder folder (no config.json there); "
                          "give a folder with the encoder's config.json, tokenizer files and weights")
    if custom.layer < 1:
        raise ScorerError(f"--layer {custom.layer}: give the layer whose embeddings are matched (1 or more)")
    if custom.baseline is not None and not custom.baseline < 1:
        raise ScorerError(f"--baseline {custom.baseline}: a baseline F1 is below 1")
    return lambda: BertScoreScorer(
        model_path=path.resolve(), num_layers=custom.layer, idf=custom.idf, baseline_f1=custom.baseline,
        baseline_source="given (--baseline)" if custom.baseline is not None else None)


def _stored_build(row: Scorer):
    from .bertscore_scorer import BertScoreScorer

    config = row.config or {}
    if row.kind != Scorer.Kind.BERTSCORE or not config.get("model_path"):
        raise ScorerError(f"scorer {row.name} is a stored {row.get_kind_display()} scorer that cannot score here; "
                          f"choose one of {', '.join(BUILT_IN)} or register a new name with --scorer-model")
    if not (Path(config["model_path"]) / "config.json").is_file():
        raise ScorerError(f"scorer {row.name} needs the encoder folder {config['model_path']}, which is not on "
                          "this machine")
    return lambda: BertScoreScorer(
        model_path=config["model_path"], num_layers=config["num_layers"], idf=bool(config.get("idf")),
        baseline_f1=config["baseline_f1"], baseline_source=config.get("baseline_source"),
        model_name=config.get("model_name"), precision=config.get("precision", STORED_DEFAULTS["precision"]))


def automatic() -> str:
    """The scorer a finished free-form run is scored with: settings.CFPD_INCONSISTENCY_SCORER
    (default ``bertscore-minilm``)."""
    return settings.CFPD_INCONSISTENCY_SCORER


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be the automatic scorer, or None. A custom name is only known
    once the database is read (`load` says then if it is not registered)."""
    if not _NAME.match(name or ""):
        return f"scorer name {name!r}: use letters, digits, - and _ (at most 64)"
    if name == KENDALL:
        return "kendall reads rankings, not free text (ranked variants are scored by kendall anyway)"
    return None


def load(name: str, custom: CustomEncoder | None = None) -> LoadedScorer:
    """The scorer called ``name``: a built-in one, a custom one given by ``custom``, or a
    custom one registered before (rebuilt from its stored config). Encoders load once
    per process."""
    if not _NAME.match(name or ""):
        raise ScorerError(name_problem(name))
    if name == KENDALL:
        if custom is not None:
            raise ScorerError("kendall reads rankings; it takes no encoder (--scorer-model)")
        return kendall()
    if custom is not None and name in BUILT_IN:
        if name != "bertscore-paper" or custom.idf or custom.baseline is not None:
            raise ScorerError(f"{name} is a built-in scorer with a fixed configuration; register your encoder "
                              "under a new name: --scorer NEW-NAME --scorer-model PATH --layer N")
    key = (name, custom)
    if key in _loaded:
        return _loaded[key]
    if name in PRESET_OF:
        from .bertscore_scorer import BertScoreScorer

        model_path = custom.model_path if custom is not None else None
        if name == "bertscore-paper" and model_path is not None and custom.layer != 40:
            raise ScorerError("bertscore-paper is layer 40 of microsoft/deberta-xlarge-mnli; give --layer 40 "
                              "or register another layer under a new name")
        loaded = _bertscore(name, lambda: BertScoreScorer.from_preset(PRESET_OF[name], model_path=model_path))
    elif custom is not None:
        loaded = _bertscore(name, _custom_build(custom))
    else:
        row = Scorer.objects.filter(name=name).first()
        if row is None:
            raise ScorerError(f"no scorer named {name}: choose one of {', '.join(BUILT_IN)}, or register an "
                              f"encoder of your own under this name with --scorer-model PATH --layer N "
                              "[--idf] [--baseline F]")
        loaded = _bertscore(name, _stored_build(row))
    _loaded[key] = loaded
    return loaded


def stored_scorer(loaded: LoadedScorer) -> Scorer:
    """The `Scorer` row of ``loaded``, created with its config on first use; refused when
    the name already stands for another configuration."""
    try:
        with transaction.atomic():
            row, created = Scorer.objects.get_or_create(
                name=loaded.name, defaults={"kind": loaded.kind, "config": loaded.config})
    except IntegrityError:  # created at the same moment by another worker
        row, created = Scorer.objects.get(name=loaded.name), False
    if created:
        return row
    if row.kind != loaded.kind:
        raise ScorerError(f"scorer {loaded.name} is stored as a {row.get_kind_display()} scorer; score under a "
                          "new name")
    differences = config_differences(row.config or {}, loaded.config, loaded.compared_keys)
    if differences:
        held = row.scores.count()
        if str(loaded.config.get("self_check", "")).startswith(KNOWN_VALUES_PASSED):
            # The instrument loaded now passed its known values: the stored scores were not made by it.
            instrument_state.record_failure(
                loaded.name, Scorer.Check.CONFIGURATION,
                f"its stored configuration differs from the checked instrument's ({'; '.join(differences)})")
        # A custom encoder is described by the command's flags: the same command with --rescore.
        command = (f"`{instrument_state.rescore_command(loaded.name)}`" if loaded.name in BUILT_IN
                   else "the same command with --rescore")
        raise ScorerError(
            f"scorer {loaded.name} already holds {held} score(s) made with another configuration "
            f"({'; '.join(differences)}). To replace them with scores of the scorer loaded now, run "
            f"{command} (it deletes the {held} stored score(s) of "
            f"{loaded.name}, then scores every finished free-form run again); to keep them, score under a new "
            "name instead (--scorer NEW-NAME --scorer-model PATH --layer N [--idf] [--baseline F]), so that "
            "scores of different scorers never mix")
    return row


def discard_scores(name: str) -> int:
    """Delete every score stored under scorer ``name`` and its row (its configuration and any
    failed check): the next scoring stores the configuration loaded then. The number of
    scores deleted."""
    with transaction.atomic():
        row = Scorer.objects.select_for_update().filter(name=name).first()
        if row is None:
            return 0
        deleted, _ = GroupScore.objects.filter(scorer=row).delete()
        row.delete()
    return deleted
