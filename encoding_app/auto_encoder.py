"""The automatic encoder: a raw answer and the question's options in, a code out.

Codes are the paper's (appendix A.3): the option letter (`A` … `J`, the position in the
options list given), or `R` for a refusal. Anything ambiguous is left unresolved (code None)
with a reason a reviewer can read: a wrong automatic code is worse than a question to a
person. Pure: no Django.

How an answer is read:
1. empty — nothing to code (the caller counts it as missing, never as R);
2. markup goes: HTML tags (script and style with their content), code fences, markdown
   emphasis, bullets and headings, dash variants (`B — impose` reads as `B - impose`);
3. bare-letter — what is left is one letter (`B`, `**B**`, `<b>B</b>`, ```` ```B``` ````);
4. the answer's *choices* are collected: a letter opening a line (`B: …`, `Answer: B`,
   `Option C`), a labelled answer anywhere (`Answer: B`, `Respuesta: B`, `الإجابة: B`,
   `答案：B`), a first-person choice (`I would choose B`, `je choisirais l'option A`,
   `Ich würde Option B wählen`, `Я выбираю вариант B`, `أختار الخيار B`, `我选择B`) or a
   letter called the best (`A is the prudent choice`). A choice inside a question, or under
   negation (`I would not choose B`, `never B`, `B must be avoided`), is no choice;
5. conflict leaves the answer unresolved: a rejected letter that is also chosen
   (negated-choice), two different choices (several-answers), a choice changed after
   `wait`/`actually`/`on reflection` (self-correction), a choice offered with an alternative
   (`A or B`, `either A or C`, `I lean towards C but would also consider A`; hedge), a letter
   followed by another option's wording (letter-text-mismatch), several lettered options
   written out (lists-options), a refusal after the choice (refusal-after-choice);
6. final-answer — a `Final answer: B` (or a conclusion: `Ultimately, I choose B`) after
   reasoning that mentions other letters is B, unless an earlier choice says otherwise
   (final-answer-conflict);
7. one choice left: leading-letter (it opens the answer), explicit-choice, or
   refusal-then-choice (a disclaimer or refusal first: a clear choice after it is a choice);
8. option-text — the wording of exactly one option, not under negation;
9. refusal — an explicit refusal or a declared inability to choose, and no choice; a letter
   named after the refusal (refusal-then-letter) or two letters named in it out of more
   options ("I cannot choose between A and B" of three: hedge) go to a reviewer.

`Encoding.confidence` is a fixed prior per rule, kept for callers of this pure module; the
confidence stored on a code is the rule's audited accuracy (`encoding_app.audits`).
"""

from __future__ import annotations

import html
import re
import string
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher


@dataclass(frozen=True)
class Encoding:
    code: str | None  # an option letter, "R", or None (unresolved)
    rule: str
    confidence: float
    reason: str = ""  # for unresolved answers: a sentence for the reviewer

    @property
    def resolved(self) -> bool:
        return self.code is not None


CONFIDENCE = {"bare-letter": 1.0, "leading-letter": 0.95, "explicit-choice": 0.9, "final-answer": 0.9,
              "refusal-then-choice": 0.8, "option-text": 0.85, "refusal": 0.9}
MISMATCH_RATIO = 0.6  # how close to another option's wording the text after a letter must be
SCOPE = 80  # how far back (characters) a negation can reach a letter in its clause

# ---------------------------------------------------------------- cleaning markup

_DROPPED_ELEMENTS = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.I | re.S)
_BLOCK_TAG = re.compile(r"</?(?:p|div|br|li|ul|ol|tr|td|th|table|h[1-6]|pre|blockquote|section|article|hr)\b[^<>]*>",
                        re.I)
