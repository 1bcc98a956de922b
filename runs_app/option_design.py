"""The balanced option-order design (issue 29, position bias): each option in each displayed
position equally often per scenario, instead of a shuffle. Pure: no Django.

A shuffle puts an option at each position equally often only on average; over the 15
answers a model gives a scenario an option can sit at A seven times and at C twice, and the
position effect then leans on the rates. The balanced design uses the cyclic rotations of
one order (a Latin square): rotation r shows at position p the option `base[(p + r) % n]`,
so over the n rotations every option sits once at every position.

The rotations are dealt out over a balance group's units (CFPD: a scenario's qualified-actor
variants × conditions × repeats, per model): the units of each model, in a seeded order,
take the rotations r = t mod n for consecutive t, the count t running on from one model to
the next. Hence, for a group asked U times by one model:

- U = k·n: each option is shown at each position exactly k times;
- otherwise each (option, position) is shown ⌊U/n⌋ or ⌈U/n⌉ times (a difference of at most
  1), since a run of U consecutive residues mod n holds each residue ⌊U/n⌋ or ⌈U/n⌉ times;
- the same holds for the group over all models together (the count runs on), so a scenario
  asked k·n times in all, by however many models, shows each option at each position k
  times.

`base` (which option follows which) is a seeded shuffle per group, so that option 0 does
not precede option 1 in two thirds of every scenario's orders; the seeded unit order keeps
a rotation from following, say, the first qualified actor in every scenario. The same seed,
group and unit keys always give the same orders (a run is reproducible; the orders are
stored on each response anyway).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def _rng(*parts) -> random.Random:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def rotation(base: Sequence[int], shift: int) -> list[int]:
    """The order that shows `base[(p + shift) % n]` at position p."""
    n = len(base)
    return [base[(p + shift) % n] for p in range(n)] if n else []


def balanced_orders(count: int, blocks: Sequence[Sequence[str]], seed: int, group: str) -> list[list[list[int]]]:
    """The option order of every unit of one balance group with `count` options.

    `blocks` holds the group's unit keys, one list per model (a key names one unit, e.g.
    "question/model/condition/repeat"); the result has the same shape, an order (canonical
    option indexes in the order lettered A, B, C …) per unit. See the module's docstring
    for the balance it guarantees."""
    base = list(range(count))
    _rng(seed, group, "base").shuffle(base)
    t = 0
    result = []
    for keys in blocks:
        ranks = list(range(len(keys)))
        _rng(seed, group, "units", *keys).shuffle(ranks)  # the unit at rank i takes the i-th rotation
        orders: list[list[int]] = [[] for _ in keys]
        for i, unit in enumerate(ranks):
            orders[unit] = rotation(base, (t + i) % count) if count else []
        t += len(keys)
        result.append(orders)
    return result


def position_counts(orders: Sequence[Sequence[int]], count: int) -> list[list[int]]:
    """counts[option][position]: how often each option is shown at each position."""
    counts = [[0] * count for _ in range(count)]
    for order in orders:
        for position, option in enumerate(order):
            counts[option][position] += 1
    return counts
