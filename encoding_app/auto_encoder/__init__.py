"""The automatic encoder: a raw answer and the question's options in, a code out.

Codes are the paper's (appendix A.3): the option letter (`A` … `J`, the position in the
options list given), or `R` for a refusal. Anything ambiguous is left unresolved (code None)
with a reason a reviewer can read: a wrong automatic code is worse than a question to a
person. Pure: no Django.

How an answer is read:
1. empty — nothing to code (the caller counts it as missing, never as R);
2. markup goes: HTML tags (script and style with their content), code fences, markdown
   emphasis, bullets and headings, dash variants (`B — impose` reads as `B - impose`);
   full-width letters (`Ｂ`), Cyrillic look-alikes (`вариант В`) and the Arabic abjad letters
   (`الإجابة: ب`, `ب` alone) become the option's Latin letter where they stand as one;
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
8. option-text — the wording of exactly one option, not under negation (in any language the
   question was asked in: Chinese and Japanese matched character by character, with no word
   boundaries; Arabic with its proclitics joined to the first word, "بسحب" for "سحب");
9. refusal — an explicit refusal or a declared inability to choose, and no choice; a letter
   named after the refusal (refusal-then-letter) or two letters named in it out of more
   options ("I cannot choose between A and B" of three: hedge) go to a reviewer.

`Encoding.confidence` is a fixed prior per rule, kept for callers of this pure module; the
confidence stored on a code is the rule's audited accuracy (`encoding_app.audits`).

Modules, by topic: `markup` (step 2), `letters` (when a capital is an option letter),
`clauses` (negation and the letters mentioned), `choices` (step 4), `conflicts` (refusals,
self-corrections, hedges), `wording` (an option's wording quoted), `reading` (`encode`:
the steps in order).
"""

from .reading import CONFIDENCE, Encoding, encode

__all__ = ["CONFIDENCE", "Encoding", "encode"]