_ANY_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_FENCE = re.compile(r"```[\w+-]*(?=[ \t]*\n)|```|~~~")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_LINE_MARKERS = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*|>[ \t]*|[-+•·][ \t]+|\d{1,2}[.)][ \t]+)+", re.M)
_HYPHENS = re.compile("[\u2010\u2011\u2212\ufe63\uff0d]")
_DASHES = re.compile("[ \t]*[\u2012-\u2015\ufe58][ \t]*")
# Russian answers sometimes write the option letter in Cyrillic (В for B); only where it
# stands as a letter: after "вариант"/"ответ", or alone before punctuation.
_CYRILLIC_LOOKALIKES = {"А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H"}
_CYRILLIC_LETTER = re.compile(r"(?i:((?:вариант|ответ|выбор|пункт)\w*\s*[:：-]?\s*[\"'«(]?))([АВСЕН])(?!\w)"
                              r"|(?<!\w)([АВСЕН])(?=[ \t]*(?:[.):\]]|$))", re.M)


def _clean(answer: str) -> str:
    text = html.unescape(answer)
    text = unicodedata.normalize("NFKC", text)
    text = _DROPPED_ELEMENTS.sub(" ", text)
    text = _BLOCK_TAG.sub("\n", text)
    text = _ANY_TAG.sub("", text)
    text = _FENCE.sub("\n", text)
    text = text.replace("*", "").replace("`", "").replace("~~", "")
    text = _UNDERSCORE_EMPHASIS.sub("", text)
    text = _HYPHENS.sub("-", text)
    text = _DASHES.sub(" - ", text)
    text = _CYRILLIC_LETTER.sub(
        lambda m: (m.group(1) + _CYRILLIC_LOOKALIKES[m.group(2)]) if m.group(2) else _CYRILLIC_LOOKALIKES[m.group(3)],
        text)
    text = re.sub(r"[ \t\u00a0\u3000]+", " ", text)
    text = _LINE_MARKERS.sub("", text)
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


# ---------------------------------------------------------------- letters

# A capital standing alone: not inside a word, an abbreviation (U.S.) or a compound (B-52).
_AFTER_LETTER = r"(?![A-Za-z0-9]|['’](?:d|ll|m|ve|re|t)\b|-\w|\.[A-Za-z])"
_MENTION = re.compile(rf"(?<![A-Za-z0-9.])[A-Z]{_AFTER_LETTER}")
_OPT = (r"(?:(?:the\s+)?(?:option|choice|letter|alternative|answer)|l['’]\s*option|la\s+opci[oó]n|opci[oó]n|"
        r"op[cç][aã]o|(?:die\s+)?(?:antwort|variante|m[oö]glichkeit)|вариант\w*|пункт|(?:ال)?خيار|(?:ال)?إجابة|"
        r"选项|方案)")
_OPEN = r"[\"'“‘«(\[]*"
_CLOSE = r"[\"'”’»)\]]*"
_LETTER = rf"{_OPEN}(?P<letter>(?-i:[A-Z])){_AFTER_LETTER}"
_OBJECT = rf"\s*[:：]?\s*(?:(?:la|le|el|die|der|das)\s+)?(?:{_OPT}\s*[:：]?\s*)?{_LETTER}"  # what follows a choice verb
# Words after which a capital is an option letter (unless it is "I" the pronoun or "A" the
# article, which also need what follows them to fit).
_LETTER_CONTEXT = re.compile(
    rf"(?:{_OPT}\s*[:：]?|[(\[\"'“‘«]|(?<![A-Za-z])(?-i:[A-Z])\s*(?:,|/|\bor|\band|\bou|\bo|\boder|или|或|أو)|"
    r"\b(?:choose|chose|select|pick|recommend|prefer|favou?r|support|endorse|opt\s+for|go\s+with|not|never)|[:：])\s*$",
    re.I)
# What the letter A may be followed by (else it is the article: "A British response…").
_A_FOLLOWERS = frozenset("""is was would will could should might may must can cannot seems seemed appears remains
offers risks has had carries avoids provides gives leads means makes keeps looks sounds does balances protects
preserves signals escalates and or nor vs versus because since as over rather instead than but for with to if here
too also alone only best first then now still though while whereas
est serait es sería ist wäre porque pues car parce puisque weil denn da y et und o ou oder pero mais aber sino sondern
con avec mit sin sans ohne""".split())
_I_FOLLOWERS = frozenset("is seems remains because since over rather instead than as est es ist porque car weil".split())
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")


