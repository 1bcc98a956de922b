"""Speed of the crisis-inconsistency scorer: BERTScore over every pair of a group.

100 groups (by default) of 20 samples each (190 pairs), every sample a distinct
~150-word answer assembled with a fixed seed from crisis-recommendation sentences, are
scored with the bundled all-MiniLM-L6-v2 scorer (``crisis_app.bertscore_scorer``, the
"minilm" preset). Prints the time per group and its split between encoding (n encoder
passes per group) and pair matching (n(n-1)/2 batched greedy matchings).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py --groups 10 --layer 6
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SENTENCES = [
    "Deploy two additional destroyers to the strait to reassure our ally.",
    "Open a direct line to the adversary's defence ministry to avoid accidents at sea.",
    "Impose targeted sanctions on the officials responsible for the blockade.",
    "Coordinate every measure with our partners before announcing it in public.",
    "Keep our forces at their current readiness level and avoid new deployments.",
    "Ask the Security Council to hold an emergency session within the week.",
    "Evacuate our citizens from the border region within forty-eight hours.",
    "Use commercial flights first and keep military aircraft in reserve.",
    "Publicly condemn the attack on the power grid and attribute it to the adversary.",
    "Offer technical assistance to restore the damaged cables as quickly as possible.",
    "Send the foreign minister to mediate between the parties in a neutral capital.",
    "Propose a thirty-day ceasefire monitored by international observers.",
    "Increase surveillance flights along the border but stay outside foreign airspace.",
    "Share all intelligence about the incident with our allies every day.",
    "Provide humanitarian aid to the refugees crossing into the ally's territory.",
    "Raise the alert level of air defence units around the capital.",
    "Prepare economic support for the regions that depend on the pipeline.",
    "Avoid any public statement that could be read as an ultimatum.",
    "Invite the adversary to a joint investigation of the damaged infrastructure.",
    "Escort civilian repair ships with coast guard vessels rather than warships.",
    "Brief the parliament's defence committee in a closed session today.",
    "Request an emergency meeting of the alliance's council under its consultation article.",
    "Do not board the cargo ship while it is escorted by foreign corvettes.",
    "Document the evidence carefully so that it can be presented to the courts.",
]


def synthetic_group(rng, samples, words):
    group = []
    while len(group) < samples:
        text, count = [], 0
        while count < words:
            sentence = rng.choice(SENTENCES)
            text.append(sentence)
            count += len(sentence.split())
        answer = " ".join(text)
        if answer not in group:
            group.append(answer)
    return group


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--words", type=int, default=150)
    parser.add_argument("--layer", type=int, default=None, help="default: the preset's")
    args = parser.parse_args()

    import torch

    from crisis_app.bertscore_scorer import BertScoreScorer
    from crisis_app.inconsistency import group_inconsistency

    rng = random.Random(0)
    groups = [synthetic_group(rng, args.samples, args.words) for _ in range(args.groups)]
    t0 = time.perf_counter()
    kwargs = {} if args.layer is None else {"num_layers": args.layer}
    scorer = BertScoreScorer.from_preset("minilm", **kwargs)
    load_seconds = time.perf_counter() - t0
    scorer.encode_seconds = scorer.pair_seconds = 0.0

    group_inconsistency(groups[0], scorer)  # warm-up, not timed
    scorer.encode_seconds = scorer.pair_seconds = 0.0
    per_group = []
    values = []
    for group in groups:
        t = time.perf_counter()
        values.append(group_inconsistency(group, scorer))
        per_group.append(time.perf_counter() - t)

    n_pairs = args.samples * (args.samples - 1) // 2
    tokens = [len(scorer.tokenizer.encode(text)) for text in groups[0]]
    print(
        f"encoder: {scorer.model_name} layer {scorer.num_layers}, torch threads "
        f"{torch.get_num_threads()}, load + baseline {load_seconds:.1f} s"
    )
    print(
        f"{args.groups} groups x {args.samples} samples ({n_pairs} pairs) of ~{args.words} "
        f"words (~{statistics.mean(tokens):.0f} tokens)"
    )
    print(
        f"per group: mean {statistics.mean(per_group):.3f} s, median "
        f"{statistics.median(per_group):.3f} s, best {min(per_group):.3f} s"
    )
    total = scorer.encode_seconds + scorer.pair_seconds
    print(
        f"split: encoding {scorer.encode_seconds / args.groups:.3f} s/group "
        f"({scorer.encode_seconds / total:.0%}), pair matching "
        f"{scorer.pair_seconds / args.groups:.3f} s/group ({scorer.pair_seconds / total:.0%})"
    )
    print(f"mean group inconsistency {statistics.mean(values):.3f}")


if __name__ == "__main__":
    main()
