"""Speed of the crisis-inconsistency scorer: BERTScore over every pair of a group.

100 groups (by default) of 20 samples each (190 pairs), every sample a distinct
~150-word answer assembled with a fixed seed from crisis-recommendation sentences, are
scored with the bundled all-MiniLM-L6-v2 scorer (``crisis_app.bertscore_scorer``, the
"minilm" preset) through ``crisis_app.group_scoring.score_text_groups``, as
``score_inconsistency`` scores them. Each configuration prints the time per group (wall
and CPU time of this process, best of ``--repeats`` rounds; the rounds take the
configurations in turn, so that other work on the machine falls on all of them), its
split between encoding (one encoder pass per distinct text) and pair matching
(n(n-1)/2 greedy matchings per group), and the largest difference of a group's mean from
the first configuration's (exact configurations differ by float noise only).

Configurations: ``before`` is the scorer as it was up to commit be906b7 (``PreviousScorer``
below: bert_score's ``get_bert_embedding`` on batches sorted by character count, one
batched matrix product per 64 pairs, padded to the longest text of the call), ``after``
the current one (each text tokenized once, batches sorted by token count, encoded under
``torch.inference_mode``; one matrix product per candidate text against all its
references). Both score 20 groups per call; ``before`` with encoder batches of 32, as
the product did, ``after`` with the product's batches of 16; ``-b32`` and ``-b64``
variants use batches of 32 and 64, ``per-group`` one group per call, and ``bf16`` the
"minilm-bf16" preset (scorer ``bertscore-minilm-bf16``: the encoder, its attention by
matrix products, and the matching in bfloat16, NOT exact, shown with its deviation from
the first configuration; fast only on CPUs with AVX512-BF16 or AMX).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py --repeats 2
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py --groups 20 --configurations before,after --json
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bertscore_speed.py --configurations after,bf16
"""

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from crisis_app.bertscore_scorer import ENCODE_BATCH_SIZE  # noqa: E402 — the product's batch size

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
    # name: (implementation, groups per scorer call, encoder batch size)
    "before": ("previous", 20, 32),
    "after": ("current", 20, ENCODE_BATCH_SIZE),
    "after-b32": ("current", 20, 32),
    "before-b64": ("previous", 20, 64),
    "after-b64": ("current", 20, 64),
    "per-group": ("current", 1, ENCODE_BATCH_SIZE),
    "bf16": ("current-bf16", 20, ENCODE_BATCH_SIZE),
    "bf16-b32": ("current-bf16", 20, 32),
}
DEFAULT_CONFIGURATIONS = "before,after,before-b64,after-b64"


def previous_scorer(scorer):
    """``scorer`` (sharing its loaded encoder) computing as it did up to commit be906b7."""
    import torch
    from bert_score.utils import get_bert_embedding

    from crisis_app.bertscore_scorer import BertScoreScorer

    class PreviousScorer(BertScoreScorer):
        def __init__(self, loaded):
            self.__dict__.update(loaded.__dict__)

        def embed(self, texts):
            idf_dict = self._idf_dict(list(texts))
            pieces = [None] * len(texts)
            non_empty = [k for k in range(len(texts)) if texts[k].strip()]
            by_length = sorted(non_empty, key=lambda k: len(texts[k]))
            for start in range(0, len(texts), self.encode_batch_size):
                batch = by_length[start : start + self.encode_batch_size]
                if not batch:
                    continue
                emb, mask, weights = get_bert_embedding(
                    [texts[k] for k in batch], self.model, self.tokenizer, idf_dict, device="cpu")
                for row, k in enumerate(batch):
                    length = int(mask[row].sum())
                    pieces[k] = (emb[row, :length], weights[row, :length])
            dim = int(self.model.config.hidden_size)
            for k in range(len(texts)):
                if pieces[k] is None:
                    pieces[k] = (torch.zeros(0, dim), torch.zeros(0))
            longest = max(1, max(p[0].shape[0] for p in pieces))
            vectors = torch.zeros(len(texts), longest, dim)
            token_weights = torch.zeros(len(texts), longest)
            for k, (emb, weights) in enumerate(pieces):
                vectors[k, : emb.shape[0]] = emb / emb.norm(dim=-1, keepdim=True)
                total = weights.sum()
                if total > 0:
                    token_weights[k, : emb.shape[0]] = weights / total
            return vectors, token_weights

        def raw_scores(self, texts, pairs):
            texts = list(texts)
            distinct = list(dict.fromkeys(texts))
            slot = {text: k for k, text in enumerate(distinct)}
            t0 = time.perf_counter()
            with torch.no_grad():
                vectors, weights = self.embed(distinct)
            t1 = time.perf_counter()
            valid = weights > 0
            is_pad = vectors.abs().sum(dim=-1) == 0
            cand = torch.tensor([slot[texts[i]] for i, _ in pairs], dtype=torch.long)
            ref = torch.tensor([slot[texts[j]] for _, j in pairs], dtype=torch.long)
            precision, recall = torch.zeros(len(pairs)), torch.zeros(len(pairs))
            with torch.no_grad():
                for start in range(0, len(pairs), 64):
                    c, r = cand[start : start + 64], ref[start : start + 64]
                    sim = torch.bmm(vectors[c], vectors[r].transpose(1, 2))
                    best_for_cand = sim.masked_fill(is_pad[r][:, None, :], -2.0).max(dim=2).values
                    best_for_ref = sim.masked_fill(is_pad[c][:, :, None], -2.0).max(dim=1).values
                    precision[start : start + len(c)] = (best_for_cand * weights[c]).sum(dim=1)
                    recall[start : start + len(c)] = (best_for_ref * weights[r]).sum(dim=1)
            empty = ~valid.any(dim=1)
            either_empty = empty[cand] | empty[ref]
            precision[either_empty] = 0.0
            recall[either_empty] = 0.0
            f1 = torch.nan_to_num(2 * precision * recall / (precision + recall), nan=0.0)
            self.encode_seconds += t1 - t0
            self.pair_seconds += time.perf_counter() - t1
            return precision.numpy().astype(float), recall.numpy().astype(float), f1.numpy().astype(float)

    return PreviousScorer(scorer)


