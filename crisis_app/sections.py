"""The part of a free-form answer that is scored for inconsistency.

The original study scored only the text after ``RECOMMENDATIONS:`` and before
``REASONING``, so that differences in the justification do not count as different
decisions. Models decorate the labels (``**RECOMMENDATIONS:**``, ``## Recommendations:``),
so the labels are matched case-insensitively with markdown around them.

When the answer has no section (no start label, or nothing between the labels) the
whole text is scored and ``section_found`` says so, so that an analyst can count the
answers that ignored the format instead of having them silently dropped.
"""

import re
from dataclasses import dataclass

DEFAULT_START_LABEL = "RECOMMENDATIONS"
DEFAULT_END_LABEL = "REASONING"

# Markdown a model puts around a heading: bold/italic markers, heading hashes, quotes.
_MARKUP = r"[*_#>`\s]*"


@dataclass(frozen=True)
class ScoredText:
    text: str
    section_found: bool


@dataclass(frozen=True)
class SectionSpec:
    """Which section of an answer is scored: after ``start_label``, before ``end_label``.

    Labels are plain words; the colon and any markdown around them are optional in the
    answer (the start label needs its colon, so that the word in prose does not count).
    """

    start_label: str = DEFAULT_START_LABEL
    end_label: str = DEFAULT_END_LABEL

    def start_pattern(self):
        label = re.escape(self.start_label.strip().rstrip(":"))
        # "RECOMMENDATIONS:", "**RECOMMENDATIONS:**", "**Recommendations**:"
        return re.compile(rf"\b{label}[*_`\s]*:[*_`]*", re.IGNORECASE)

    def end_pattern(self):
        label = re.escape(self.end_label.strip().rstrip(":"))
        # A heading on its own line ("REASONING", "## Reasoning", "**REASONING:**"), or
        # the label with a colon anywhere. A bare "reasoning" inside a sentence is prose
        # of the recommendations and must not cut them short.
        return re.compile(
            rf"(?:^{_MARKUP}{label}\b|\b{label}[*_`\s]*:)", re.IGNORECASE | re.MULTILINE
        )


DEFAULT_SECTION = SectionSpec()


def _strip_markup(text):
    return text.strip().strip("*_`#").strip()


def scored_text(answer, spec=DEFAULT_SECTION):
    """The scored text of ``answer`` under ``spec`` and whether the section was there."""
    answer = answer or ""
    start = spec.start_pattern().search(answer)
    if start is None:
        return ScoredText(answer.strip(), section_found=False)
    rest = answer[start.end():]
    end = spec.end_pattern().search(rest)
    section = _strip_markup(rest[: end.start()] if end else rest)
    if not section:
        return ScoredText(answer.strip(), section_found=False)
    return ScoredText(section, section_found=True)
