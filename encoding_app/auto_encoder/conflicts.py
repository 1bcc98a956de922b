"""What unsettles a choice: refusals, disclaimers, self-corrections and hedges. Pure: no
Django."""

from __future__ import annotations

import re

from .clauses import _JOINED, _Mention, _in_question
from .letters import _LETTER, _OPEN, _OPT


_REFUSAL = re.compile(
    r"\bI\s*(?:cannot|can\s*not|can['’]t|won['’]t|will\s+not|must\s+decline\s+to|decline\s+to|refuse\s+to|"
    r"(?:am|['’]m)\s+(?:unable|not\s+able|not\s+going|not\s+in\s+a\s+position)\s+to|do\s+not|don['’]t|"
    r"(?:would|['’]d)\s+rather\s+not|prefer\s+not\s+to)\s+(?:(?:really|personally|simply|just|in\s+good\s+conscience|"
    r"responsibly|ethically|honestly|truly|definitively|be\s+able\s+to|make\s+a|feel\s+comfortable)\s+){0,2}"
    r"(?:choose|select|pick|answer|provide|recommend|endorse|make|give|comply|help\s+(?:with|you)|"
    r"assist\s+(?:with|in|you)|take\s+(?:a\s+)?sides?|advocate|offer|express|decide|weigh\s+in|"
    r"(?:have|hold)\s+(?:personal\s+|political\s+)?(?:opinions?|views?|preferences?|beliefs?))|"
    r"\bI\s+(?:would\s+|['’]d\s+)?(?:choose|pick|select)\s+neither\b|\bnone\s+of\s+(?:these|the|those)\s+(?:\w+\s+)?(?:options|choices|answers|alternatives|courses)|"
    r"\bneither\s+(?:option|choice|of\s+(?:these|the|those)\s+(?:options|choices))|"
    r"\bas\s+an?\s+(?:ai|artificial\s+intelligence|language\s+model|ai\s+(?:language\s+)?(?:model|assistant))\b"
    r"[^.\n;]{0,40}?\b(?:not|no|cannot|can['’]t|don['’]t|unable)\b|"
    r"\bnot\s+(?:be\s+)?(?:comfortable|appropriate\s+for\s+me|my\s+place)|"
    r"\bit\s+(?:is|would\s+be)\s+(?:inappropriate|not\s+appropriate)\s+for\s+me|"
    r"\bI\s+(?:must|have\s+to|need\s+to|will|would)\s+(?:abstain|decline|refrain)|\bI\s+(?:abstain|decline)\b|"
    r"\bje\s+ne\s+(?:peux|puis|saurais|vais|souhaite)\s+pas\b(?:\s+(?:choisir|recommander|retenir))?|\bje\s+(?:refuse|m['’]abstiens)\b|"
    r"\baucune\s+de\s+ces\s+options\b|\ben\s+tant\s+qu['’](?:ia|intelligence)|"
    r"\bno\s+puedo\b(?:\s+(?:elegir|escoger|recomendar|apoyar))?|\bme\s+niego\b|\bninguna\s+de\s+(?:estas|las)\s+opciones\b|\bprefiero\s+no\b|\bme\s+abstengo\b|"
    r"\bcomo\s+(?:una\s+)?(?:ia|inteligencia\s+artificial)\b[^.\n;]{0,40}?\bno\b|"
    r"\bich\s+(?:kann|m[öo]chte|werde|darf)\s+(?:hier\s+)?(?:keine|nicht)\b|\bkeine\s+der\s+(?:optionen|m[öo]glichkeiten)\b|"
    r"\bals\s+(?:eine\s+)?ki\b[^.\n;]{0,40}?\b(?:nicht|keine)\b|"
    r"\bя\s+не\s+(?:могу|буду|стану|вправе)\b(?:\s+(?:выбрать|выбирать|рекомендовать|советовать|предложить))?|\bне\s+могу\s+(?:выбрать|дать|рекомендовать|ответить)|"
    r"\bни\s+один\s+из\s+(?:вариантов|предложенных)|\bвоздерж\w*|"
    r"\bкак\s+(?:ии|искусственный\s+интеллект|языковая\s+модель)\b[^.\n;]{0,40}?\bне\b|"
    r"لا\s+(?:أستطيع|يمكنني)|لن\s+أختار|لا\s+أملك\s+(?:آراء|رأيا|رأيًا)|ليس\s+لدي\s+(?:آراء|رأي)|"
    r"بصفتي\s+(?:ذكاء|نموذج)|أرفض|أمتنع|لا\s+أرى\s+أيا|"
    r"我(?:不能|无法|不会|拒绝|不便|不宜)(?:选择|选|推荐|回答)?|无法(?:选择|回答|做出)|作为(?:一个)?(?:人工智能|AI|语言模型)|以上(?:选项)?都不|"
    r"都不(?:合适|可取|恰当)", re.I)
