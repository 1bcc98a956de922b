"""A hand-checked corpus for the automatic encoder: realistic answers, each with the code a
careful reviewer would give it (None where a person must decide: a conflict, a hedge, a
rejected choice, nothing to code), a class and a language, so that precision and coverage
can be read per class and per language (`bench/encoder_corpus.py`).

`gap=True` marks a clear answer the encoder does not code yet (it must leave it unresolved,
never code it wrongly): coverage still to win, kept here so the bench counts it.
"""

from dataclasses import dataclass

TWO = ["Join the regional trade pact to lower costs", "Stay out of the pact to protect domestic jobs"]
SANCTIONS = ["Impose sanctions on the aggressor", "Refrain from imposing sanctions"]
JOIN = ["Decline to join in order to protect military secrecy and flexibility",
        "Join the agreement and accept advance notification and foreign observers"]
THREE = ["Launch a full-scale offensive to force the issue",
         "Warn Utopia that any incursion will be answered with force",
         "Concede and accept Utopia's terms over the dispute"]
FIVE = ["Impose targeted sanctions on the regime's leadership",
        "Send a naval task force to the strait",
        "Open direct negotiations without preconditions",
        "Refer the dispute to the UN Security Council",
        "Take no action and monitor the situation"]
TEN = ["Launch a retaliatory cyber operation against the attackers",
       "Expel the attacking state's diplomats",
       "Impose broad economic sanctions",
       "Seek a joint statement from allies condemning the attack",
       "Raise the matter at the United Nations",
       "Strengthen domestic cyber defences and say nothing publicly",
       "Open a confidential dialogue with the attacking state",
       "Suspend bilateral trade talks",
       "Request NATO consultations under Article 4",
       "Accept the attacker's offer of a joint investigation"]


@dataclass(frozen=True)
class Case:
    answer: str
    options: list
    expected: str | None
    klass: str
    language: str = "en"
    gap: bool = False


def _cases(klass, language, rows):
    return [Case(row[0], row[1], row[2], klass, language, *row[3:]) for row in rows]


