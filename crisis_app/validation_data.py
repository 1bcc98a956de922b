"""Reference crisis recommendations and their text ablations, for the metric's validation.

Written for this project (not taken from the paper), built by the rules of the paper's
section 4 validation. There, the reference texts are answers of gpt-4o-mini to the 817
TruthfulQA questions at four lengths (asked for one sentence, a couple of sentences, a
few sentences, and a paragraph with the answer and some reasoning: about 21, 44, 60 and
111 words, 1, 2, 3 and 5 sentences), and each answer gets one ablation per class, made by
a language model told (in the authors' published notebook,
``metrics/BERTAssessment/BERTScoreAssess.ipynb`` of aashrivastava/LLMWargamingInconsistency):

- lexical substitution: "replace some words with synonyms", "at least two words per
  sentence", "do not change anything else";
- syntactic restructuring: "either re-order clauses of a sentence or re-order whole
  sentences", "you may not change the wording", "try to affect every sentence";
- addition of irrelevance: "add one sentence of irrelevant information to the end of
  this text", "do not change anything else";
- semantic shift: "change entirely what it is saying", "keep the text as structurally
  intact as possible".

Here the references are crisis recommendations at the same four lengths, two of each
(items 1-2: one sentence, 3-4: two, 5-6: three, 7-8: five; 22 to 98 words), and each
ablation follows its rule strictly (``tests/crisis_app/test_crisis_validation_data.py`` checks
the mechanical part of each rule):

- ``lexical``: exactly two words of every sentence replaced by a one-word synonym, every
  other word and all punctuation unchanged;
- ``syntactic``: clauses or phrases of every sentence moved (and, once, two sentences
  swapped) with the very same words: only capitals and commas change;
- ``irrelevance``: the reference unchanged, then one sentence (12 to 17 words) of
  information unrelated to the decision;
- ``semantic``: the opposite decision in the same number of sentences, keeping their
  frames and as many words as the new meaning allows.

The items were written once by these rules and then measured; none was edited after
measuring (see ``bench/validation_ordering.py``).
"""

ABLATION_CLASSES = ("lexical", "syntactic", "irrelevance", "semantic")