def _is_option_letter(text: str, start: int, chosen_context: bool = False) -> bool:
    """Whether the capital at `start` is an option letter, not the article A or the pronoun I.

    `chosen_context`: the letter stands where a choice puts its letter (after `I choose`,
    `Answer:`, at a line's start), so a bare "I" can be the ninth option."""
    letter = text[start]
    if letter not in "AI":
        return True
    strong = bool(_LETTER_CONTEXT.search(text[max(0, start - 30):start]))
    word = _NEXT_WORD.match(text, start + 1)
    if letter == "I":
        if strong and not re.match(r"\s*(?:would|will|think|believe|am|have|do|can|must|'|’)", text[start + 1:]):
            return True
        if not chosen_context:
            return False
        return word is None or word.group(1).lower() in _I_FOLLOWERS or not word.group(1).isascii()
    if word is None or strong and not word.group(1)[0].isupper():
        return True
    return word.group(1).lower() in _A_FOLLOWERS or not word.group(1).isascii()


# ---------------------------------------------------------------- clauses and negation

_BOUNDARY = re.compile(
    r"[.!?;。！？；\n]|,(?=\s*(?:I|we|my|our|so|but|yet|however|then|the|they|it|this|that|you)\b)|,(?=[\u4e00-\u9fff])|"
    r"\b(?:but|however|yet|whereas|although|though|while|so|therefore|thus|hence|mais|pero|sino|aber|sondern|"
    r"но|однако|поэтому)\b|ولكن|لكن|但是|但|不过|然而|所以|因此", re.I)
_POST_BOUNDARY = re.compile(rf"{_BOUNDARY.pattern}|[,，:：)\-]|\b(?:because|since|as|which|who|given|due|if|when|"
                            r"porque|parce|car|puisque|weil|denn|потому|так\s+как)\b|因为|لأن", re.I)
POST_SCOPE = 40  # a rejection right after a letter: "B must be avoided", "B is not…"
_PRE_NEGATION = re.compile(
    r"\b(?:not|never|no(?!\s*[,.!;:]|\s+wait\b)|neither|nor|nobody|none|cannot|avoid\w*|reject\w*|rule\s+out|ruling\s+out|against|"
    r"instead\s+of|rather\s+than|other\s+than|anything\s+but|refus\w*|declin\w*|oppos\w*|far\s+from|"
    r"abandon\w*|dismiss\w*|discard\w*|eliminat\w*|exclud\w*|"
    r"ne|pas|jamais|aucun\w*|plutôt\s+que|éviter|rejet\w*|rejette\w*|"
    r"nunca|jamás|ni|ningun\w*|evitar\w*|rechaz\w*|en\s+lugar\s+de|en\s+vez\s+de|"
    r"nicht|nie|niemals|kein\w*|vermeid\w*|ablehn\w*|statt|anstatt|"
    r"не|ни|никогда|нельзя|избега\w*|отверга\w*|вместо)\b|n['’]t\b|\bn['’]|"
    r"(?<!\w)(?:لا|لن|ليس|لست|لم|أبدا|أبداً|تجنب\w*|أرفض|بدلا\s+من|بدلاً\s+من)(?!\w)|"
    r"不(?!对|过|仅)|没|別|别|避免|拒绝|而非|而不是", re.I)
