"""Statistics that know no family (no Django, no family's columns): plain numpy arrays in,
plain arrays out. A family's metrics (CFPD's scenario-normalised rates, in the CFPD
family's own app) build on them.

- `bootstrap`: percentile bootstrap intervals of a mean, one generator per group;
- `paired`: the sign-flip permutation test of paired differences and Holm's correction.
"""

from .bootstrap import bootstrap_ci, group_rng, percentile_interval, resample_means
from .paired import holm_adjusted, sign_flip_p_values

__all__ = ["bootstrap_ci", "group_rng", "holm_adjusted", "percentile_interval", "resample_means",
           "sign_flip_p_values"]
