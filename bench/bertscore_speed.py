"""Speed of the crisis-inconsistency scorer: BERTScore over every pair of a group.

100 groups (by default) of 20 samples each (190 pairs), every sample a distinct
~150-word answer assembled with a fixed seed from crisis-recommendation sentences, are
scored with the bundled all-MiniLM-L6-v2 scorer (``crisis_app.bertscore_scorer``, the
"minilm" preset) through ``crisis_app.group_scoring.score_text_groups``, as
``score_inconsistency`` scores them. Each configuration prints the time per group and
its split between encoding (one encoder pass per distinct text) and pair matching
(n(n-1)/2 batched greedy matchings per group), and the largest difference of a group's
mean from the first configuration's (exact configurations differ by float noise only).

Configurations: ``per-group`` (one group per scorer call), ``cross-20`` (20 groups per
call, what the product does: encoder batches full and sorted by length across groups),
``cross-20-b64`` / ``cross-20-b128`` (larger encoder batches), ``cross-20-bf16`` (bfloat16
autocast: faster on CPUs with AVX512-BF16, NOT exact, shown for its deviation only).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py --groups 20 --configurations per-group,cross-20 --json
"""

import argparse
import contextlib
import json
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


CONFIGURATIONS = {
    # name: (groups per scorer call, encoder batch size, bfloat16 autocast)
    "per-group": (1, 32, False),
    "cross-20": (20, 32, False),
    "cross-20-b64": (20, 64, False),
    "cross-20-b128": (20, 128, False),
    "cross-20-bf16": (20, 32, True),
}


def run_configuration(scorer, groups, name):
    import torch

    from crisis_app.group_scoring import score_text_groups

    groups_per_call, batch_size, bf16 = CONFIGURATIONS[name]
    scorer.encode_batch_size = batch_size
    precision = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
    with precision:
        score_text_groups(groups[:groups_per_call], scorer, groups_per_call)  # warm-up, not timed
        scorer.encode_seconds = scorer.pair_seconds = 0.0
        started, cpu_started = time.perf_counter(), time.process_time()
        values = score_text_groups(groups, scorer, groups_per_call)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return {
        "seconds": seconds / len(groups),
        # CPU time of this process (all its threads): steadier than wall time when other
        # processes share the cores; with 2 threads it is up to twice the wall time.
        "cpu_seconds": cpu_seconds / len(groups),
        "encode_seconds": scorer.encode_seconds / len(groups),
        "pair_seconds": scorer.pair_seconds / len(groups),
        "means": [v.mean for v in values],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--words", type=int, default=150)
    parser.add_argument("--layer", type=int, default=None, help="default: the preset's")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2: this machine's cores)")
    parser.add_argument("--configurations", default="per-group,cross-20,cross-20-b64,cross-20-b128,cross-20-bf16",
                        help=f"comma-separated, of {', '.join(CONFIGURATIONS)}")
    parser.add_argument("--json", action="store_true", help="one JSON object per configuration per line")
    args = parser.parse_args()
    names = [n.strip() for n in args.configurations.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGURATIONS]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; choose from {', '.join(CONFIGURATIONS)}")

    import torch

    from crisis_app.bertscore_scorer import BertScoreScorer

    torch.set_num_threads(args.threads)
    rng = random.Random(0)
    groups = [synthetic_group(rng, args.samples, args.words) for _ in range(args.groups)]
    t0 = time.perf_counter()
    kwargs = {} if args.layer is None else {"num_layers": args.layer}
    scorer = BertScoreScorer.from_preset("minilm", **kwargs)
    load_seconds = time.perf_counter() - t0
    n_pairs = args.samples * (args.samples - 1) // 2
    tokens = [len(scorer.tokenizer.encode(text)) for group in groups[:5] for text in group]
    if not args.json:
        print(f"encoder: {scorer.model_name} layer {scorer.num_layers}, torch threads {torch.get_num_threads()}, "
              f"load + baseline {load_seconds:.1f} s")
        print(f"{args.groups} groups x {args.samples} samples ({n_pairs} pairs) of ~{args.words} words "
              f"(~{statistics.mean(tokens):.0f} tokens, max {max(tokens)}; the tokenizer truncates at "
              f"{scorer.tokenizer.model_max_length})")
    reference = None
    for name in names:
        result = run_configuration(scorer, groups, name)
        if reference is None:
            reference = result["means"]
        deviation = max(abs(a - b) for a, b in zip(result["means"], reference))
        if args.json:
            print(json.dumps({
                "bench": "bertscore_speed", "configuration": name, "seconds": round(result["seconds"], 4),
                "cpu_seconds": round(result["cpu_seconds"], 4),
                "encode_seconds": round(result["encode_seconds"], 4), "pair_seconds": round(result["pair_seconds"], 4),
                "groups": args.groups, "samples": args.samples, "words": args.words,
                "threads": torch.get_num_threads(), "max_abs_diff_of_group_means": deviation,
                "mean_group_inconsistency": statistics.mean(result["means"]),
            }), flush=True)
        else:
            print(f"{name:<14} {result['seconds']:.3f} s/group (CPU {result['cpu_seconds']:.3f} s): encoding {result['encode_seconds']:.3f} s, "
                  f"pair matching {result['pair_seconds']:.3f} s; mean inconsistency "
                  f"{statistics.mean(result['means']):.4f}, max |diff| vs {names[0]} {deviation:.1e}", flush=True)


if __name__ == "__main__":
    main()
