"""The metric validation's class order by encoder layer and idf (the paper's section 4).

Each configuration is the bundled all-MiniLM-L6-v2 (``crisis_app.bertscore_scorer``)
cut at one layer, with or without idf, its rescaling baseline computed for that very
layer and idf from ``baseline_texts.txt`` (as the "minilm" preset computes it). The
items (default: ``crisis_app/validation_data.py``; ``--file``: authored items in the
``validate_inconsistency --file`` shape) are scored with ``validate_items``, as the
command and the page score them. Each row prints the four class means (mean
inconsistency of each reference against its ablation), the baseline F1, how many
references rank their four ablations in the expected order, and whether the class means
follow ``lexical < syntactic < irrelevance < semantic``.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/validation_ordering.py
    HF_HUB_OFFLINE=1 .venv/bin/python bench/validation_ordering.py --layers 4,6 --idf off --json
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def parse_list(text, convert, allowed, name):
    values = [convert(v.strip()) for v in text.split(",") if v.strip()]
    wrong = [v for v in values if v not in allowed]
    if wrong or not values:
        raise argparse.ArgumentTypeError(f"{name}: {text!r}; choose from {', '.join(map(str, allowed))}")
    return values


def read_items(path):
    from crisis_app.validation import ValidationFileError, parse_items

    try:
        return parse_items(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        problems = exc.problems if isinstance(exc, ValidationFileError) else [str(exc)]
        sys.exit(f"{path}: " + "; ".join(problems))


def items_in_order(per_item, order):
    """How many references score their ablations in ``order`` (strictly increasing)."""
    count = len(per_item[order[0]])
    return sum(
        all(per_item[a][k] < per_item[b][k] for a, b in zip(order, order[1:])) for k in range(count)
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", default="1,2,3,4,5,6",
                        type=lambda t: parse_list(t, int, range(1, 7), "layers"),
                        help="comma-separated layers of all-MiniLM-L6-v2 (1-6; default all)")
    parser.add_argument("--idf", default="off,on", type=lambda t: parse_list(t, str, ("off", "on"), "idf"),
                        help="off, on or off,on (default)")
    parser.add_argument("--file", help="JSON items as validate_inconsistency --file reads them "
                                       "(default: crisis_app/validation_data.py)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    parser.add_argument("--json", action="store_true", help="one JSON object per configuration per line")
    args = parser.parse_args()

    import torch

    from crisis_app.bertscore_scorer import BertScoreScorer
    from crisis_app.validation import EXPECTED_ORDER, validate_items
    from crisis_app.validation_data import VALIDATION_ITEMS

    torch.set_num_threads(args.threads)
    try:  # transformers' per-load progress bar would interleave with the table
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
    except ImportError:
        pass
    items = read_items(args.file) if args.file else VALIDATION_ITEMS
    source = args.file or "crisis_app/validation_data.py"
    width = max(len(name) for name in EXPECTED_ORDER)
    if not args.json:
        print(f"{len(items)} items from {source}; expected order: " + " < ".join(EXPECTED_ORDER))
        print(f"{'layer':>5} {'idf':>3} {'baseline':>8} " + " ".join(f"{n:>{width}}" for n in EXPECTED_ORDER)
              + f" {'items in order':>14}  holds")
    for layer in args.layers:
        for idf in args.idf:
            started = time.perf_counter()
            scorer = BertScoreScorer.from_preset("minilm", num_layers=layer, idf=idf == "on")
            result = validate_items(items, scorer)
            seconds = time.perf_counter() - started
            in_order = items_in_order(result.per_item, EXPECTED_ORDER)
            if args.json:
                # ratio: the share of references whose ablations score in the expected order;
                # seconds: the scorer's load and baseline, and the scoring
                print(json.dumps({
                    "bench": "validation_ordering", "configuration": f"minilm-L{layer}-idf-{idf}",
                    "ratio": round(in_order / len(items), 4), "unit": "items in expected order",
                    "seconds": round(seconds, 3),
                    "model_name": scorer.model_name, "layer": layer, "idf": idf == "on",
                    "baseline_f1": round(scorer.baseline_f1, 4), "items": len(items), "source": source,
                    "class_means": {name: round(result.class_means[name], 4) for name in EXPECTED_ORDER},
                    "items_in_order": in_order, "holds": result.order_holds,
                }), flush=True)
            else:
                print(f"{layer:>5} {idf:>3} {scorer.baseline_f1:>8.3f} "
                      + " ".join(f"{result.class_means[n]:>{width}.3f}" for n in EXPECTED_ORDER)
                      + f" {f'{in_order}/{len(items)}':>14}  {'yes' if result.order_holds else 'no'}", flush=True)


if __name__ == "__main__":
    main()