def run_configuration(scorers, groups, name):
    from crisis_app.group_scoring import score_text_groups

    implementation, groups_per_call, batch_size = CONFIGURATIONS[name]
    scorer = scorers[implementation]
    scorer.encode_batch_size = batch_size
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
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds over the configurations; each reports its best wall and CPU time")
    parser.add_argument("--configurations", default=DEFAULT_CONFIGURATIONS,
                        help=f"comma-separated, of {', '.join(CONFIGURATIONS)} (default {DEFAULT_CONFIGURATIONS})")
    parser.add_argument("--json", action="store_true", help="one JSON object per configuration per line")
    args = parser.parse_args()
    names = [n.strip() for n in args.configurations.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGURATIONS]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; choose from {', '.join(CONFIGURATIONS)}")
    if args.repeats < 1:
        parser.error("--repeats: 1 or more")

    import torch

    from crisis_app.bertscore_scorer import BertScoreScorer

    torch.set_num_threads(args.threads)
    rng = random.Random(0)
    groups = [synthetic_group(rng, args.samples, args.words) for _ in range(args.groups)]
    t0 = time.perf_counter()
    kwargs = {} if args.layer is None else {"num_layers": args.layer}
    scorer = BertScoreScorer.from_preset("minilm", **kwargs)
    load_seconds = time.perf_counter() - t0
    scorers = {"current": scorer, "previous": previous_scorer(scorer)}
    if any(CONFIGURATIONS[name][0] == "current-bf16" for name in names):
        scorers["current-bf16"] = BertScoreScorer.from_preset("minilm-bf16", **kwargs)
    n_pairs = args.samples * (args.samples - 1) // 2
    tokens = [len(scorer.tokenizer.encode(text)) for group in groups[:5] for text in group]
    if not args.json:
        print(f"encoder: {scorer.model_name} layer {scorer.num_layers}, torch threads {torch.get_num_threads()}, "
              f"load + baseline {load_seconds:.1f} s")
        print(f"{args.groups} groups x {args.samples} samples ({n_pairs} pairs) of ~{args.words} words "
              f"(~{statistics.mean(tokens):.0f} tokens, max {max(tokens)}; the tokenizer truncates at "
              f"{scorer.tokenizer.model_max_length}); best of {args.repeats} round(s)")
    runs = {name: [] for name in names}
    for _ in range(args.repeats):
        for name in names:
            runs[name].append(run_configuration(scorers, groups, name))
    reference = runs[names[0]][0]["means"]
    for name in names:
        best = min(runs[name], key=lambda r: r["seconds"])
        deviation = max(abs(a - b) for r in runs[name] for a, b in zip(r["means"], reference))
        cpu_seconds = min(r["cpu_seconds"] for r in runs[name])
        implementation, groups_per_call, batch_size = CONFIGURATIONS[name]
        if args.json:
            print(json.dumps({
                "bench": "bertscore_speed", "configuration": name, "implementation": implementation,
                "groups_per_call": groups_per_call, "encode_batch_size": batch_size, "precision": scorers[implementation].precision,
                "seconds": round(best["seconds"], 4), "cpu_seconds": round(cpu_seconds, 4),
                "seconds_runs": [round(r["seconds"], 4) for r in runs[name]],
                "cpu_seconds_runs": [round(r["cpu_seconds"], 4) for r in runs[name]],
                "encode_seconds": round(best["encode_seconds"], 4), "pair_seconds": round(best["pair_seconds"], 4),
                "groups": args.groups, "samples": args.samples, "words": args.words,
                "threads": torch.get_num_threads(), "max_abs_diff_of_group_means": deviation,
                "mean_group_inconsistency": statistics.mean(best["means"]),
            }), flush=True)
        else:
            print(f"{name:<11} {best['seconds']:.3f} s/group (CPU {cpu_seconds:.3f} s): encoding "
                  f"{best['encode_seconds']:.3f} s, pair matching {best['pair_seconds']:.3f} s; mean inconsistency "
                  f"{statistics.mean(best['means']):.4f}, max |diff| vs {names[0]} {deviation:.1e}", flush=True)


if __name__ == "__main__":
    main()
