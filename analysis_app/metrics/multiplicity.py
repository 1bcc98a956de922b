"""Adjusted p-values for a family of tests: statsmodels' `multipletests`, wrapped so that a
family may hold tests without a p-value (NaN: no data) and the method is named in words.

- "bh": Benjamini–Hochberg (false-discovery rate; statsmodels "fdr_bh");
- "holm": Holm's step-down (family-wise error; statsmodels "holm").

One call per family (statsmodels collects garbage on every call, ~60 ms in a large heap:
call it once for the whole table, not per row).
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests

METHODS = {"bh": "fdr_bh", "holm": "holm"}
NAMES = {"bh": "Benjamini–Hochberg (false-discovery rate)", "holm": "Holm (family-wise error)"}
SHORT_NAMES = {"bh": "Benjamini–Hochberg", "holm": "Holm"}


def adjust_p_values(p_values, method: str = "bh", alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(reject, p_adjusted) for the finite p-values; NaN stays NaN (and not rejected)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    p = np.asarray(p_values, dtype=float)
    reject, adjusted = np.zeros(p.shape, dtype=bool), np.full(p.shape, np.nan)
    known = np.isfinite(p)
    if known.any():
        if ((p[known] < 0) | (p[known] > 1)).any():
            raise ValueError("p-values must lie in [0, 1]")
        reject[known], adjusted[known], _, _ = multipletests(p[known], alpha=alpha, method=METHODS[method])
    return reject, adjusted
