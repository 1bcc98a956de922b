"""What an author's simulation becomes: each variant's texts rendered, the user turns of
move 1 and move 2, the ranked-options prompt and the reading of a ranking, and the
checks that name what an author must fix. Pure: plain dicts in, strings out.

`texts` maps a text's name to its template: background, role, answer_format,
move1_incident and `continuation:<name>` for each continuation.
"""

from __future__ import annotations

import re

from benchmarks_app.lettering import option_letters

from .rendering import PLACEHOLDER, apply_replacements

RANKING_INSTRUCTION = ("Rank these options from the one you most recommend to the one you least recommend. "
                       "Answer with RANKING: followed by every letter once, best first (e.g. RANKING: C, A, B).")


def variant_texts(texts: dict[str, str], replacements: dict[str, str],
                  overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Every text with the variant's overrides, its placeholders filled."""
    merged = dict(texts)
    merged.update({name: text for name, text in (overrides or {}).items() if text})
    return {name: apply_replacements(text, replacements) for name, text in merged.items()}


def move1_user(rendered: dict[str, str], ranked_options: list[str] | None = None) -> str:
    parts = [rendered["background"], rendered["move1_incident"]]
    if ranked_options:
        parts.append(ranking_block(ranked_options))
    else:
        parts.append(rendered["answer_format"])
    return "\n\n".join(part for part in parts if part)


def move2_user(rendered: dict[str, str], continuation: str, ranked_options: list[str] | None = None) -> str:
    text = rendered[f"continuation:{continuation}"]
    return "\n\n".join([text, ranking_block(ranked_options) if ranked_options else rendered["answer_format"]])


def ranking_block(options: list[str]) -> str:
    letters = option_letters(len(options))
    lines = [f"{letter}) {option}" for letter, option in zip(letters, options)]
    return "\n".join(["Options:", *lines, "", RANKING_INSTRUCTION])


_RANKING = re.compile(r"RANKING\s*:?\s*(.+)", re.IGNORECASE)


def read_ranking(answer: str, n_options: int) -> list[str] | None:
    """The letters of a ranking answer, best first, or None when it does not rank every
    option exactly once. Reads the line after `RANKING:`, else the whole answer."""
    letters = option_letters(n_options)
    match = _RANKING.search(answer or "")
    line = match.group(1) if match else (answer or "")
    found = re.findall(r"\b([A-Z])\b", line.upper())
    ranking = [letter for letter in found if letter in letters]
    if len(ranking) != n_options or set(ranking) != set(letters):
        return None
    return ranking


def variant_errors(texts: dict[str, str], replacements: dict[str, str], overrides: dict[str, str],
                   answer_kind: str = "free", ranked_options: list[str] | None = None) -> dict[str, list[str]]:
    """{field: [message]} for a variant that cannot be rendered; {} when it can."""
    errors: dict[str, list[str]] = {}
    if not isinstance(replacements, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in replacements.items()):
        return {"replacements": ['write the map as {"{PLAYER}": "Finland", …}: text keys and text values']}
    if not isinstance(overrides, dict) or not all(isinstance(v, str) for v in overrides.values()):
        return {"text_overrides": ['write the overrides as {"background": "…"}: text values']}
    unknown = sorted(set(overrides) - set(texts))
    if unknown:
        errors["text_overrides"] = [f"no text named {', '.join(unknown)}; the texts are {', '.join(sorted(texts))}"]
    merged = dict(texts)
    merged.update({k: v for k, v in overrides.items() if k in texts and v})
    used = {p for text in merged.values() for p in PLACEHOLDER.findall(text)}
    missing = sorted(used - set(replacements))
    if missing:
        errors.setdefault("replacements", []).append(
            f"no value for {', '.join(missing)} (used in the texts): add it to the map")
    # A ranked variant ranks the simulation's options, or (an imported release's) lists
    # its options in its own answer format, asked as written.
    if answer_kind == "ranked" and len(ranked_options or []) < 2 and not overrides.get("answer_format"):
        errors["answer_kind"] = ["a ranked variant needs the simulation's ranked options (at least 2), or its own "
                                 "answer format listing the options"]
    return errors
