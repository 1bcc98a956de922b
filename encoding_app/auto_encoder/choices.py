"""The answer's choices: a letter opening a line, a labelled answer, a first-person choice, a
letter called the best. Pure: no Django."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .clauses import _in_question
from .letters import _CLOSE, _LETTER, _OBJECT, _OPT, _is_option_letter


_FINAL_WORDS = re.compile(
    r"final|endg[üu]ltig|окончательн|итогов|النهائ|最终|bottom\s+line|conclusion|verdict|tl;?dr|结论|"
    r"\b(?:in\s+conclusion|finally|ultimately|in\s+the\s+end|all\s+things\s+considered|on\s+balance|overall|"
    r"en\s+conclusion|finalement|finalmente|en\s+definitiva|letztlich|schlie(?:ß|ss)lich|в\s+итоге|итак)\b|"
    r"总之|综上所述|في\s+النهاية|ختاما", re.I)
_LABEL_WORDS = (
    r"(?:(?:my\s+|our\s+)?(?:final\s+)?(?:answer|choice|selection|recommendation|decision|verdict|pick|vote)|"
    r"(?:recommended|preferred|selected|chosen)\s+(?:option|answer|course)|bottom\s+line|conclusion|tl;?dr|(?:ma\s+)?r[ée]ponse(?:\s+finale)?|(?:mon\s+)?choix(?:\s+final)?|"
    r"(?:mi\s+)?respuesta(?:\s+final)?|resposta(?:\s+final)?|(?:endg[üu]ltige\s+|finale\s+|meine\s+)?antwort|"
    r"risposta(?:\s+finale)?|(?:окончательный\s+|итоговый\s+|мой\s+)?ответ|(?:мой\s+)?выбор|"
    r"(?:ال)?إجابة(?:\s+النهائية)?|(?:ال)?جواب(?:\s+النهائي)?|最终答案|最终选择|答案|回答|选择|结论)")
_EN_SUBJECT = (r"\bI\s*(?:would|['’]d|will|['’]ll|shall|do|must|can\s+only)?\s*"
               r"(?:(?:probably|definitely|clearly|still|ultimately|therefore|personally|then|also|strongly|firmly|"
               r"rather|happily|confidently|now)\s+)*")
_GOOD = (r"(?:best|wisest|wise|right|correct|preferable|preferred|prudent|sensible|optimal|recommended|safest|"
         r"soundest|only\s+(?:credible|sensible|viable|realistic|reasonable|responsible)|most\s+(?:prudent|sensible|reasonable|appropriate|balanced|responsible|defensible|measured|"
         r"effective|sound))")
_CHOICE_NOUN = r"(?:choice|option|answer|course(?:\s+of\s+action)?|approach|response|path|pick|call|bet|way\s+forward)"
_VERB_THEN_LETTER = [
    # English
    _EN_SUBJECT + r"(?:choose|select|pick|recommend|prefer|favou?r|support|endorse|back|opt\s+for|go\s+(?:with|for)|say|"
                  r"vote\s+for|side\s+with|lean\s+(?:towards?|to)|settle\s+on|land\s+on)",
    r"\bI\s*(?:am|['’]m)\s+(?:going\s+with|choosing|selecting|picking|opting\s+for|recommending|leaning\s+towards?|"
    r"voting\s+for|settling\s+on)",
    r"\bshould\s+(?:choose|select|pick|go\s+with|opt\s+for|adopt)",
    r"\b(?:my|our)\s+(?:(?:final|initial|first|preliminary|tentative)\s+)?(?:answer|choice|pick|selection|"
    r"recommendation|vote|preference|decision|verdict)"
    r"\s+(?:is|would\s+be|remains|will\s+be)",
    rf"\bthe\s+{_GOOD}\s+{_CHOICE_NOUN}\s+(?:here\s+|for\s+\w+\s+)?(?:is|would\s+be|remains)",
    r"\b(?:the\s+)?(?:correct\s+|right\s+)?answer\s+(?:is|would\s+be|should\s+be)",
    r"\bif\s+(?:I\s+(?:had|have|were|was)\s+(?:to|forced\s+to)|forced|pressed|I\s+must)"
    r"(?:\s+(?:to\s+)?(?:choose|pick|select|answer))?\s*,?\s*(?:I['’]?d\s+(?:choose|pick|say|go\s+with)|it\s+would\s+be)?",
    # French
    r"\bj['’]?e?\s*(?:choisi(?:s|rais|rai)|recommande(?:rais)?|pr[ée]f[èée]re(?:rais)?|opte(?:rais)?\s+pour|"
    r"retiens|retiendrais|s[ée]lectionne(?:rais)?|vote(?:rais)?\s+pour|penche(?:rais)?\s+pour)",
    r"\bmon\s+choix\s+(?:final\s+)?(?:est|serait|se\s+porte\s+sur)",
    r"\bma\s+r[ée]ponse\s+(?:finale\s+)?(?:est|serait)",
    r"\bla\s+(?:meilleure|bonne)\s+(?:option|r[ée]ponse)\s+(?:est|serait)",
    # Spanish
    r"\b(?:yo\s+)?(?:elijo|elegir[ií]a|elegir[ée]|escojo|escoger[ií]a|selecciono|seleccionar[ií]a|recomiendo|"
    r"recomendar[ií]a|prefiero|preferir[ií]a|opto\s+por|optar[ií]a\s+por|me\s+quedo\s+con|me\s+quedar[ií]a\s+con|"
    r"me\s+inclino\s+por|voto\s+por)",
    r"\bmi\s+(?:respuesta|elecci[oó]n|recomendaci[oó]n)\s+(?:final\s+)?(?:es|ser[ií]a)",
    r"\bla\s+mejor\s+opci[oó]n\s+(?:es|ser[ií]a)",
    # German ("Ich würde Option B wählen": the letter comes before the verb)
    r"\bich\s+(?:w[äa]hle|nehme|empfehle|bevorzuge|stimme\s+f[üu]r|entscheide\s+mich\s+f[üu]r|"
    r"w[üu]rde(?:\s+mich\s+f[üu]r)?|werde(?:\s+mich\s+f[üu]r)?)",
    r"\bmeine\s+(?:wahl|antwort|empfehlung|entscheidung)\s+(?:ist|w[äa]re|lautet|f[äa]llt\s+auf)",
    r"\bdie\s+(?:beste|richtige)\s+(?:option|wahl|antwort)\s+(?:ist|w[äa]re)",
    # Russian
    r"(?:\bя\s+)?(?:бы\s+)?(?:выбираю|выберу|выбрал[аи]?|рекомендую|рекомендовал[аи]?|предпочитаю|предпоч[её]л|"
    r"предпочла|голосую\s+за|остановлюсь\s+на|останавливаюсь\s+на)(?:\s+бы)?",
    r"\bмой\s+(?:окончательный\s+)?(?:ответ|выбор)\s*(?:-|это)?",
    r"\b(?:лучший|правильный)\s+(?:вариант|ответ)\s*(?:-|это)",
    # Arabic
    r"(?:أختار|سأختار|اخترت|أوصي\s+ب|أفضّل|أرجّح|أرجح|أميل\s+إلى|أنصح\s+ب)",
    r"(?:اختياري|إجابتي|جوابي|توصيتي)\s*(?:هو|هي)?",
    r"أفضل\s+خيار\s+(?:هو|هي)",
    # Chinese
    r"(?:我(?:会|将|要|想|就|还是)?(?:选择|选|推荐|建议选择|倾向于(?:选择)?|支持)|(?:应该|应当|应)(?:选择|选)|选择|首选|"
    r"我的(?:最终)?(?:选择|答案|回答)是|最(?:好|佳)的?选择是|(?:最终)?答案是)",
]
_VERB_CHOICE = re.compile(rf"(?:{'|'.join(_VERB_THEN_LETTER)}){_OBJECT}", re.I)
_LETTER_THEN_PRAISE = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_OPT}\s*)?{_LETTER}{_CLOSE}(?:"
    rf"\s+(?:is|would\s+be|seems(?:\s+like)?|remains|looks\s+like)\s+(?:clearly\s+|probably\s+|definitely\s+|indeed\s+|still\s+|"
    rf"therefore\s+)?(?:(?:the|my|our)\s+)?(?:{_GOOD}(?:\s+{_CHOICE_NOUN})?|(?:my|our)\s+(?:choice|answer|pick|"
    rf"recommendation)|the\s+way\s+to\s+go)\b|\s+it\s+is\b|"
    r"\s+(?:est|serait|reste|me\s+semble)\s+(?:clairement\s+)?(?:la\s+|le\s+)?(?:meilleur|plus\s+(?:prudent|sage|"
    r"raisonnable)|bonne\s+(?:option|r[ée]ponse))|"
    r"\s+(?:es|ser[ií]a)\s+(?:claramente\s+)?(?:la\s+)?(?:mejor|m[aá]s\s+(?:prudente|sensata|razonable)|correcta)|"
    r"\s+(?:ist|w[äa]re)\s+(?:klar\s+|eindeutig\s+)?(?:die\s+)?(?:beste|richtige|kl[üu]gste|vern[üu]nftigste)|"
    r"\s*(?:-|это|является)\s*(?:сам(?:ый|ым)\s+\w+|наилучш\w+|лучш\w+|оптимальн\w+|правильн\w+|наиболее\s+\w+)|"
    r"\s*(?:是|为)\s*(?:最(?:好|佳|优|明智|合理|稳妥|审慎|恰当)|正确)|"
    # "选项A比较稳妥" (option A is the safer one): without 是, an adverb of degree must say so.
    r"\s*(?:最为|更为|最|更|比较)(?:好|佳|优|明智|合理|稳妥|审慎|恰当|可取)|"
    r"\s*(?:هو|هي)?\s*(?:الأفضل|الأنسب|الأصح|الأحكم|الخيار\s+الأفضل|الصحيح))", re.I)
_LABELLED = re.compile(rf"(?<![A-Za-z])(?P<label>{_LABEL_WORDS})\s*(?:is\s+|est\s+|es\s+|ist\s+|lautet\s+|это\s+|"
                       rf"是\s*|هو\s+|هي\s+)?[:：=\-]\s*(?:{_OPT}\s*[:：]?\s*)?{_LETTER}", re.I)
_LINE_START = re.compile(
    rf"^(?:(?P<label>{_LABEL_WORDS})\s*(?:is\s+)?[:：=\-]?\s*)?(?:{_OPT}\s*[:：]?\s*)?{_LETTER}{_CLOSE}"
    r"(?P<after>[ \t]*(?:[.:：)\],;!\-]|$)|[ \t]+(?=(?-i:[A-Z])))", re.I | re.M)
# A sentence that is only a letter, perhaps after a conclusion: "Not A. Not C. B.",
# "In conclusion, B."
_LETTER_SENTENCE = re.compile(
    r"(?:(?<=[.!?。！？:：])|(?<=[.!?。！？:：]\s))[ \t]*(?:(?:so|thus|therefore|hence|in\s+conclusion|in\s+short|in\s+sum|"
    r"overall|ultimately|on\s+balance|all\s+things\s+considered|finally|donc|en\s+conclusion|por\s+lo\s+tanto|"
    rf"en\s+conclusi[oó]n|also|daher|итак|поэтому|因此|所以|لذلك)\s*[,:：]?\s*)?(?:{_OPT}\s*)?{_LETTER}{_CLOSE}"
    r"[ \t]*(?:[.!。！]|$)", re.I | re.M)
# A letter written as an option's label: "A: …", "(B) …", "C. …" at a line start, or
# "B: …" after a space: two of them and the answer lists options.
_LABEL_LETTER = re.compile(r"(?:^\(?([A-Z])(?:[:：)]|\.(?=\s|$)|\s+-\s)|(?<=\s)\(?([A-Z])[:：)](?=\s))", re.M)


def _overlapping(pattern: re.Pattern, text: str):
    """Every match, also those starting inside an earlier one ("if I had to choose, I would
    choose B": the first reading takes the pronoun I for a letter)."""
    pos = 0
    while (match := pattern.search(text, pos)) is not None:
        yield match
        pos = match.start() + 1


@dataclass
class _Choice:
    letter: str
    start: int  # of the letter
    kind: str  # "line" (opens a line), "sentence" (a letter alone), "labelled", "explicit"
    final: bool = False
    label_line: bool = False  # "B: …" opening a line, no label: an item when the answer lists options


_CONDITION = re.compile(
    r"[\"'”’)\]]*[ \t]*,?[ \t]*(?:but[ \t]+)?(?:only[ \t]+)?(?:if|unless|provided|assuming|in[ \t]+case|sauf[ \t]+si|"
    r"à[ \t]+condition|a[ \t]+menos|siempre[ \t]+que|wenn|falls|sofern|если|除非|إذا)\b"
    r"(?![ \t]+(?:forced|pressed|I[ \t]+must|I[ \t]+had[ \t]+to|necessary|obliged))", re.I)


def _choices(text: str) -> list[_Choice]:
    found = [(_Choice(m.group("letter"), m.start("letter"), "line", label_line=m.group("label") is None), m.end("letter"))
             for m in _LINE_START.finditer(text)]
    found += [(_Choice(m.group("letter"), m.start("letter"), "labelled"), m.end()) for m in _overlapping(_LABELLED, text)]
    found += [(_Choice(m.group("letter"), m.start("letter"), "sentence", label_line=True), m.end("letter"))
              for m in _overlapping(_LETTER_SENTENCE, text)]
    found += [(_Choice(m.group("letter"), m.start("letter"), "explicit"), m.end())
              for pattern in (_VERB_CHOICE, _LETTER_THEN_PRAISE) for m in _overlapping(pattern, text)]
    kept = {}
    for choice, end in sorted(found, key=lambda item: (item[0].start, item[0].kind != "line")):
        if not _is_option_letter(text, choice.start, chosen_context=True) or _in_question(text, choice.start):
            continue
        # "A, B or C are all risky" opens with a list of letters, not a choice; "B, unless
        # Utopia has mobilised" and "I would choose A if…" are conditions, not choices.
        if choice.kind == "line" and re.match(r"[\"'”’)\]]*\s*(?:,|\bor\b|\band\b)\s*(?:option\s+)?[A-Z](?![A-Za-z])",
                                              text[choice.start + 1:]):
            continue
        if _CONDITION.match(text, choice.start + 1) or _CONDITION.match(text, end):
            continue
        sentence = text[_sentence_start(text, choice.start):choice.start]
        choice.final = bool(_FINAL_WORDS.search(sentence))
        choice.label_line = choice.label_line and not choice.final
        kept.setdefault(choice.start, choice)
    return list(kept.values())


def _sentence_start(text: str, pos: int) -> int:
    start = 0
    for end in re.finditer(r"[.!?。！？\n]\s*", text[:pos]):
        if end.end() < pos:
            start = end.end()
    return start