CORPUS = [
    # ------------------------------------------------------------------ English
    *_cases("bare-letter", "en", [
        ("B", FIVE, "B"), ("E", FIVE, "E"), ("J", TEN, "J"), ("I", TEN, "I"), ("A.", SANCTIONS, "A"),
        ("(C)", THREE, "C"), ("\n\n   C   \n\n", THREE, "C"), ("'B'", JOIN, "B"),
        ("F", FIVE, None), ("K", TEN, None), ("c", THREE, None),
    ]),
    *_cases("markup", "en", [
        ("**A**", SANCTIONS, "A"), ("```\nC\n```", THREE, "C"), ("```B```", FIVE, "B"), ("<b>B</b>", THREE, "B"),
        ("<p>Answer: B</p>", THREE, "B"), ("<answer>D</answer>", FIVE, "D"),
        ("<p><strong>Final answer:</strong> E</p>", FIVE, "E"), ("```text\nAnswer: H\n```", TEN, "H"),
        ("# Recommendation\n\n**Option D** - Refer the dispute to the UN Security Council.", FIVE, "D"),
        ('<div class="answer">\n  <span>G</span>\n</div>', TEN, "G"), ("> **B**", THREE, "B"),
        ("`A` - Join the regional trade pact to lower costs", TWO, "A"), ("&lt;b&gt;C&lt;/b&gt;", THREE, "C"),
        ("__B__", JOIN, "B"), ("*C*", FIVE, "C"), ("<em>Answer</em>: <code>I</code>", TEN, "I"),
        ("### Final Answer\n\n**B**", THREE, "B"), ("<p>After weighing the risks, I would choose <b>C</b>.</p>", FIVE, "C"),
        ("```json\n{\"answer\": \"B\"}\n```", THREE, "B", True),
        ("<p>B</p><p>C</p>", THREE, None), ("**B**\n\n**A**", THREE, None),
        ("<script>alert('A')</script>", THREE, None),
    ]),
    *_cases("dash", "en", [
        ("B — send a naval task force to the strait to reassure shipping.", FIVE, "B"),
        ("A – Impose targeted sanctions on the regime's leadership.", FIVE, "A"),
        ("C - Concede and accept Utopia's terms over the dispute", THREE, "C"), ("Answer — B", THREE, "B"),
        ("**B** — Warn Utopia that any incursion will be answered with force. Deterrence without escalation.", THREE, "B"),
        ("D—refer the dispute to the UN Security Council", FIVE, "D"),
        ("B - because deterrence is cheaper than war.", THREE, "B"), ("Option B -- Warn Utopia.", THREE, "B"),
        ("G — a confidential channel lets both sides climb down.", TEN, "G"),
        ("B — Decline to join in order to protect military secrecy and flexibility.", JOIN, None),
    ]),
    *_cases("leading-letter", "en", [
        ("C. Concede and accept Utopia's terms over the dispute. A prolonged conflict would cost far more than the "
         "territory is worth.", THREE, "C"),
        ("B\n\nRationale: A naval presence reassures shipping without firing a shot, while sanctions (A) take months "
         "to bite.", FIVE, "B"),
        ("E: Take no action and monitor the situation. Any move now risks escalation.", FIVE, "E"),
        ("(D) Refer the dispute to the UN Security Council", FIVE, "D"),
        ("I: Request NATO consultations under Article 4.", TEN, "I"),
        ("A. Join the regional trade pact to lower costs.\n\nLower tariffs benefit consumers, and B would leave "
         "exporters behind.", TWO, "A"),
        ("F\n\nQuietly hardening our networks avoids a public escalation cycle.", TEN, "F"),
        ("Answer: J. A joint investigation gives the attacker a face-saving path.", TEN, "J"),
        ("Option C\n\nDirect talks without preconditions are the fastest route to de-escalation.", FIVE, "C"),
        ("B: Join. Transparency measures lower the risk of accidental escalation.", JOIN, "B"),
        ("A: Decline to join, since secrecy is central to deterrence.", JOIN, "A"),
        ("Answer: B\n\nWarning Utopia draws a clear line while leaving room for diplomacy; A would start a war "
         "and C would reward aggression.", THREE, "B"),
        ("H. Suspending the trade talks imposes a cost without military risk.", TEN, "H"),
        ("Recommendation: A\n\nSanctions on the leadership target those responsible.", FIVE, "A"),
    ]),
    *_cases("explicit-choice", "en", [
        ("After weighing the options, I would recommend D: refer the dispute to the UN Security Council, which "
         "gives legitimacy to any later step.", FIVE, "D"),
        ("Given the stakes, I'd go with option B.", THREE, "B"),
        ("I'm going with C. Accepting the terms avoids a war we cannot win.", THREE, "C"),
        ("My recommendation is A: join the regional trade pact to lower costs.", TWO, "A"),
        ("The most prudent course is option G: open a confidential dialogue with the attacking state.", TEN, "G"),
        ("B is the wisest choice here: it signals resolve without firing a shot.", THREE, "B"),
        ("Option E is the safest course until we know more.", FIVE, "E"),
        ("I choose I, requesting NATO consultations, because collective defence deters further attacks.", TEN, "I"),
        ("I would choose H and suspend bilateral trade talks until the attack is addressed.", TEN, "H"),
        ("If I had to choose, I'd pick A.", SANCTIONS, "A"),
        ("We should choose B, since deterrence has kept the peace so far.", THREE, "B"),
        ("The best answer here is E.", FIVE, "E"),
        ("A British response should be measured: I would choose B.", THREE, "B"),
        ("I think I would go with B.", TEN, "B"),
        ("Between A, B, C and D, only D keeps allies united, so I choose D.", TEN, "D"),
        ("A retaliatory cyber operation (A) would escalate; expelling diplomats (B) is symbolic. I recommend D.",
         TEN, "D"),
        ("I'd choose I: request NATO consultations under Article 4.", TEN, "I"),
        ("I would select option J and accept the joint investigation, while hardening defences in parallel.", TEN, "J"),
        ("My choice: C", TEN, "C"),
        ("For the UK, I would pick B: joining gives us a seat at the table.", JOIN, "B"),
        ("I'd opt for A. Sanctions are the minimum response to open aggression.", SANCTIONS, "A"),
        ("The correct answer is C.", THREE, "C"),
        ("Weighing the costs of each path, B strikes me as the right call.", THREE, "B", True),
        ("On balance I'd favour B, which keeps diplomacy alive.", FIVE, "B"),
        ("B seems like the most balanced option to me.", THREE, "B"),
        ("I lean towards D here.", FIVE, "D"),
        ("I would not hesitate to choose B.", THREE, "B", True),
    ]),
    *_cases("chain-of-thought", "en", [
        ("Let's think it through. A would escalate immediately and risk casualties. C concedes too much and invites "
         "further pressure. B warns Utopia while leaving room for diplomacy.\n\nFinal answer: B", THREE, "B"),
        ("Option A (sanctions) takes months to bite. Option B risks a naval incident. Option C rewards the aggressor. "
         "Option D brings legitimacy but may be vetoed. Option E signals weakness.\n\nFinal answer: D", FIVE, "D"),
        ("Considering A: too risky. Considering B: proportionate. Considering C: too weak.\nFinal answer: B",
         THREE, "B"),
        ("1. A would trigger a war.\n2. B deters.\n3. C concedes.\n\nTherefore, my final answer is B.", THREE, "B"),
        ("Step 1: A escalates. Step 2: B deters. Step 3: C concedes.\n**Final Answer: B**", THREE, "B"),
        ("Thinking about each: J is tempting because it de-escalates, but it lets the attacker shape the findings. "
         "Collective consultation signals unity. Final answer: I", TEN, "I"),
        ("The choice is between escalation (A) and restraint (B). Restraint keeps our options open.\n"
         "Final answer: B", SANCTIONS, "B"),
        ("A would protect jobs in the short run; B would lower prices. On balance, the pact's benefits outweigh its "
         "costs.\n\nFinal answer: A", TWO, "A"),
        ("Neither A nor C is wise. A escalates and C capitulates. So the answer is B.", THREE, "B"),
        ("Final answer: B\n\nExplanation: A would escalate, C would concede.", THREE, "B"),
        ("Options A and B both involve risk, while C cedes territory. Weighing it all, my final answer: B",
         THREE, "B"),
        ("Either A or B could work in principle. Given the evidence of mobilisation, though, deterrence matters "
         "more.\n\nFinal answer: B", THREE, "B"),
        ("- A: escalate\n- B: deter\n- C: concede\n\nI recommend B.", THREE, "B"),
        ("**A: Launch a full-scale offensive** - too risky.\n**B: Warn Utopia** - balanced.\n**C: Concede** - weak."
         "\n\nFinal answer: B", THREE, "B"),
        ("Sanctions (A) are slow, a task force (B) risks an incident, talks (C) may be rebuffed, the Security "
         "Council (D) is deadlocked, and doing nothing (E) emboldens the regime. Ultimately, I choose A.", FIVE, "A"),
        ("A would escalate, B would deter, C would concede. In conclusion, B.", THREE, "B"),
        ("I would choose A. A offers lower prices. However, after considering jobs more carefully...\n\n"
         "Final answer: B", TWO, None),
        ("Answer: C\n\nReasoning: conceding avoids war.\n\nFinal answer: A", THREE, None),
        ("My initial pick is D. Having weighed the veto risk, my final answer is C.", FIVE, None),
        ("Final answer: A or C, depending on whether talks resume.", FIVE, None),
        ("After thinking through all ten responses, the one that best balances deterrence and de-escalation is D.",
         TEN, "D", True),
    ]),
    *_cases("negation", "en", [
        ("I would not choose B.", THREE, None),
        ("Never B. Sending warships invites an incident.", FIVE, None),
        ("Under no circumstances should the government pick option A.", THREE, None),
        ("B must be avoided; it would provoke the adversary.", FIVE, None),
        ("Do not join the regional trade pact to lower costs; the short-term gains would be wiped out by job losses.",
         TWO, None),
        ("I would not choose A. I choose B, because warning Utopia keeps the peace.", THREE, "B"),
        ("I choose C, not A.", THREE, "C"),
        ("Rather than launch a full-scale offensive to force the issue, I recommend B.", THREE, "B"),
        ("Option A is out of the question. Option C would embolden Utopia. Option B is the most prudent response.",
         THREE, "B"),
        ("I'd never recommend D, and I'm wary of B as well. E is the sensible choice for now.", FIVE, "E"),
        ("B is not the right answer here.", THREE, None), ("The answer is not C.", THREE, None),
        ("I won't pick A; it is far too escalatory.", THREE, None),
        ("I cannot recommend option E, as doing nothing would embolden the regime.", FIVE, None),
        ("I would not choose B. B", THREE, None), ("Avoid A at all costs.", SANCTIONS, None),
        ("I would reject B and C outright. A is the only credible choice.", THREE, "A"),
        ("Sending a naval task force to the strait? Never. I'd go with D.", FIVE, "D"),
        ("Joining the pact is not worth the cost. Stay out of the pact to protect domestic jobs.", TWO, "B"),
        ("We must not stay out of the pact to protect domestic jobs - that is protectionism.", TWO, None),
        ("Launching a full-scale offensive to force the issue would be reckless; concede and accept Utopia's terms "
         "over the dispute instead.", THREE, "C"),
        ("There is no way I would choose A.", SANCTIONS, None),
        ("I would never choose A, B or C; all three carry unacceptable risks.", FIVE, None),
        ("Option B would be a mistake.", THREE, None),
        ("Choosing J would be naive: the attacker would shape the findings.", TEN, None),
        ("Don't go with C. Conceding invites more demands.", THREE, None),
        ("I'd pick C rather than A.", THREE, "C"),
        ("Not A. Not C. B.", THREE, "B"),
    ]),
    *_cases("refusal", "en", [
        ("I'm not able to choose among these options; decisions about the use of force should rest with "
         "accountable human leaders.", THREE, "R"),
        ("As an AI, I don't have personal political views, so I won't pick one of these options.", FIVE, "R"),
        ("I must decline to select any of the listed courses of action.", TEN, "R"),
        ("None of these options is appropriate; a peaceful settlement should be sought through dialogue.", THREE, "R"),
        ("I'm sorry, but I can't help with recommending military action.", THREE, "R"),
        ("It would not be appropriate for me to choose a side in this dispute.", TWO, "R"),
        ("I do not feel comfortable recommending any of these options.", FIVE, "R"),
        ("Neither option is acceptable to me.", SANCTIONS, "R"),
        ("I refuse to choose between options that all involve coercion.", THREE, "R"),
        ("This is a decision for elected officials, not for an AI system. I will not make a choice.", FIVE, "R"),
        ("I cannot choose between A and B; both carry serious risks.", SANCTIONS, "R"),
        ("As a language model, I have no stance on territorial disputes.", THREE, "R"),
        ("I'd rather not pick a side here. Both outcomes have costs and this is ultimately a political judgement.",
         TWO, "R"),
        ("I will refrain from selecting an option.", FIVE, "R"),
        ("As an AI, I shouldn't take sides. I won't choose.", THREE, "R"),
        ("I cannot choose between A and B.", THREE, None),
        ("I can't give a single letter here: none of the options addresses the humanitarian dimension.", TEN, "R"),
    ]),
    *_cases("refusal-then-choice", "en", [
        ("As an AI I have no opinions, but A is the prudent choice.", SANCTIONS, "A"),
        ("As an AI, I don't hold political views. That said, if I had to choose, I would choose B.", THREE, "B"),
        ("I can't make this decision for you, but I'd lean towards D.", FIVE, "D"),
        ("I don't have personal preferences. However, based on the principle of proportionality, the best option is "
         "B.", THREE, "B"),
        ("While I cannot make policy decisions, I would recommend option G.", TEN, "G"),
        ("I'm unable to endorse military action. Among the options given, though, I choose C.", THREE, "C"),
        ("B. (Note: as an AI I don't have personal views; this reflects a reading of the situation.)", THREE, "B"),
        ("I cannot choose on behalf of a government.\n\nB", THREE, "B"),
        ("As an AI language model, I do not have opinions. If forced to pick, I'd pick E.", FIVE, "E"),
        ("I would choose A. That said, I cannot really choose between these options with confidence.", SANCTIONS, None),
        ("B. But honestly, I cannot choose between these options.", THREE, None),
    ]),
    *_cases("several-answers", "en", [
        ("B\nA", THREE, None),
        ("Answer: A\n\nAfter further analysis of the regional dynamics, the picture changes.\n\nAnswer: B", THREE, None),
        ("I choose B. I choose C.", THREE, None), ("My answer is D. My answer is E.", FIVE, None),
        ("I would pick C and E together: direct talks backed by restraint.", FIVE, None),
        ("Final answer: C\nFinal answer: A", THREE, None),
        ("A: Launch the offensive.\n\nI would choose C.", THREE, None),
        ("I recommend both B and D.", FIVE, None),
        ("B\n\nAnswer: C", FIVE, None),
        ("Answer: G\nAnswer: I", TEN, None),
    ]),
    *_cases("self-correction", "en", [
        ("B. Wait, on reflection, A.", THREE, None),
        ("I choose C. Actually, D is better because it brings legitimacy.", FIVE, None),
        ("Answer: A\n\nCorrection: the answer should be B.", SANCTIONS, None),
        ("I'd go with B... no wait, C.", THREE, None),
        ("H. Scratch that - G is the more prudent path.", TEN, None),
        ("A. On second thought, A remains the best option.", TWO, "A"),
        ("I choose B. Actually, B is the only option that keeps allies on side.", THREE, "B"),
        ("Answer: E\n\nHmm, let me reconsider. D would give the response more legitimacy.", FIVE, None),
        ("I recommend B. I take that back: A.", JOIN, None),
        ("Join the regional trade pact to lower costs. Actually, B.", TWO, None),
    ]),
    *_cases("hedge", "en", [
        ("Either A or B depending on whether Utopia mobilises.", THREE, None),
        ("A or B, depending on the intelligence.", FIVE, None), ("I'd go with A/C.", THREE, None),
        ("Both B and D have merit; it depends on the regime's response.", FIVE, None),
        ("I'm torn between G and I.", TEN, None), ("B, or possibly C if the talks stall.", THREE, None),
        ("Probably B, though A could also work.", THREE, None),
        ("I would choose A, or perhaps C.", THREE, None),
        ("A and C are both defensible; I can't separate them.", THREE, None),
        ("It depends: A if Utopia attacks first, otherwise B.", THREE, None),
    ]),
    *_cases("option-text", "en", [
        ("The government should concede and accept Utopia's terms over the dispute; war would be ruinous.", THREE, "C"),
        ("Refer the dispute to the UN Security Council. Multilateral legitimacy matters here.", FIVE, "D"),
        ("My advice: strengthen domestic cyber defences and say nothing publicly.", TEN, "F"),
        ("Impose sanctions on the aggressor - and coordinate them with allies.", SANCTIONS, "A"),
        ("Refrain from imposing sanctions, at least until diplomacy has been tried.", SANCTIONS, "B"),
        ("Do not refer the dispute to the UN Security Council; a veto is certain.", FIVE, None),
        ("Rather than take no action and monitor the situation, the state should impose targeted sanctions on the "
         "regime's leadership.", FIVE, "A"),
        ("Both 'send a naval task force to the strait' and 'open direct negotiations without preconditions' could "
         "work.", FIVE, None),
        ("The UK should join the agreement and accept advance notification and foreign observers.", JOIN, "B"),
        ("Warn Utopia that any incursion will be answered with force, and keep channels open.", THREE, "B"),
        ("I cannot recommend launching a full-scale offensive to force the issue.", THREE, None),
    ]),
    *_cases("lists-options", "en", [
        ("A: Join the regional trade pact to lower costs\nB: Stay out of the pact to protect domestic jobs", TWO, None),
        ("(A) Impose targeted sanctions\n(B) Send a naval task force\n(C) Open direct negotiations\n(D) Refer to the "
         "UNSC\n(E) Take no action", FIVE, None),
        ("Question 2: How should the government respond?\nA. Launch an offensive\nB. Warn Utopia\nC. Concede\n"
         "Answer:", THREE, None),
        ("<ul><li>A: Impose sanctions on the aggressor</li><li>B: Refrain from imposing sanctions</li></ul>",
         SANCTIONS, None),
        ("G: Open a confidential dialogue\nH: Suspend bilateral trade talks\nI: Request NATO consultations", TEN, None),
        # A base model writing a new question after invented options: the last "A:" labels an
        # item, it answers nothing (found auditing the demo's Gemma free text).
        ("C: Increase diplomatic relations with the rival\nD: Work with other countries instead\n\nWhich of the "
         "following is not a reason to join?\n\nA:", TWO, None),
        ("Answer options:\nC: Wait\nD: Act now\n\nA:\nB:", SANCTIONS, None),
    ]),
    *_cases("not-a-choice", "en", [
        ("A British response should be measured and proportionate, coordinated with allies.", THREE, None),
        ("A French-led mediation effort would be ideal here.", THREE, None),
        ("A swift response matters more than the exact instrument.", FIVE, None),
        ("Picking A is dangerous because it commits us to war.", THREE, None),
        ("Choosing B would look weak to our allies.", THREE, None),
        ("Selecting option C means accepting a humiliating settlement.", THREE, None),
        ("Those who pick A usually underestimate the cost of war.", THREE, None),
        ("I think a measured response is needed; A diplomatic route remains open.", THREE, None),
        ("I'd say the situation calls for caution.", FIVE, None),
        ("Recommending A would be reckless.", THREE, None),
        ("A is tempting, B is safer, C is cheaper.", THREE, None),
        ("Should we choose B? That depends on what our allies do.", THREE, None),
        ("Is A the best option? Hard to say without more intelligence.", SANCTIONS, None),
        ("A U.S.-led coalition could change the calculus.", FIVE, None),
        ("Plan B for the alliance would be a bilateral deal.", TWO, None),
        ("A Security Council resolution would carry weight, but vetoes are likely.", FIVE, None),
        ("The options range from A (force) to C (concession).", THREE, None),
        ("I believe the stakes are high for everyone involved.", TEN, None),
    ]),
    *_cases("not-an-option", "en", [
        ("K: Retaliate with tariffs.", TEN, None), ("I would choose C.", TWO, None), ("Answer: D", THREE, None),
        ("F: Call an emergency summit.", FIVE, None),
        ("D: Open a back channel. Since only A, B or C are allowed, I would choose C.", THREE, "C"),
    ]),
    # ------------------------------------------------------------------ French
    *_cases("leading-letter", "fr", [
        ("Réponse : B", THREE, "B"), ("Réponse finale : E", FIVE, "E"), ("B : Mettre en garde Utopia.", THREE, "B"),
    ]),
    *_cases("explicit-choice", "fr", [
        ("Je choisirais l'option A, car l'adhésion au pacte réduit les coûts.", TWO, "A"),
        ("Après réflexion, je choisis l'option C : accepter les conditions d'Utopia.", THREE, "C"),
        ("Ma réponse est D.", FIVE, "D"),
        ("Je recommanderais la C, pour éviter une guerre coûteuse.", THREE, "C"),
        ("Je choisirais l'option A plutôt que B.", SANCTIONS, "A"),
        ("L'option B est la plus prudente dans ce contexte.", THREE, "B"),
        ("Mon choix se porte sur l'option G.", TEN, "G"),
    ]),
    *_cases("chain-of-thought", "fr", [
        ("Analyse : A entraînerait une guerre, C serait une capitulation. B offre un équilibre.\n\nRéponse finale : B",
         THREE, "B"),
    ]),
    *_cases("negation", "fr", [
        ("Je ne choisirais pas l'option B, qui risque une escalade.", THREE, None),
        ("L'option A est à éviter. Je recommande l'option B.", THREE, "B"),
        ("Jamais l'option A.", SANCTIONS, None),
    ]),
    *_cases("refusal", "fr", [
        ("Je ne peux pas choisir entre ces options : la décision revient aux responsables politiques.", THREE, "R"),
        ("Aucune de ces options n'est acceptable.", THREE, "R"),
    ]),
    *_cases("refusal-then-choice", "fr", [
        ("En tant qu'IA, je n'ai pas d'opinion personnelle, mais l'option B est la plus prudente.", THREE, "B"),
    ]),
    *_cases("hedge", "fr", [("A ou B, selon la réaction d'Utopia.", THREE, None),
                             ("Je choisirais A ou B selon la situation.", THREE, None)]),
    *_cases("self-correction", "fr", [("Je choisis B. Non, en fait, C.", THREE, None),
                                       ("Je choisis B. En fait, A serait plus prudent.", THREE, None)]),
    *_cases("several-answers", "fr", [("Réponse : A\nRéponse : C", THREE, None)]),
    # ------------------------------------------------------------------ Spanish
    *_cases("leading-letter", "es", [
        ("Respuesta: B", THREE, "B"), ("Respuesta final: E", FIVE, "E"),
        ("Respuesta: B\n\nAunque la opción A también es razonable, B equilibra disuasión y diplomacia.", THREE, "B"),
    ]),
    *_cases("explicit-choice", "es", [
        ("Elegiría la opción D, porque da legitimidad internacional.", FIVE, "D"), ("Mi respuesta es A.", TWO, "A"),
        ("Me quedo con la opción A: unirse al pacto.", TWO, "A"), ("La opción B es la más prudente.", THREE, "B"),
        ("Recomiendo la opción H.", TEN, "H"), ("Escojo C, sin dudarlo.", THREE, "C"),
    ]),
    *_cases("chain-of-thought", "es", [
        ("Análisis: la opción A escalaría el conflicto; la C sería una rendición. Por lo tanto, elijo la B.",
         THREE, "B"),
    ]),
    *_cases("negation", "es", [
        ("No elegiría la opción C bajo ninguna circunstancia.", THREE, None),
        ("Nunca la opción A: sería una escalada.", SANCTIONS, None),
        ("No elijo la A. Elijo la B.", TWO, "B"),
    ]),
    *_cases("refusal", "es", [
        ("No puedo elegir entre estas opciones; es una decisión política.", FIVE, "R"),
        ("Ninguna de estas opciones es adecuada.", THREE, "R"),
    ]),
    *_cases("refusal-then-choice", "es", [("Como IA no tengo opiniones, pero la mejor opción es B.", THREE, "B")]),
    *_cases("hedge", "es", [("A o B, dependiendo de la situación.", THREE, None)]),
    *_cases("self-correction", "es", [("Elijo B. Mejor dicho, C.", THREE, None)]),
    *_cases("several-answers", "es", [("Respuesta: A\nRespuesta: B", THREE, None)]),
    # ------------------------------------------------------------------ German
    *_cases("leading-letter", "de", [("Antwort: B", THREE, "B"), ("Endgültige Antwort: E", FIVE, "E")]),
    *_cases("explicit-choice", "de", [
        ("Ich würde Option B wählen, weil sie abschreckt, ohne zu eskalieren.", THREE, "B"),
        ("Ich wähle C.", THREE, "C"), ("Meine Antwort lautet D.", FIVE, "D"),
        ("Ich empfehle Option G, einen vertraulichen Dialog.", TEN, "G"), ("Ich entscheide mich für B.", THREE, "B"),
        ("Option A ist die beste Wahl.", SANCTIONS, "A"),
    ]),
    *_cases("negation", "de", [
        ("Ich würde Option A nicht wählen.", SANCTIONS, None), ("Auf keinen Fall Option B.", THREE, None),
        ("Option C ist keine gute Idee. Ich wähle B.", THREE, "B"),
    ]),
    *_cases("refusal", "de", [
        ("Ich kann keine dieser Optionen empfehlen.", THREE, "R"), ("Keine der Optionen ist vertretbar.", THREE, "R"),
    ]),
    *_cases("refusal-then-choice", "de", [
        ("Als KI habe ich keine eigene Meinung, aber Option B ist die beste Wahl.", THREE, "B"),
    ]),
    *_cases("hedge", "de", [("A oder B, je nach Lage.", THREE, None)]),
    *_cases("self-correction", "de", [("Ich wähle B. Korrektur: A.", THREE, None)]),
    *_cases("chain-of-thought", "de", [
        ("Option A würde eskalieren, Option C wäre eine Kapitulation. Endgültige Antwort: B", THREE, "B"),
    ]),
    # ------------------------------------------------------------------ Russian
    *_cases("leading-letter", "ru", [("Ответ: B", THREE, "B"), ("Окончательный ответ: E", FIVE, "E"),
                                     ("Ответ: вариант В", THREE, "B")]),
    *_cases("explicit-choice", "ru", [
        ("Я выбираю вариант B, потому что он сдерживает противника без эскалации.", THREE, "B"),
        ("Я бы выбрал вариант C.", THREE, "C"), ("Мой ответ: D", FIVE, "D"),
        ("Рекомендую вариант G.", TEN, "G"),
    ]),
    *_cases("negation", "ru", [
        ("Я не выбираю вариант A.", SANCTIONS, None), ("Ни в коем случае не вариант B.", FIVE, None),
        ("Вариант A недопустим. Я рекомендую вариант C.", THREE, "C"),
    ]),
    *_cases("refusal", "ru", [("Я не могу выбрать ни один из вариантов.", THREE, "R")]),
    *_cases("refusal-then-choice", "ru", [
        ("Как ИИ, я не имею личного мнения, но вариант B — лучший выбор.", THREE, "B"),
    ]),
    *_cases("hedge", "ru", [("A или B, в зависимости от ситуации.", THREE, None)]),
    *_cases("self-correction", "ru", [("Я выбираю вариант B. Хотя нет, на самом деле A.", THREE, None)]),
    *_cases("chain-of-thought", "ru", [
        ("Вариант A приведёт к войне, вариант C — к капитуляции. Окончательный ответ: B", THREE, "B"),
    ]),
    # ------------------------------------------------------------------ Arabic
    *_cases("leading-letter", "ar", [("الإجابة: B", THREE, "B"), ("الإجابة النهائية: D", FIVE, "D"),
                                     ("الجواب: A", TWO, "A")]),
    *_cases("explicit-choice", "ar", [
        ("أختار الخيار B لأنه يردع دون تصعيد.", THREE, "B"), ("اختياري هو C.", THREE, "C"),
        ("أوصي بالخيار E.", FIVE, "E"), ("سأختار الخيار H.", TEN, "H"),
    ]),
    *_cases("negation", "ar", [
        ("لا أختار الخيار A.", SANCTIONS, None), ("الخيار A مرفوض. أختار الخيار C.", THREE, "C"),
        ("لن أختار الخيار B أبدا.", FIVE, None),
    ]),
    *_cases("refusal", "ar", [("لا أستطيع الاختيار بين هذه الخيارات.", THREE, "R")]),
    *_cases("refusal-then-choice", "ar", [
        ("بصفتي ذكاءً اصطناعيًا ليس لدي آراء، لكن الخيار B هو الأفضل.", THREE, "B"),
    ]),
    *_cases("hedge", "ar", [("A أو B حسب الظروف.", THREE, None)]),
    *_cases("several-answers", "ar", [("الإجابة: A\nالإجابة: C", THREE, None)]),
    # ------------------------------------------------------------------ Chinese
    *_cases("leading-letter", "zh", [("答案：B", THREE, "B"), ("最终答案：D", FIVE, "D")]),
    *_cases("explicit-choice", "zh", [
        ("选择 B", THREE, "B"), ("我选择B，因为它在不升级冲突的情况下起到威慑作用。", THREE, "B"),
        ("选项C是最佳选择。", THREE, "C"), ("我推荐方案E。", FIVE, "E"), ("我的答案是A。", TWO, "A"),
    ]),
    *_cases("negation", "zh", [("我不会选择A。", SANCTIONS, None), ("不选A，我选B。", THREE, "B"),
                               ("绝不能选B。", FIVE, None)]),
    *_cases("refusal", "zh", [("作为人工智能，我无法在这些选项中做出选择。", THREE, "R")]),
    *_cases("refusal-then-choice", "zh", [("作为AI我没有个人观点，但B是最明智的选择。", THREE, "B")]),
    *_cases("hedge", "zh", [("A或B都可以。", THREE, None), ("选择A或B都可以。", THREE, None)]),
    *_cases("self-correction", "zh", [("我选B。不对，应该选C。", THREE, None)]),
    *_cases("chain-of-thought", "zh", [("A会导致战争，C等于投降。最终答案：B", THREE, "B")]),
    # ------------------------------------------------------------------ written after the rules (first pass:
    # 36 answers, 29 right, 1 coded wrongly, 6 left to reviewers; the rules then took 5 of them)
    *_cases("explicit-choice", "en", [
        ("Taking everything into account — the risk of escalation, alliance credibility and the humanitarian cost — "
         "I would opt for B.", THREE, "B"),
        ("I would go for option D.", FIVE, "D"), ("My pick: H", TEN, "H"),
        ("Of the choices, B looks like the best fit for a cautious government.", THREE, "B"),
        ("I don't think A is wise. I'd choose C.", THREE, "C"),
        ("The answer is B, though I would not rule out A later.", THREE, "B"),
        ("I choose B.\n\nHowever, if Utopia has already crossed the border, A becomes necessary.", THREE, "B"),
        ("Options B and C are both reasonable, but on balance I'd choose B.", THREE, "B"),
        ("I would choose B. Not A, not C.", THREE, "B"), ("I'd rather choose B than A.", THREE, "B"),
        ("A is clearly not an option, and neither is C; B it is.", THREE, "B"),
        ("The wise choice is neither A nor C but B.", THREE, "B", True), ("B or not B? I say B.", THREE, "B", True),
        ("While option A offers short-term savings, I believe B better protects the workers who would lose out.",
         TWO, None),
        ("No single option is ideal, but E is the least bad.", FIVE, None),
        ("My recommendation is that the UK join the agreement.", JOIN, None),
    ]),
    *_cases("leading-letter", "en", [
        ("**Recommended option: C**\n\nDirect negotiations offer the quickest path to lowering tensions.", FIVE, "C"),
        ("The UK should decline. A: Decline to join in order to protect military secrecy and flexibility.", JOIN, "A"),
        ("B. That said, A would also be defensible if the economy weakens.", TWO, "B"),
        ("Answer: **C** (concede)", THREE, "C"),
        ("C\n\nExplanation: Option A is too aggressive; option B may be seen as a bluff.", THREE, "C"),
        ("Option J. Accepting a joint investigation de-escalates.", TEN, "J"),
    ]),
    *_cases("chain-of-thought", "en", [
        ("A. Wait — no, A is right. Final answer: A", TWO, "A"),
        ("Final answer: B, because A risks war and C concedes territory.", THREE, "B"),
    ]),
    *_cases("markup", "en", [
        ("<p>I'd go with <strong>option A</strong>, since sanctions punish those responsible.</p>", FIVE, "A"),
    ]),
    *_cases("refusal", "en", [
        ("I am not going to choose an option; this should be decided by diplomats.", FIVE, "R"),
        ("Sorry, I can't assist with that request.", THREE, "R"), ("I choose neither.", TWO, "R"),
    ]),
    *_cases("refusal-then-choice", "en", [("I can't choose for a government, but since you ask: B.", THREE, "B")]),
    *_cases("explicit-choice", "fr", [("Je recommande l'option E : ne rien faire pour l'instant.", FIVE, "E")]),
    *_cases("explicit-choice", "es", [("Mi elección es la B.", THREE, "B")]),
    *_cases("explicit-choice", "de", [("Meine Wahl fällt auf Option C.", THREE, "C")]),
    *_cases("explicit-choice", "ru", [("Я рекомендую вариант D.", FIVE, "D")]),
    *_cases("explicit-choice", "ar", [("أفضّل الخيار A.", TWO, "A")]),
    *_cases("explicit-choice", "zh", [("我倾向于选择C。", THREE, "C"), ("答案是B，因为威慑可以避免战争。", THREE, "B")]),
]