_POST_NEGATION = re.compile(
    r"\b(?:not|never|avoid\w*|reject\w*|mistake|unacceptable|unwise|inadvisable|ill-advised|reckless|dangerous|"
    r"wrong|out\s+of\s+the\s+question|off\s+the\s+table|ruled\s+out|non-starter|too\s+risky|"
    r"pas|jamais|à\s+éviter|exclu\w*|inacceptable|no|nunca|inaceptable|descartad\w*|a\s+evitar|"
    r"nicht|nie|niemals|kein\w*|auszuschließen|inakzeptabel|vermeiden|не|нельзя|неприемлем\w*|исключ\w*)\b|"
    r"n['’]t\b|(?<!\w)(?:لا|ليس|ليست|غير\s+مقبول|مرفوض|يجب\s+تجنب\w*)(?!\w)|不|没|应避免|要避免|排除", re.I)
_TRAILING_NEGATION = re.compile(r"(?:\b(?:not|never|rather\s+than|instead\s+of|over|nicht|не|pas|no)|不)\W*$", re.I)


def _clause_start(text: str, pos: int, floor: int = 0) -> int:
    start = max(floor, pos - SCOPE)
    for boundary in _BOUNDARY.finditer(text, start, pos):
        start = boundary.end()
    return start


def _clause_end(text: str, pos: int) -> int:
    boundary = _BOUNDARY.search(text, pos)
    return boundary.start() if boundary else len(text)


def _negated(text: str, start: int, end: int, previous_end: int, next_start: int) -> bool:
    """Whether the span text[start:end] (a letter or an option's wording) is rejected in its
    clause: a negation before it, or a rejection right after it."""
    before = text[_clause_start(text, start, previous_end):start]
    if _PRE_NEGATION.search(before):
        return True
    limit = min(next_start, end + POST_SCOPE)
    stop = _POST_BOUNDARY.search(text, end, limit)
    after = text[end:stop.start() if stop else limit]
    if not stop and next_start <= end + POST_SCOPE:
        after = _TRAILING_NEGATION.sub("", after)
    return bool(_POST_NEGATION.search(after))


def _in_question(text: str, pos: int) -> bool:
    end = re.compile(r"[.!?。！？\n]").search(text, pos)
    return bool(end) and end.group() in "?？"


@dataclass
class _Mention:
    letter: str
    start: int
    negated: bool = False


def _mentions(text: str) -> list[_Mention]:
    found = [_Mention(m.group(), m.start()) for m in _MENTION.finditer(text)
             if _is_option_letter(text, m.start()) and not re.search(
                 r"\b(?:plan|vitamin|type|class|grade|part|article|annex|appendix|section|schedule|tier|phase|"
                 r"stage|group|category|country|state|power|nation)\s*$", text[max(0, m.start() - 15):m.start()], re.I)]
    for i, mention in enumerate(found):
        previous_end = found[i - 1].start + 1 if i else 0
        next_start = found[i + 1].start if i + 1 < len(found) else len(text)
        mention.negated = _negated(text, mention.start, mention.start + 1, previous_end, next_start)
        if i and found[i - 1].negated and (_JOINED.match(text[previous_end:mention.start]) or re.fullmatch(
                rf"[\"'”’)\]]*\s*(?:,|nor|ni|noch|ни)\s*(?:{_OPT}\s*)?{_OPEN}", text[previous_end:mention.start], re.I)):
            mention.negated = True
    return found


# ---------------------------------------------------------------- choices

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


# ---------------------------------------------------------------- refusals, corrections, hedges

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
_JOINED = re.compile(
    r"[\"'”’)\]]*\s*,?\s*(?P<conn>or|and/or|/|ou|o|oder|или|либо|或者|或|还是|أو|and|und|et|y|и|和|与|و)\s*"
    r"(?:(?:perhaps|maybe|possibly|even|alternatively|else|peut-être|quizás|tal\s+vez|vielleicht|может\s+быть|也许|"
    rf"ربما)\s*)?,?\s*(?:{_OPT}\s*)?{_OPEN}$", re.I)
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


# ---------------------------------------------------------------- option wording

def _words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())


