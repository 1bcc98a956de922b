"""The values `crisis_app.instrument_check.KNOWN` holds, measured again from a sound load of
each preset (the encoder loaded by `bertscore_scorer.load_encoder`, its self-check off):
the class, the digest of `DIGEST_TENSOR` as loaded, the raw F1 of `KNOWN_PAIR` and the
computed baseline, beside the stored constants.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/instrument_known_values.py
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crisis_app import instrument_check  # noqa: E402
from crisis_app.bertscore_scorer import BertScoreScorer, load_encoder  # noqa: E402


def main():
    for preset, known in instrument_check.KNOWN.items():
        scorer = BertScoreScorer.from_preset(preset, self_check=False)
        # The digest of the weights as loaded, before a bfloat16 preset casts them.
        _, model, _ = load_encoder(scorer.model_path, scorer.num_layers)
        pair_f1 = float(scorer.raw_f1(list(instrument_check.KNOWN_PAIR), [(0, 1)])[0])
        print(f"{preset}: {type(scorer.model).__name__} (stored {known.model_class}); "
              f"digest {instrument_check.tensor_digest(model)} (stored {known.tensor_digest}); "
              f"pair F1 {pair_f1:.6f} (stored {known.pair_f1}); baseline {scorer.baseline_f1:.6f} "
              f"(stored {known.baseline_f1}); tolerance {known.tolerance:g}")


if __name__ == "__main__":
    main()
