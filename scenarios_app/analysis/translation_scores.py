"""The translation quality beside each language's figures (issue 41): for each language of
the CFPD dashboard's language panels, the back-translation scores (`analysis_app.
translation_quality`: chrF 0-100, BERTScore F1 0-1, per field) of the approved
translations whose questions the filter's answers were asked in, so that an effect on a
poorly translated item is visible as such. Pure: no Django.

A translation's score is the mean over its scored fields (template, option_a, …); a
language's is the mean over its translations that have a back-translation. A translation
without one (written by a person, imported) is counted as used and not scored."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean


@dataclass(frozen=True)
class LanguageQuality:
    language: str
    translations: int  # approved translations whose questions were answered
    scored: int  # of which with a back-translation
    chrf: float | None  # mean over the scored translations of their fields' mean
    bertscore_f1: float | None
    drifted: int  # fields flagged as drifted, over the scored translations

    def sentence(self, source: str) -> str:
        if self.language == source:
            return f"{self.language}: the source language"
        if not self.scored:
            return f"{self.language}: no back-translation ({self._used()})"
        bert = "" if self.bertscore_f1 is None else f", BERTScore F1 {self.bertscore_f1:.2f}"
        drifted = f"; {self.drifted} field{'s' if self.drifted != 1 else ''} drifted" if self.drifted else ""
        return (f"{self.language}: chrF {self.chrf:.1f}{bert} ({self.scored} of {self._used()} "
                f"back-translated{drifted})")

    def _used(self) -> str:
        return f"{self.translations} translation{'s' if self.translations != 1 else ''} used"


def _translation_means(scores: dict) -> tuple[float | None, float | None, int]:
    items = [item for item in (scores or {}).values() if isinstance(item, dict) and item.get("chrf") is not None]
    if not items:
        return None, None, 0
    berts = [float(i["bertscore_f1"]) for i in items if i.get("bertscore_f1") is not None]
    return (fmean(float(i["chrf"]) for i in items), fmean(berts) if berts else None,
            sum(1 for i in items if i.get("drifted")))


def language_quality(used: list[tuple[str, dict]], languages: list[str], source: str) -> dict[str, LanguageQuality]:
    """`used`: (language, scores) per approved translation used; one LanguageQuality per
    language of `languages` (the source language and a language with no translation used
    included, with nothing scored)."""
    by_language: dict[str, list[tuple[float | None, float | None, int]]] = {lang: [] for lang in languages}
    for language, scores in used:
        by_language.setdefault(language, []).append(_translation_means(scores))
    out = {}
    for language, means in by_language.items():
        scored = [m for m in means if m[0] is not None]
        berts = [m[1] for m in scored if m[1] is not None]
        out[language] = LanguageQuality(
            language, len(means), len(scored), fmean(m[0] for m in scored) if scored else None,
            fmean(berts) if berts else None, sum(m[2] for m in scored))
    return out


def quality_note(quality: dict[str, LanguageQuality], source: str) -> str:
    """The sentence the language panels' notes end with."""
    if not quality:
        return ""
    return (" Translation quality (back-translation against the source, mean of the approved translations "
            "used): " + "; ".join(q.sentence(source) for q in quality.values()) + ".")