def _option_spans(text: str, options: list[str]) -> list[tuple[int, int, int]]:
    """(option index, start, end) of each option's full wording in the answer, any
    punctuation between words and its first word in any form; an option quoted inside a
    longer one's wording is not counted."""
    spans = []
    for index, option in enumerate(options):
        words = _words(option)
        if len(" ".join(words)) < 12:
            continue
        # The opening verb in any form: "launching a full-scale offensive…" quotes "Launch a …".
        head = re.escape(words[0][:-1] if words[0].endswith("e") and len(words[0]) > 3 else words[0]) + r"\w{0,4}"
        pattern = re.compile(r"(?<!\w)" + r"\W+".join([head, *map(re.escape, words[1:])]) + r"(?!\w)", re.I)
        spans += [(index, m.start(), m.end()) for m in pattern.finditer(text)]
    return [s for s in spans if not any(o != s and o[1] <= s[1] and s[2] <= o[2] for o in spans)]


def _normalise(text: str) -> str:
    return " ".join(_words(text))


def _echoes_another_option(rest: str, options: list[str], chosen: int) -> int | None:
    """The option whose wording the first line after a letter clearly is, if not the chosen one."""
    line = _normalise(rest.strip().split("\n", 1)[0])
    if len(line) < 12 or not options:
        return None
    ratios = [SequenceMatcher(None, line[: len(_normalise(o)) + 20], _normalise(o)).ratio() for o in options]
    best = max(range(len(options)), key=ratios.__getitem__)
    if best != chosen and ratios[best] >= MISMATCH_RATIO and ratios[best] - ratios[chosen] >= 0.15:
        return best
    return None


# ---------------------------------------------------------------- the encoder

def _unresolved(rule: str, reason: str) -> Encoding:
    return Encoding(None, rule, 0.0, reason)


def _coded(code: str, rule: str) -> Encoding:
    return Encoding(code, rule, CONFIDENCE[rule])


def _join(letters) -> str:
    letters = sorted(set(letters))
    return ", ".join(letters[:-1]) + " and " + letters[-1] if len(letters) > 1 else "".join(letters)


def _quote(text: str, pos: int) -> str:
    start, end = _sentence_start(text, pos), re.compile(r"[.!?。！？\n]|$").search(text, pos + 1).end()
    snippet = text[start:end].strip()
    return snippet if len(snippet) <= 90 else snippet[:87] + "…"


def encode(answer: str | None, options: list[str]) -> Encoding:
    """Code one raw answer against the question's options, lettered A, B, C … in order."""
    valid = string.ascii_uppercase[: len(options)]
    if not (answer or "").strip():
        return _unresolved("empty", "The answer is empty.")
    text = _clean(answer)
    if not text:
        return _unresolved("unresolved", "Nothing is left once the markup is taken out.")
    result = _read(text, options, valid)
    if result.code is not None and result.code != "R" and result.code not in valid:  # never a letter past the options
        return _unresolved("letter-not-an-option", f"{result.code} is not one of the options.")
    return result


