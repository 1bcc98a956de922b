"""Precision and coverage of the automatic encoder on the hand-checked corpus
(tests/unit/encoder_corpus.py), overall, per language and per class.

precision = coded correctly / coded (an R counts as a code);
coverage  = clear answers coded correctly / clear answers, "clear" meaning the corpus
            expects a code (a letter or R) rather than a reviewer's decision.
Also: how many answers a reviewer gets (unresolved) and the known gaps.

    .venv/bin/python bench/encoder_corpus.py
    .venv/bin/python bench/encoder_corpus.py --misses   # list every miss
"""

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from encoding_app.auto_encoder import encode  # noqa: E402
from tests.unit.encoder_corpus import CORPUS  # noqa: E402


def _row(name: str, results: list) -> str:
    coded = [(case, got) for case, got in results if got.code is not None]
    correct = sum(got.code == case.expected for case, got in coded)
    clear = [(case, got) for case, got in results if case.expected is not None]
    covered = sum(got.code == case.expected for case, got in clear)
    precision = f"{correct / len(coded):.1%} ({correct}/{len(coded)})" if coded else "-"
    coverage = f"{covered / len(clear):.1%} ({covered}/{len(clear)})" if clear else "-"
    unresolved = sum(got.code is None for _, got in results)
    return f"{name:<22}{len(results):>6}{len(coded):>7}  {precision:<20}{coverage:<20}{unresolved:>10}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the answers coded wrongly or left unresolved")
    args = parser.parse_args()
    results = [(case, encode(case.answer, case.options)) for case in CORPUS]
    header = f"{'':<22}{'cases':>6}{'coded':>7}  {'precision':<20}{'coverage':<20}{'unresolved':>10}"
    print(f"Automatic encoder on the hand-checked corpus ({len(CORPUS)} answers)\n")
    for title, key in (("overall", None), ("language", lambda c: c.language), ("class", lambda c: c.klass)):
        print(header.replace(" " * 22, f"{title:<22}", 1))
        if key is None:
            print(_row("all", results))
        else:
            groups = defaultdict(list)
            for case, got in results:
                groups[key(case)].append((case, got))
            for name in sorted(groups, key=lambda g: (-len(groups[g]), g)):
                print(_row(name, groups[name]))
        print()
    wrong = [(case, got) for case, got in results if got.code is not None and got.code != case.expected]
    gaps = [(case, got) for case, got in results if case.expected is not None and got.code is None]
    print(f"coded wrongly: {len(wrong)}; clear answers left to reviewers: {len(gaps)}")
    if args.misses or wrong:
        for case, got in wrong + gaps:
            print(f"  [{case.klass}/{case.language}] expected {case.expected}, got {got.code} ({got.rule}): "
                  f"{case.answer[:90]!r}")


if __name__ == "__main__":
    main()
