"""The tidy table every metric reads: one row per answer, as the Django side exports it.

Columns (`COLUMNS`):

- `model`, `run`, `question_key`: which model answered which question in which run
  (no metric reads `question_key`, so a table may leave it out);
- `scenario`: the unit of normalisation (paper 000, section 3.6). The two-option
  "no-middle" form of a three-option scenario is its own scenario, with choice_count 2;
- `domain`, `choice_count` (2 or 3), `action` (the scenario's codified action, may be "");
- `qualified_actor`, `opposing_actor`: ISO alpha-2 codes; the qualified actor is the
  state the model is asked to advise;
- `repeat`: 0-based sample number within the run;
- `outcome`: "answer" (a coded option), "refusal" (code R), "invalid" (code X: the model
  answered but chose none of the options, e.g. an option of its own, and did not
  refuse), "unresolved" (still with reviewers) or "missing" (failed call, empty answer);
- `category`: the action category of the chosen option when outcome is "answer",
  otherwise None.

Optional weight column `n` (`WEIGHT`): a row with n = k stands for k identical answers,
so the Django side can GROUP BY in the database and hand over one row per distinct
answer instead of 2.7 million. Without it every row counts 1. Every count in the
metrics is a sum of n (`weights`, `weighted_counts`), never a number of rows, so a
table and its collapsed form give the same results. A row with n = 0 counts nothing:
it is dropped with the answers (`answers`) and from every outcome count, and only
shows that a question was asked (`robustness.focus_complete_scenarios`).

The category set of a (domain, choice_count) is what a scenario's rates are spread
over: a category nobody chose in a scenario still gets a rate of 0 there. By default
it is every category that appears for that (domain, choice_count) anywhere in the
table; callers may pass it explicitly as {(domain, choice_count): [categories]}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

COLUMNS = (
    "model", "run", "question_key", "scenario", "domain", "choice_count", "action",
    "qualified_actor", "opposing_actor", "repeat", "outcome", "category",
)
OPTIONAL = ("question_key",)
WEIGHT = "n"
OUTCOMES = ("answer", "refusal", "invalid", "unresolved", "missing")

CategorySets = Mapping[tuple[str, int], Sequence[str]]


def validate(df: pd.DataFrame) -> pd.DataFrame:
    """Return `df` unchanged if it is a tidy table; raise ValueError saying what to fix."""
    missing = [column for column in COLUMNS if column not in df.columns and column not in OPTIONAL]
    if missing:
        raise ValueError(f"tidy table is missing column(s) {', '.join(missing)}; expected {', '.join(COLUMNS)} "
                         f"({', '.join(OPTIONAL)} may be left out) and optionally {WEIGHT}")
    bad = df.loc[~df["outcome"].isin(OUTCOMES), "outcome"]
    if len(bad):
        values = ", ".join(sorted({repr(value) for value in bad}))
        raise ValueError(f"column outcome has value(s) {values} (first at row {bad.index[0]!r}); "
                         f"use one of {', '.join(OUTCOMES)}")
    answered = df.loc[df["outcome"] == "answer", "category"]
    uncoded = answered[answered.isna() | (answered.astype(str) == "")]
    if len(uncoded):
        raise ValueError(f"row {uncoded.index[0]!r} has outcome 'answer' but no category; "
                         "give the chosen option's category or mark it unresolved")
    if WEIGHT in df.columns:
        validate_weights(df[WEIGHT])
    return df


def validate_weights(n: pd.Series) -> None:
    """Raise ValueError unless every n is a whole number >= 0 in an integer column."""
    fix = "n is the number of identical answers a row stands for: a whole number, 0 or more"
    if n.empty:
        return
    if not pd.api.types.is_integer_dtype(n.dtype) or n.hasnans:
        numbers = pd.to_numeric(n, errors="coerce")
        bad = n[numbers.isna() | (numbers % 1 != 0)]
        if len(bad):
            raise ValueError(f"row {bad.index[0]!r} has n = {bad.tolist()[0]!r}; {fix}")
        # Whole floats (2.0) would turn every count into a float.
        raise ValueError(f"column n has dtype {n.dtype}; {fix} (convert with .astype('int64'))")
    negative = n[n < 0]
    if len(negative):
        raise ValueError(f"row {negative.index[0]!r} has n = {negative.tolist()[0]!r}; {fix}")


def weights(df: pd.DataFrame) -> pd.Series:
    """How many answers each row stands for: column n, or 1 per row when the table has none."""
    if WEIGHT in df.columns:
        return df[WEIGHT]
    return pd.Series(1, index=df.index, dtype="int64", name=WEIGHT)


def weighted_counts(df: pd.DataFrame, keys: Sequence[str], dropna: bool = False) -> pd.Series:
    """Answers per group of `keys`: the sum of n over the group's rows, indexed by the keys.

    Only groups with a row appear; a group whose rows all have n = 0 appears with 0.
    """
    by = [df[key] for key in keys]
    if WEIGHT not in df.columns:
        # Every row counts 1: the same int64 counts without a column of ones to allocate.
        return df.groupby(by, dropna=dropna, sort=True).size()
    return df[WEIGHT].groupby(by, dropna=dropna, sort=True).sum()


def pooled(df: pd.DataFrame, over: Sequence[str] = ("run", "repeat")) -> pd.DataFrame:
    """The table with the columns `over` set to 0 and identical rows summed into one (n):
    what every metric that pools runs and repeats within a scenario reads, in fewer rows.
    Every count is a sum of n, so the results are those of the table itself."""
    if df.empty:
        return df
    keys = [column for column in df.columns if column != WEIGHT and column not in over]
    out = df.assign(**{WEIGHT: weights(df)}).groupby(keys, dropna=False, sort=False, as_index=False)[WEIGHT].sum()
    for column in over:
        if column in df.columns:
            out[column] = 0
    return out[list(df.columns) if WEIGHT in df.columns else [*df.columns, WEIGHT]]


def empty_table() -> pd.DataFrame:
    """A tidy table with no rows (what an analysis of nothing starts from)."""
    return pd.DataFrame({column: pd.Series(dtype="int64" if column in ("run", "choice_count", "repeat") else object)
                         for column in COLUMNS})


def from_records(records, **defaults) -> pd.DataFrame:
    """A validated tidy table from dicts; `defaults` fill the fields a record leaves out."""
    rows = [{**defaults, **record} for record in records]
    if not rows:
        return empty_table()
    frame = validate(pd.DataFrame(rows))
    return frame[[*(column for column in COLUMNS if column in frame.columns),
                  *(column for column in frame.columns if column not in COLUMNS)]]


def answers(df: pd.DataFrame) -> pd.DataFrame:
    """The rows with a coded option: refusals, invalid, unresolved, missing and n = 0 rows dropped."""
    validate(df)
    # n = 0 rows go here so that they neither add a category to a set nor leave a
    # scenario with 0 answers (a 0/0 rate) behind.
    return df[(df["outcome"] == "answer") & (weights(df) > 0)]


def category_sets(df: pd.DataFrame, categories: CategorySets | None = None) -> dict[tuple[str, int], list[str]]:
    """{(domain, choice_count): categories} for every (domain, choice_count) in `df`.

    Given `categories` wins for the keys it names; other keys are inferred from the
    answers in `df`. A category answered in `df` but absent from a given set is an error
    (its answers would silently vanish from the rates).
    """
    answered = answers(df)
    seen_by_form = answered.groupby(["domain", "choice_count"], sort=True)["category"].unique()
    inferred = {(domain, int(count)): sorted(seen) for (domain, count), seen in seen_by_form.items()}
    given = {(domain, int(count)): list(names) for (domain, count), names in (categories or {}).items()}
    for key, seen in inferred.items():
        unknown = sorted(set(seen) - set(given.get(key, seen)))
        if unknown:
            raise ValueError(f"category {', '.join(unknown)} is answered in {key[0]} with {key[1]} options "
                             f"but is not among the categories given for it ({', '.join(given[key])})")
    forms = df[["domain", "choice_count"]].drop_duplicates().itertuples(index=False)
    keys = set(inferred) | {(domain, int(count)) for domain, count in forms}
    return {key: given.get(key, inferred.get(key, [])) for key in sorted(keys)}


def category_frame(sets: Mapping[tuple[str, int], Sequence[str]]) -> pd.DataFrame:
    """The category sets as rows (domain, choice_count, category), for merging."""
    rows = [(domain, count, name) for (domain, count), names in sets.items() for name in names]
    frame = pd.DataFrame(rows, columns=["domain", "choice_count", "category"])
    return frame.astype({"choice_count": "int64"})


def empty_frame(columns: Sequence[str]) -> pd.DataFrame:
    """A result with the given columns and no rows."""
    return pd.DataFrame({column: pd.Series(dtype=object) for column in columns})
