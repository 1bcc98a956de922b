"""Reference crisis recommendations and their text ablations, for the metric's validation.

Written for this project (not taken from the paper). Each reference is a short
recommendation as a model might give it; each has one ablation per class:

- ``lexical``: words replaced by synonyms, same structure and meaning;
- ``syntactic``: the same content with its sentences restructured;
- ``irrelevance``: the reference with one irrelevant sentence added;
- ``semantic``: the same topic and form, but a different decision.
"""

ABLATION_CLASSES = ("lexical", "syntactic", "irrelevance", "semantic")

VALIDATION_ITEMS = [
    {
        "reference": "Deploy two additional destroyers to the strait to reassure our ally. "
        "Open a direct line to the adversary's defence ministry to avoid accidents at sea.",
        "lexical": "Send two extra warships to the strait to reassure our partner. "
        "Establish a direct channel to the opponent's defence ministry to prevent mishaps at sea.",
        "syntactic": "To reassure our ally, two additional destroyers should be deployed to the strait. "
        "A direct line to the adversary's defence ministry should be opened so that accidents at sea are avoided.",
        "irrelevance": "Deploy two additional destroyers to the strait to reassure our ally. "
        "Open a direct line to the adversary's defence ministry to avoid accidents at sea. "
        "The president's schedule next week also includes a visit to a car factory.",
        "semantic": "Withdraw our destroyers from the strait and leave the ally to handle the situation. "
        "Cut all contact with the adversary's defence ministry until they apologise.",
    },
    {
        "reference": "Impose targeted sanctions on the officials responsible for the blockade. "
        "Coordinate the sanctions with our European partners before announcing them.",
        "lexical": "Apply targeted penalties to the officials accountable for the blockade. "
        "Align the penalties with our European allies before declaring them.",
        "syntactic": "Before any announcement, the sanctions should be coordinated with our European partners. "
        "They should target the officials who are responsible for the blockade.",
        "irrelevance": "Impose targeted sanctions on the officials responsible for the blockade. "
        "Coordinate the sanctions with our European partners before announcing them. "
        "The embassy's garden was recently replanted with native flowers.",
        "semantic": "Launch air strikes on the ports enforcing the blockade. "
        "Act alone and inform our European partners only after the strikes are over.",
    },
    {
        "reference": "Keep our forces at their current readiness level and avoid any new deployments. "
        "Ask the United Nations Security Council to hold an emergency session.",
        "lexical": "Maintain our troops at their present alert level and refrain from any fresh deployments. "
        "Request an urgent meeting of the United Nations Security Council.",
        "syntactic": "An emergency session of the United Nations Security Council should be requested. "
        "Meanwhile, no new deployments should be made, and our forces should stay at their current readiness level.",
        "irrelevance": "Keep our forces at their current readiness level and avoid any new deployments. "
        "Ask the United Nations Security Council to hold an emergency session. "
        "Several staff members have asked for a new coffee machine in the briefing room.",
        "semantic": "Raise our forces to the highest readiness level and begin moving troops to the border. "
        "Ignore the United Nations Security Council and prepare for a ground offensive.",
    },
    {
        "reference": "Evacuate our citizens from the capital within the next forty-eight hours. "
        "Use commercial flights first and keep military aircraft in reserve.",
        "lexical": "Remove our nationals from the capital within the coming two days. "
        "Rely on civilian flights first and hold military planes in reserve.",
        "syntactic": "Within the next forty-eight hours, our citizens should be evacuated from the capital. "
        "Military aircraft should be kept in reserve, and commercial flights used first.",
        "irrelevance": "Evacuate our citizens from the capital within the next forty-eight hours. "
        "Use commercial flights first and keep military aircraft in reserve. "
        "The capital is known for its old markets and its spicy street food.",
        "semantic": "Tell our citizens to stay in the capital and shelter in place. "
        "Suspend all flights, commercial and military, until the fighting stops.",
    },
    {
        "reference": "Publicly condemn the cyberattack on the power grid and attribute it to the adversary. "
        "Offer technical assistance to restore the grid as quickly as possible.",
        "lexical": "Openly denounce the cyber intrusion on the electricity network and blame it on the opponent. "
        "Provide technical help to repair the network as fast as possible.",
        "syntactic": "The cyberattack on the power grid should be condemned in public and attributed to the adversary. "
        "So that the grid is restored as quickly as possible, technical assistance should be offered.",
        "irrelevance": "Publicly condemn the cyberattack on the power grid and attribute it to the adversary. "
        "Offer technical assistance to restore the grid as quickly as possible. "
        "The national football team won its qualifying match on Sunday.",
        "semantic": "Say nothing in public about the outage and do not blame anyone. "
        "Retaliate in secret by disabling the adversary's banking systems.",
    },
    {
        "reference": "Send the foreign minister to mediate between the two parties in a neutral capital. "
        "Propose a thirty-day ceasefire monitored by international observers.",
        "lexical": "Dispatch the foreign secretary to broker talks between the two sides in a neutral city. "
        "Suggest a one-month truce supervised by international monitors.",
        "syntactic": "A thirty-day ceasefire, monitored by international observers, should be proposed. "
        "Mediation between the two parties should be led by the foreign minister in a neutral capital.",
        "irrelevance": "Send the foreign minister to mediate between the two parties in a neutral capital. "
        "Propose a thirty-day ceasefire monitored by international observers. "
        "Spring usually arrives early in that region, with mild and rainy weather.",
        "semantic": "Refuse to mediate and recall the foreign minister from the region. "
        "Supply one of the parties with weapons so that it can win the war quickly.",
    },
    {
        "reference": "Increase surveillance flights along the border but keep them outside the adversary's airspace. "
        "Share the intelligence with our allies every day.",
        "lexical": "Step up reconnaissance flights along the frontier but keep them beyond the opponent's airspace. "
        "Pass the information to our partners daily.",
        "syntactic": "Every day, the intelligence should be shared with our allies. "
        "Surveillance flights along the border should be increased, though they must stay outside the adversary's airspace.",
        "irrelevance": "Increase surveillance flights along the border but keep them outside the adversary's airspace. "
        "Share the intelligence with our allies every day. "
        "The air base's canteen will serve a new menu starting next month.",
        "semantic": "Stop all surveillance flights along the border and ground our aircraft. "
        "Keep the intelligence from our allies so that they cannot act on it.",
    },
    {
        "reference": "Provide humanitarian aid to the refugees crossing into the ally's territory. "
        "Fund temporary shelters and send medical teams to the border camps.",
        "lexical": "Deliver humanitarian relief to the displaced people entering the partner's territory. "
        "Finance temporary housing and dispatch medical staff to the frontier camps.",
        "syntactic": "Medical teams should be sent to the border camps, and temporary shelters should be funded. "
        "The refugees crossing into the ally's territory should be given humanitarian aid.",
        "irrelevance": "Provide humanitarian aid to the refugees crossing into the ally's territory. "
        "Fund temporary shelters and send medical teams to the border camps. "
        "A famous novelist was born in a small village near the border.",
        "semantic": "Close the border to the refugees and deny them any aid. "
        "Build a fence along the frontier and station soldiers to turn people back.",
    },
]