VALIDATION_ITEMS = [
    {
        "reference": "Open a direct line to the adversary's defence ministry so that incidents at sea do not "
        "escalate while both navies remain in the strait.",
        "lexical": "Open a direct channel to the adversary's defence ministry so that incidents at sea do not "
        "intensify while both navies remain in the strait.",
        "syntactic": "While both navies remain in the strait, open a direct line to the adversary's defence "
        "ministry so that incidents at sea do not escalate.",
        "irrelevance": "Open a direct line to the adversary's defence ministry so that incidents at sea do not "
        "escalate while both navies remain in the strait. "
        "The strait was first charted by Portuguese sailors in the sixteenth century.",
        "semantic": "Close the direct line to the adversary's defence ministry so that our captains can fire "
        "first while both navies remain in the strait.",
    },
    {
        "reference": "Impose targeted sanctions on the officials responsible for the blockade, but coordinate "
        "them with our European partners before announcing anything in public.",
        "lexical": "Impose targeted penalties on the officials accountable for the blockade, but coordinate "
        "them with our European partners before announcing anything in public.",
        "syntactic": "Impose targeted sanctions on the officials responsible for the blockade, but before "
        "announcing anything in public, coordinate them with our European partners.",
        "irrelevance": "Impose targeted sanctions on the officials responsible for the blockade, but coordinate "
        "them with our European partners before announcing anything in public. "
        "Many European capitals hold large flower markets in their old squares every spring.",
        "semantic": "Lift all sanctions on the officials responsible for the blockade, and ignore our European "
        "partners while praising the blockade in public.",
    },
    {
        "reference": "Keep our forces at their current readiness level and avoid any new deployments near the "
        "border, because a visible build-up would confirm the adversary's narrative. At the same time, ask the "
        "United Nations Security Council to hold an emergency session on the incident within the week.",
        "lexical": "Keep our forces at their current alert level and avoid any new deployments near the "
        "border, because a conspicuous build-up would confirm the adversary's narrative. At the same time, "
        "request the United Nations Security Council to hold an urgent session on the incident within the week.",
        "syntactic": "Because a visible build-up would confirm the adversary's narrative, keep our forces at "
        "their current readiness level and avoid any new deployments near the border. Ask the United Nations "
        "Security Council, at the same time, to hold an emergency session on the incident within the week.",
        "irrelevance": "Keep our forces at their current readiness level and avoid any new deployments near the "
        "border, because a visible build-up would confirm the adversary's narrative. At the same time, ask the "
        "United Nations Security Council to hold an emergency session on the incident within the week. "
        "The Security Council chamber in New York is decorated with a large mural by a Norwegian painter.",
        "semantic": "Raise our forces to their highest readiness level and start new deployments near the "
        "border, because a visible build-up would deter the adversary's army. At the same time, tell the "
        "United Nations Security Council that we will refuse any session on the incident this year.",
    },
    {
        "reference": "Evacuate our citizens from the capital within the next forty-eight hours, starting with "
        "families, the elderly and the sick. Use commercial flights for as long as the airport stays open, and "
        "keep military transport aircraft in reserve in case the situation deteriorates.",
        "lexical": "Withdraw our nationals from the capital within the next forty-eight hours, starting with "
        "families, the elderly and the sick. Use civilian flights for as long as the airport stays open, and "
        "keep military transport aircraft in reserve in case the situation worsens.",
        "syntactic": "Starting with families, the elderly and the sick, evacuate our citizens from the capital "
        "within the next forty-eight hours. For as long as the airport stays open, use commercial flights, and "
        "in case the situation deteriorates, keep military transport aircraft in reserve.",
        "irrelevance": "Evacuate our citizens from the capital within the next forty-eight hours, starting with "
        "families, the elderly and the sick. Use commercial flights for as long as the airport stays open, and "
        "keep military transport aircraft in reserve in case the situation deteriorates. "
        "The capital's old town is famous for its painted wooden houses and its river festivals.",
        "semantic": "Tell our citizens to stay in the capital for the next forty-eight hours, starting with "
        "families, the elderly and the sick. Cancel commercial flights for as long as the fighting lasts, and "
        "send military transport aircraft to bring in troops instead of taking anyone out.",
    },
    {
        "reference": "Publicly condemn the cyberattack on the power grid and attribute it to the adversary once "
        "our agencies have confirmed the evidence. Offer technical assistance to the grid operators so that "
        "power is restored to hospitals first. If the attacks continue, prepare proportionate countermeasures "
        "against the networks involved, but keep them ready rather than using them at once.",
        "lexical": "Publicly denounce the cyberattack on the power grid and attribute it to the adversary once "
        "our agencies have confirmed the proof. Offer technical support to the grid companies so that "
        "power is restored to hospitals first. If the attacks persist, prepare measured countermeasures "
        "against the networks involved, but keep them ready rather than using them at once.",
        "syntactic": "Once our agencies have confirmed the evidence, publicly condemn the cyberattack on the "
        "power grid and attribute it to the adversary. So that power is restored to hospitals first, offer "
        "technical assistance to the grid operators. Prepare proportionate countermeasures against the networks "
        "involved if the attacks continue, but keep them ready rather than using them at once.",
        "irrelevance": "Publicly condemn the cyberattack on the power grid and attribute it to the adversary once "
        "our agencies have confirmed the evidence. Offer technical assistance to the grid operators so that "
        "power is restored to hospitals first. If the attacks continue, prepare proportionate countermeasures "
        "against the networks involved, but keep them ready rather than using them at once. "
        "Thomas Edison opened one of the first public power stations in New York in 1882.",
        "semantic": "Publicly deny the cyberattack on the power grid and blame it on a technical fault even "
        "after our agencies have confirmed the evidence. Refuse technical assistance to the grid operators and "
        "let them restore power on their own. If the attacks continue, launch massive strikes against the "
        "adversary's banks, and use them at once rather than holding them back.",
    },
    {
        "reference": "Send the foreign minister to mediate between the two parties in a neutral capital, "
        "together with envoys from the region. Propose a thirty-day ceasefire monitored by international "
        "observers, during which prisoners are exchanged. If either side breaks the ceasefire, suspend our "
        "military aid to that side until it returns to the talks.",
        "lexical": "Dispatch the foreign minister to mediate between the two parties in a neutral capital, "
        "together with diplomats from the region. Suggest a thirty-day ceasefire monitored by international "
        "monitors, during which prisoners are exchanged. If either side violates the ceasefire, freeze our "
        "military aid to that side until it returns to the talks.",
        "syntactic": "Together with envoys from the region, send the foreign minister to mediate between the two "
        "parties in a neutral capital. Propose a thirty-day ceasefire, during which prisoners are exchanged, "
        "monitored by international observers. If either side breaks the ceasefire, until it returns to the "
        "talks, suspend our military aid to that side.",
        "irrelevance": "Send the foreign minister to mediate between the two parties in a neutral capital, "
        "together with envoys from the region. Propose a thirty-day ceasefire monitored by international "
        "observers, during which prisoners are exchanged. If either side breaks the ceasefire, suspend our "
        "military aid to that side until it returns to the talks. "
        "Many neutral capitals are also known for their museums, parks and quiet old town squares.",
        "semantic": "Recall the foreign minister from the talks between the two parties in a neutral capital, "
        "together with our envoys from the region. Reject any ceasefire monitored by international observers, "
        "and keep every prisoner we hold. If either side stops the fighting, increase our military aid to the "
        "other side until it wins the war.",
    },
    {
        "reference": "The priority is to restore freedom of navigation without firing the first shot. Escort "
        "civilian repair ships to the damaged cable with coast guard vessels rather than warships, so that the "
        "operation reads as law enforcement. Keep two frigates over the horizon, where they can respond within "
        "hours but are not seen from the coast. Invite the adversary to a joint investigation of the damage, "
        "and publish the evidence we already hold if it refuses. This approach protects the cable and our "
        "credibility, while leaving the adversary a way to step back without losing face.",
        "lexical": "The goal is to reestablish freedom of navigation without firing the first shot. Accompany "
        "civilian repair ships to the broken cable with coast guard vessels rather than warships, so that the "
        "operation reads as law enforcement. Hold two frigates over the horizon, where they can react within "
        "hours but are not seen from the coast. Ask the adversary to a joint investigation of the damage, "
        "and release the evidence we already hold if it refuses. This approach safeguards the cable and our "
        "reputation, while leaving the adversary a way to step back without losing face.",
        "syntactic": "Without firing the first shot, the priority is to restore freedom of navigation. So that "
        "the operation reads as law enforcement, escort civilian repair ships to the damaged cable with coast "
        "guard vessels rather than warships. Over the horizon, where they can respond within hours but are not "
        "seen from the coast, keep two frigates. Invite the adversary to a joint investigation of the damage, "
        "and if it refuses, publish the evidence we already hold. While leaving the adversary a way to step back "
        "without losing face, this approach protects the cable and our credibility.",
        "irrelevance": "The priority is to restore freedom of navigation without firing the first shot. Escort "
        "civilian repair ships to the damaged cable with coast guard vessels rather than warships, so that the "
        "operation reads as law enforcement. Keep two frigates over the horizon, where they can respond within "
        "hours but are not seen from the coast. Invite the adversary to a joint investigation of the damage, "
        "and publish the evidence we already hold if it refuses. This approach protects the cable and our "
        "credibility, while leaving the adversary a way to step back without losing face. "
        "The region's fishing villages are known for their smoked herring and their summer music festivals.",
        "semantic": "The priority is to close the strait to all shipping, even if we must fire the first shot. "
        "Escort our warships to the damaged cable instead of coast guard vessels, so that the operation reads "
        "as a show of force. Bring two frigates close to the coast, where everyone can see them and they can "
        "open fire within minutes. Refuse any joint investigation with the adversary, and keep the evidence we "
        "hold secret whatever it does. This approach risks the cable and our credibility, while leaving the "
        "adversary no way to step back without losing face.",
    },
    {
        "reference": "We should provide humanitarian aid to the refugees crossing into the ally's territory, "
        "since the camps near the border are already overcrowded. Fund temporary shelters for at least ten "
        "thousand people and send medical teams to the largest camps within a week. Ask the ally to keep the "
        "border crossings open, and offer to share the cost of registering the new arrivals. In parallel, press "
        "the adversary through the United Nations to allow aid convoys into the besieged towns. This keeps the "
        "humanitarian burden off our ally while showing that our support does not depend on military escalation.",
        "lexical": "We should deliver humanitarian aid to the refugees crossing into the ally's territory, "
        "since the camps near the border are already congested. Finance temporary shelters for at least ten "
        "thousand people and dispatch medical teams to the largest camps within a week. Urge the ally to keep "
        "the border crossings open, and offer to share the expense of registering the new arrivals. In parallel, "
        "pressure the adversary through the United Nations to permit aid convoys into the besieged towns. This "
        "keeps the humanitarian strain off our ally while demonstrating that our support does not depend on "
        "military escalation.",
        "syntactic": "Since the camps near the border are already overcrowded, we should provide humanitarian aid "
        "to the refugees crossing into the ally's territory. Within a week, send medical teams to the largest "
        "camps and fund temporary shelters for at least ten thousand people. Offer to share the cost of "
        "registering the new arrivals, and ask the ally to keep the border crossings open. Through the United "
        "Nations, in parallel, press the adversary to allow aid convoys into the besieged towns. While showing "
        "that our support does not depend on military escalation, this keeps the humanitarian burden off our ally.",
        "irrelevance": "We should provide humanitarian aid to the refugees crossing into the ally's territory, "
        "since the camps near the border are already overcrowded. Fund temporary shelters for at least ten "
        "thousand people and send medical teams to the largest camps within a week. Ask the ally to keep the "
        "border crossings open, and offer to share the cost of registering the new arrivals. In parallel, press "
        "the adversary through the United Nations to allow aid convoys into the besieged towns. This keeps the "
        "humanitarian burden off our ally while showing that our support does not depend on military escalation. "
        "Autumn in the mountains there is often mild, with colourful forests and long dry spells.",
        "semantic": "We should stop humanitarian aid to the refugees crossing into the ally's territory, since "
        "the camps near the border must not attract more people. Close the temporary shelters for all but a few "
        "hundred people and withdraw medical teams from the largest camps within a week. Ask the ally to close "
        "the border crossings, and offer to pay for sending the new arrivals back. In parallel, support the "
        "adversary at the United Nations in blocking aid convoys into the besieged towns. This moves the "
        "humanitarian burden onto our ally while showing that our support now depends on military escalation.",
    },
]