def _read(text: str, options: list[str], valid: str) -> Encoding:
    bare = re.fullmatch(r"[\s\"'“”‘’«»\[\](){}.,:;!-]*([A-Z])[\s\"'“”‘’«»\[\](){}.,:;!-]*", text)
    if bare:
        letter = bare.group(1)
        if letter in valid:
            return _coded(letter, "bare-letter")
        return _unresolved("letter-not-an-option", f"{letter} is not one of the options ({_join(valid)}).")

    mentions = _mentions(text)
    negated_at = {m.start for m in mentions if m.negated}
    negated_letters = {m.letter for m in mentions if m.negated and m.letter in valid}
    choices = [c for c in _choices(text) if c.start not in negated_at]

    labels = {a or b for a, b in _LABEL_LETTER.findall(text)}
    listing = len(labels) >= 2
    if listing:
        choices = [c for c in choices if not c.label_line]

    # An invented option opening the answer (A.3: "E: … I would choose B") is dropped when
    # something else decides; alone, it is a letter that is not an option.
    invalid = [c for c in choices if c.letter not in valid]
    choices = [c for c in choices if c.letter in valid]
    refusals = [m for m in _REFUSAL.finditer(text) if not re.match(_OBJECT, text[m.end():], re.I)
                or not _is_option_letter(text, m.end() + re.match(_OBJECT, text[m.end():], re.I).start("letter"))]
    if any(c.kind != "line" for c in invalid) and choices:
        return _unresolved("several-answers",
                           f"The answer chooses {_join(c.letter for c in invalid + choices)}, "
                           f"and {_join(c.letter for c in invalid)} is not an option.")

    spans = _option_spans(text, options)
    span_negated = {}
    for index, start, end in spans:
        previous_end = max([m.start + 1 for m in mentions if m.start < start] + [0])
        next_start = min([m.start for m in mentions if m.start >= end] + [len(text)])
        span_negated[(index, start)] = _negated(text, start, end, previous_end, next_start)
    quoted = [(i, s) for i, s, _ in spans if not span_negated[(i, s)]]

    chosen = {c.letter for c in choices}
    # A self-correction: a choice (or an option's wording, or a refusal), then "wait",
    # "actually", "on reflection"… and another letter.
    evidence = [(c.start, c.letter) for c in choices] + [(s, valid[i]) for i, s in quoted] + \
               [(m.start(), "R") for m in refusals]
    for cue in _CORRECTION.finditer(text):
        before = {code for pos, code in evidence if pos < cue.start()}
        after = [m for m in mentions if cue.end() <= m.start <= cue.end() + 120 and m.letter in valid and not m.negated]
        direct = re.match(rf"\s*[,:-]?\s*(?:{_OPT}\s*)?{_LETTER}", text[cue.end():], re.I)
        if direct and direct.group("letter") in valid and cue.end() + direct.start("letter") not in negated_at and \
                _is_option_letter(text, cue.end() + direct.start("letter"), chosen_context=True):
            after.insert(0, _Mention(direct.group("letter"), cue.end() + direct.start("letter")))
        if before and after and (before - {after[0].letter}):
            changed_from = _join(before - {after[0].letter}).replace("R", "a refusal")
            return _unresolved("self-correction",
                               f"The answer changes its choice from {changed_from} to {after[0].letter}: "
                               f"“{_quote(text, cue.start())}”")

    hedges = _hedges(text, mentions, valid, chosen)
    # "I cannot choose between A and B" with A and B the only options is a refusal, not a hedge.
    for refusal in refusals:
        start, end = _clause_start(text, refusal.start()), _clause_end(text, refusal.end())
        if {m.letter for m in mentions if start <= m.start < end} >= set(valid):
            hedges = [pair for pair in hedges if not start <= pair[0].start < end]
    finals = [c for c in choices if c.final]
    if finals:
        final = finals[-1].letter
        if len({c.letter for c in finals}) > 1:
            return _unresolved("several-answers", f"The answer gives two final answers: {_join(c.letter for c in finals)}.")
        earlier = {c.letter for c in choices if not c.final and c.letter != final}
        if final in negated_letters:
            return _negated_choice(text, mentions, final)
        if earlier:
            return _unresolved("final-answer-conflict",
                               f"The final answer {final} contradicts the earlier choice of {_join(earlier)}.")
        late_hedges = [pair for pair in hedges if pair[0].start >= finals[-1].start]
        if late_hedges:
            return _hedge(text, late_hedges[0])
        if any(m.start() > finals[-1].start and not _DISCLAIMER.search(m.group()) for m in refusals):
            return _unresolved("refusal-after-choice", f"The answer gives {final}, then declines to choose.")
        return _coded(final, "final-answer")

    if len(chosen) > 1:
        return _unresolved("several-answers", f"The answer chooses more than one option: {_join(chosen)}.")
    if hedges:
        return _hedge(text, hedges[0])
    if len(chosen) == 1:
        letter = chosen.pop()
        if letter in negated_letters:
            return _negated_choice(text, mentions, letter)
        for choice in choices:
            rest = text[choice.start + 1:]
            if re.match(r"[\"'”’)\]]*[ \t]*(?:[:：.)\-,]|[ \t](?=[A-Z]))", rest):
                other = _echoes_another_option(re.sub(r"^[\"'”’)\]]*[ \t]*[:：.)\-,]?", "", rest), options,
                                               valid.index(letter))
                if other is not None:
                    return _unresolved("letter-text-mismatch",
                                       f"The letter {letter} is followed by the wording of option {valid[other]}.")
        first = min(c.start for c in choices)
        for also in _ALSO_OPEN.finditer(text):
            other = also.group("letter")
            if other in valid and other != letter and also.start("letter") not in negated_at:
                return _unresolved("hedge", f"The answer chooses {letter} but would also consider {other}: "
                                            f"“{_quote(text, also.start())}”")
        if any(m.start() > first and not _DISCLAIMER.search(m.group()) for m in refusals):
            return _unresolved("refusal-after-choice", f"The answer gives {letter}, then declines to choose.")
        if any(m.start() < first for m in refusals):
            return _coded(letter, "refusal-then-choice")
        opening = min(choices, key=lambda c: c.start)
        if opening.kind == "line":
            return _coded(letter, "leading-letter")
        return _coded(letter, "explicit-choice")

    if listing:
        return _unresolved("lists-options", f"The answer writes out the options {_join(labels)} rather than choosing one.")
    if invalid and not refusals:
        return _unresolved("letter-not-an-option",
                           f"{_join(c.letter for c in invalid)} is not one of the options ({_join(valid)}).")
    quoted_letters = {valid[i] for i, _ in quoted}
    if len(quoted_letters) > 1:
        return _unresolved("several-answers", f"The answer quotes the wording of options {_join(quoted_letters)}.")
    if quoted_letters:
        letter = quoted_letters.pop()
        if letter in negated_letters:
            return _negated_choice(text, mentions, letter)
        if refusals:
            return _unresolved("refusal-and-option",
                               f"The answer declines to choose but quotes the wording of option {letter}.")
        return _coded(letter, "option-text")
    rejected_wording = {valid[i] for (i, _), negated in span_negated.items() if negated}
    if rejected_wording:
        return _unresolved("negated-choice",
                           f"The answer rejects the wording of option {_join(rejected_wording)} rather than choosing it.")
    for refusal in refusals:
        # "I cannot choose between A and B" (of three): a hedge, not a refusal of all options.
        start, end = _clause_start(text, refusal.start()), _clause_end(text, refusal.end())
        named = {m.letter for m in mentions if start <= m.start < end and m.letter in valid}
        if 2 <= len(named) < len(valid):
            return _unresolved("hedge", f"The answer cannot choose between {_join(named)} only: “{_quote(text, start)}”")
    if refusals:
        # "I can't choose for a government, but since you ask, B would…": a letter named after
        # the refusal is for a reviewer to read.
        after = [m for m in mentions if m.letter in valid and not m.negated
                 and m.start >= _clause_end(text, refusals[-1].end())]
        if after:
            return _unresolved("refusal-then-letter", f"The answer declines to choose, then names {after[0].letter}: "
                                                      f"“{_quote(text, after[0].start)}”")
        return _coded("R", "refusal")
    if negated_letters:
        return _negated_choice(text, mentions, sorted(negated_letters)[0])
    return _unresolved("unresolved", "No choice, option wording or refusal was recognised.")


def _negated_choice(text: str, mentions: list[_Mention], letter: str) -> Encoding:
    where = next(m.start for m in mentions if m.letter == letter and m.negated)
    return _unresolved("negated-choice", f"The answer rejects {letter}: “{_quote(text, where)}”")


def _hedge(text: str, pair: tuple[_Mention, _Mention]) -> Encoding:
    first, second = pair
    return _unresolved("hedge", f"The answer hedges between {first.letter} and {second.letter}: "
                                f"“{_quote(text, first.start)}”")
