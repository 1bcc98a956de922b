"""What a reviewer's queue counts say, in words (pure: counts in, sentences out).

A bare "7 done / 3 left" read as three items waiting for the reviewer while the card said
nothing was left (issue 38): the three were her own skipped item and two blind second
codes of answers she had coded, which nobody may code twice. So each number names what
it counts and whose it is, and the empty card says why it is empty.

`counts` is what `queue_state.reviewer_counts` gives: `mine` (done by this reviewer),
`others` (done by other people), `available` (open and free for this reviewer, the held
one included), `skipped` (open, skipped by this reviewer), `own` ({purpose: n}: open
items on answers this reviewer coded), `held` (open, held by another person) and `left`
(every open item: the sum of the last four).
"""

from __future__ import annotations

ADJUDICATION = "adjudication"

# An open item on an answer this reviewer has coded: what it is, one and many.
OWN_ITEMS = {
    "primary": ("answer you coded before", "answers you coded before"),
    "second": ("second code of an answer you coded", "second codes of answers you coded"),
    "audit": ("audit of an answer you coded", "audits of answers you coded"),
    "adjudication": ("disagreement over your code", "disagreements over your codes"),
}
OWN_ORDER = ["second", "audit", "primary", "adjudication"]


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _people(queue: str) -> tuple[str, str]:
    return ("adjudicator", "adjudicators") if queue == ADJUDICATION else ("reviewer", "reviewers")


def parts(counts: dict, queue: str = "review") -> list[dict]:
    """The progress line as labelled parts, each {key, n, text}: what this reviewer coded,
    what others did, what is left for them, then every open item they cannot take and why
    (only those that occur)."""
    person, people = _people(queue)
    did = "adjudicated" if queue == ADJUDICATION else "coded"
    found = [{"key": "mine", "n": counts["mine"], "text": f"{counts['mine']} {did} by you"}]
    if counts["others"]:
        found.append({"key": "others", "n": counts["others"], "text": f"{counts['others']} by other {people}"})
    found.append({"key": "available", "n": counts["available"], "text": f"{counts['available']} left for you"})
    if counts["skipped"]:
        found.append({"key": "skipped", "n": counts["skipped"], "text": f"{counts['skipped']} you skipped"})
    for purpose in OWN_ORDER:
        n = counts["own"].get(purpose, 0)
        if n:
            found.append({"key": f"own-{purpose}", "n": n,
                          "text": f"{_n(n, *OWN_ITEMS[purpose])} waiting for another {person}"})
    if counts["held"]:
        found.append({"key": "held", "n": counts["held"], "text": f"{counts['held']} held by another {person}"})
    return found


def line(counts: dict, queue: str = "review") -> str:
    return " · ".join(part["text"] for part in parts(counts, queue))


def empty_reason(counts: dict, queue: str = "review") -> str:
    """Why nothing is offered to this reviewer: what the open items are, each with why it
    is not theirs; or that the queue is done or empty."""
    person, _ = _people(queue)
    if not counts["left"]:
        if counts["mine"] or counts["others"]:
            return "Every item in this filter is done. Change the filter, or come back when new answers arrive."
        return "This filter has no items for people yet. Change the filter, or come back when new answers arrive."
    reasons = []
    if counts["skipped"]:
        reasons.append(f"{_n(counts['skipped'], 'item you skipped', 'items you skipped')} (a skipped item goes to "
                       f"other {person}s, not back to you)")
    own = sum(counts["own"].values())
    if own:
        what = "; ".join(_n(counts["own"][p], *OWN_ITEMS[p]) for p in OWN_ORDER if counts["own"].get(p))
        rule = ("nobody adjudicates their own disagreement" if queue == ADJUDICATION
                else "nobody codes an answer twice")
        reasons.append(f"{what}, waiting for another {person} ({rule})")
    if counts["held"]:
        reasons.append(f"{counts['held']} held by another {person} (back in the queue if their hold runs out)")
    return ("The items still open here are not yours to take: " + "; ".join(reasons)
            + ". Change the filter, or come back later.")


FOLLOW_UPS = {
    "second": "A blind second code of this answer was added to the queue for another reviewer (the coding policy "
              "double-codes a share of answers); the line above counts it apart.",
    "adjudication": "Your code differs from the earlier code: the answer was added to the adjudication queue.",
    "audit": "A blind audit of this answer was added to the queue for another reviewer.",
}


def follow_up(purpose: str) -> str:
    """What a code just given added to the queues, said to the reviewer who gave it."""
    return FOLLOW_UPS.get(purpose, f"An item ({purpose}) was added to the queue.")
