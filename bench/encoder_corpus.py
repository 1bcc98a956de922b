"""Precision and coverage of the automatic encoder on the hand-checked corpus
(tests/encoding_app/encoder_corpus.py), overall, per language and per class.

precision = coded correctly / coded (an R counts as a code);
coverage  = clear answers coded correctly / clear answers, "clear" meaning the corpus
            expects a code (a letter or R) rather than a reviewer's decision.
Also: how many answers a reviewer gets (unresolved) and the known gaps.

    .venv/bin/python bench/encoder_corpus.py
    .venv/bin/python bench/encoder_corpus.py --misses   # list every miss
    .venv/bin/python bench/encoder_corpus.py --json     # precision and coverage, one JSON object each
    .venv/bin/python bench/encoder_corpus.py --json --by-group   # and of each language and class
"""

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from encoding_app.auto_encoder import encode  # noqa: E402
from tests.encoding_app.encoder_corpus import CORPUS  # noqa: E402


def _counts(results: list) -> dict:
    coded = [(case, got) for case, got in results if got.code is not None]
    clear = [(case, got) for case, got in results if case.expected is not None]
    return {"cases": len(results), "coded": len(coded),
            "correct": sum(got.code == case.expected for case, got in coded),
            "clear": len(clear), "covered": sum(got.code == case.expected for case, got in clear),
            "unresolved": sum(got.code is None for _, got in results)}


def _row(name: str, results: list) -> str:
    n = _counts(results)
    precision = f"{n['correct'] / n['coded']:.1%} ({n['correct']}/{n['coded']})" if n["coded"] else "-"
    coverage = f"{n['covered'] / n['clear']:.1%} ({n['covered']}/{n['clear']})" if n["clear"] else "-"
    return f"{name:<22}{n['cases']:>6}{n['coded']:>7}  {precision:<20}{coverage:<20}{n['unresolved']:>10}"


def _json_rows(group: str, results: list) -> list[str]:
    """Two objects: the precision and the coverage of a group, each as `ratio`."""
    n = _counts(results)
    precision = round(n["correct"] / n["coded"], 4) if n["coded"] else None
    coverage = round(n["covered"] / n["clear"], 4) if n["clear"] else None
    return [json.dumps({"bench": "encoder_corpus", "configuration": f"{group}: {figure}", "group": group,
                        "ratio": value, "unit": unit, **n})
            for figure, value, unit in (("precision", precision, "coded correctly / coded"),
                                        ("coverage", coverage, "clear answers coded correctly / clear answers"))]


def _groups(results: list, key) -> dict:
    groups = defaultdict(list)
    for case, got in results:
        groups[key(case)].append((case, got))
    return {name: groups[name] for name in sorted(groups, key=lambda g: (-len(groups[g]), g))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list the answers coded wrongly or left unresolved")
    parser.add_argument("--json", action="store_true", help="the overall precision and coverage as JSON objects, one "
                                                            "a line (the figure in `ratio`)")
    parser.add_argument("--by-group", action="store_true", help="with --json: each language and class too")
    args = parser.parse_args()
    results = [(case, encode(case.answer, case.options)) for case in CORPUS]
    if args.json:
        lines = _json_rows("all", results)
        for title, key in (("language", lambda c: c.language), ("class", lambda c: c.klass)):
            for name, group in _groups(results, key).items() if args.by_group else ():
                lines += _json_rows(f"{title} {name}", group)
        print("\n".join(lines))
        return
    header = f"{'':<22}{'cases':>6}{'coded':>7}  {'precision':<20}{'coverage':<20}{'unresolved':>10}"
    print(f"Automatic encoder on the hand-checked corpus ({len(CORPUS)} answers)\n")
    for title, key in (("overall", None), ("language", lambda c: c.language), ("class", lambda c: c.klass)):
        print(header.replace(" " * 22, f"{title:<22}", 1))
        if key is None:
            print(_row("all", results))
        else:
            for name, group in _groups(results, key).items():
                print(_row(name, group))
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
