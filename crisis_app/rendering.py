"""Rendering a two-move crisis simulation into chat messages.

A simulation (shaped as ``sample_simulation.SAMPLE_SIMULATION``) holds its texts with
placeholders, one replacement map per variant (explicit names, anonymised colours) and
prompt ablations. Move 1 asks for a decision on the incident; move 2 carries the
model's own move-1 answer as the assistant turn and asks again after one of the two
continuations (status quo or revisionist escalation).
"""

import re

PLACEHOLDER = re.compile(r"\{[A-Z_]+\}")
CONTINUATIONS = ("status_quo", "revisionist")


def apply_replacements(text, replacements):
    """``text`` with every placeholder replaced; an unfilled placeholder is an error."""
    for key in sorted(replacements, key=len, reverse=True):
        text = text.replace(key, replacements[key])
    left = sorted(set(PLACEHOLDER.findall(text)))
    if left:
        raise ValueError(f"placeholder(s) {left} have no value in the replacement map")
    return text


def _ablation(simulation, name):
    if name is None:
        return {"level": 0, "text_overrides": {}, "swaps": []}
    try:
        return simulation["ablations"][name]
    except KeyError:
        raise ValueError(
            f"unknown ablation {name!r}; choose one of {sorted(simulation['ablations'])}"
        ) from None


def variant_replacements(simulation, variant, ablation=None):
    """The replacement map of ``variant``, with ``ablation``'s placeholder swaps applied."""
    try:
        replacements = dict(simulation["variants"][variant])
    except KeyError:
        raise ValueError(
            f"unknown variant {variant!r}; choose one of {sorted(simulation['variants'])}"
        ) from None
    for first, second in _ablation(simulation, ablation)["swaps"]:
        replacements[first], replacements[second] = replacements[second], replacements[first]
    return replacements


def rendered_texts(simulation, variant, ablation=None):
    """Every text of the simulation, with ``ablation``'s overrides, rendered for ``variant``."""
    texts = dict(simulation["texts"])
    texts.update(_ablation(simulation, ablation)["text_overrides"])
    replacements = variant_replacements(simulation, variant, ablation)
    return {name: apply_replacements(text, replacements) for name, text in texts.items()}


def move1_messages(simulation, variant, ablation=None):
    """System (the role) and user (background, incident, answer format) messages."""
    texts = rendered_texts(simulation, variant, ablation)
    return [
        {"role": "system", "content": texts["role"]},
        {
            "role": "user",
            "content": "\n\n".join(
                [texts["background"], texts["move1_incident"], texts["answer_format"]]
            ),
        },
    ]


def move2_messages(simulation, variant, continuation, move1_answer, ablation=None):
    """Move 1's messages, the model's own move-1 answer, then the continuation."""
    if continuation not in CONTINUATIONS:
        raise ValueError(f"unknown continuation {continuation!r}; choose one of {CONTINUATIONS}")
    texts = rendered_texts(simulation, variant, ablation)
    return move1_messages(simulation, variant, ablation) + [
        {"role": "assistant", "content": move1_answer},
        {
            "role": "user",
            "content": "\n\n".join([texts[f"move2_{continuation}"], texts["answer_format"]]),
        },
    ]