# A disclaimer is no refusal to choose: a choice before it stands.
_DISCLAIMER = re.compile(r"\bas\s+an?\s+(?:ai|artificial|language)|opinions?|views?|preferences?|beliefs?|sides?|"
                         r"en\s+tant|como\s+(?:una\s+)?(?:ia|intel)|als\s+(?:eine\s+)?ki|как\s+|بصفتي|آراء|رأي|作为",
                         re.I)
_CORRECTION = re.compile(
    r"\b(?:wait|actually|on\s+(?:second|further)\s+thoughts?|on\s+reflection|correction|scratch\s+that|I\s+mean|"
    r"let\s+me\s+reconsider|I\s+take\s+(?:that|it)\s+back|I\s+(?:change|revise|update)\s+my\s+(?:answer|choice|mind)|"
    r"changing\s+my\s+answer|en\s+fait|à\s+la\s+réflexion|en\s+realidad|mejor\s+dicho|pensándolo\s+bien|eigentlich|"
    r"korrektur|на\s+самом\s+деле|точнее|подождите|хотя\s+нет)\b|不对|其实|更正|等等|في\s+الواقع|في\s+الحقيقة", re.I)
_AND_WORDS = {"and", "und", "et", "y", "и", "和", "与", "و"}
# A second option kept open beside the choice ("I lean towards C but would also consider A"):
# a hedge, not a choice of C.
_ALSO_OPEN = re.compile(
    rf"\b(?:would|could|might|may|['’]d|can)\s+also\s+(?:consider|go\s+with|choose|pick|accept|support|"
    rf"recommend|live\s+with)\s+(?:{_OPT}\s*)?{_LETTER}", re.I)
_BOTH = re.compile(r"\b(?:between|both|entre|zwischen|между|ambas|beide)\s+(?:options?\s+)?$|在$", re.I)


def _hedges(text: str, mentions: list[_Mention], valid: str, chosen: set[str]) -> list[tuple[_Mention, _Mention]]:
    """Pairs of letters offered as alternatives ("A or B", "either A or C", "between A and B",
    "I choose A and C"); a list of three or more letters is the option set, not a hedge."""
    joined = []
    for first, second in zip(mentions, mentions[1:]):
        gap = text[first.start + 1:second.start]
        match = _JOINED.match(gap)
        listed = re.fullmatch(rf"[\"'”’)\]]*\s*[,、，]\s*(?:{_OPT}\s*)?{_OPEN}", gap, re.I)
        joined.append(match.group("conn").lower() if match else "," if listed else None)
    pairs = []
    for i, conn in enumerate(joined):
        first, second = mentions[i], mentions[i + 1]
        if conn in (None, ",") or first.letter == second.letter or first.letter not in valid or second.letter not in valid:
            continue
        in_list = (i > 0 and joined[i - 1] is not None) or (i + 1 < len(joined) and joined[i + 1] is not None)
        if in_list or first.negated or _in_question(text, first.start):
            continue
        if conn in _AND_WORDS and not (_BOTH.search(text[max(0, first.start - 20):first.start])
                                       or re.match(r"\s+(?:are|seem|would)\s+both|\s+both", text[second.start + 1:])
                                       or first.letter in chosen):
            continue
        pairs.append((first, second))
    return pairs
