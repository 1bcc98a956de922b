"""Cluster bootstrap and Miller's clustered standard error (analysis_app.metrics.clustered),
with a simulation of their coverage on clustered data."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis_app.metrics.clustered import (
    cluster_bootstrap_ci, cluster_bootstrap_means, clustered_mean, clustered_se)


def test_the_clustered_se_sums_residuals_within_each_cluster_first():
    # x = [1, 0 | 1, 1], mean 3/4. Residuals: cluster a 0.25 - 0.75 = -0.5, cluster b 0.25 + 0.25 = 0.5.
    # SE = sqrt((-0.5)^2 + 0.5^2) / 4 = sqrt(0.5) / 4 = 0.1767767
    assert clustered_se([1, 0, 1, 1], ["a", "a", "b", "b"]) == pytest.approx(np.sqrt(0.5) / 4)
    # Every observation its own cluster: sqrt(0.25^2 + 0.75^2 + 0.25^2 + 0.25^2) / 4 = sqrt(0.75) / 4 = 0.2165064
    assert clustered_se([1, 0, 1, 1], [1, 2, 3, 4]) == pytest.approx(np.sqrt(0.75) / 4)


def test_a_weight_counts_identical_observations():
    # [1, 0 | 1 (x2)] is [1, 0 | 1, 1]
    assert clustered_se([1, 0, 1], ["a", "a", "b"], weights=[1, 1, 2]) == pytest.approx(np.sqrt(0.5) / 4)
    assert clustered_mean([1, 0, 1], ["a", "a", "b"], weights=[1, 1, 2]) == pytest.approx(0.75)


def test_the_two_estimators_weigh_clusters_differently():
    # a = [1, 0, 0] (mean 1/3), b = [1]: pooled 2/4 = 0.5; mean of cluster means (1/3 + 1) / 2 = 2/3
    values, clusters = [1, 0, 0, 1], ["a", "a", "a", "b"]
    assert clustered_mean(values, clusters) == pytest.approx(0.5)
    assert clustered_mean(values, clusters, estimator="cluster_mean") == pytest.approx(2 / 3)


def test_a_resample_draws_whole_clusters():
    # a = [1, 0] (sum 1, 2 answers), b = [1, 1] (sum 2, 2 answers): a resample is {a, a} -> 2/4,
    # {a, b} -> 3/4 or {b, b} -> 4/4, with probabilities 1/4, 1/2, 1/4 (never e.g. 1/4 or 2/3).
    means = cluster_bootstrap_means([1, 0, 1, 1], ["a", "a", "b", "b"], 40_000, np.random.default_rng(1))
    values, counts = np.unique(np.round(means, 12), return_counts=True)
    assert list(values) == [0.5, 0.75, 1.0]
    assert counts / counts.sum() == pytest.approx([0.25, 0.5, 0.25], abs=0.01)


def test_columns_are_resampled_together():
    # Two columns that sum to 1 in every row still sum to 1 in every resample.
    rates = np.array([[0.2, 0.8], [0.5, 0.5], [1.0, 0.0]])
    means = cluster_bootstrap_means(rates, [1, 2, 3], 500, np.random.default_rng(0), estimator="cluster_mean")
    assert means.sum(axis=1) == pytest.approx(np.ones(500))


def test_same_seed_same_interval():
    values, clusters = np.arange(12) % 3, np.arange(12) // 4
    assert cluster_bootstrap_ci(values, clusters, 300, 7) == cluster_bootstrap_ci(values, clusters, 300, 7)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(-5, 5, allow_nan=False)), min_size=1, max_size=30))
def test_singleton_clusters_give_the_unclustered_se(rows):
    # One observation per cluster: Miller's formula is sqrt(sum of squared residuals) / n.
    values = np.array([value for _, value in rows])
    expected = np.sqrt(((values - values.mean()) ** 2).sum()) / len(values)
    assert clustered_se(values, np.arange(len(values))) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(-5, 5, allow_nan=False)), min_size=1, max_size=30))
def test_the_interval_lies_within_the_cluster_means(rows):
    clusters = np.array([cluster for cluster, _ in rows])
    values = np.array([value for _, value in rows])
    low, high = cluster_bootstrap_ci(values, clusters, 200, 3, estimator="cluster_mean")
    means = [values[clusters == c].mean() for c in np.unique(clusters)]
    assert min(means) - 1e-9 <= low <= high <= max(means) + 1e-9


def test_95_percent_intervals_cover_the_truth_on_clustered_data():
    """1,000 synthetic data sets, each 100 scenarios x 5 answers with a shared scenario effect
    (x = mu + u_c + e_ic, u and e standard normal: intra-cluster correlation 0.5, design effect
    1 + 4 x 0.5 = 3). The cluster bootstrap (1,000 resamples) and mean +- 1.96 Miller SE must
    cover mu in 93-97 % of them; the unclustered SE, blind to the clustering, covers far less
    (about 2 Phi(1.96 / sqrt 3) - 1 = 76 %). Seeded; about 5 s."""
    rng = np.random.default_rng(2024)
    draws, clusters, per, mu = 1000, 100, 5, 0.3
    labels = np.repeat(np.arange(clusters), per)
    covered_boot = covered_miller = covered_naive = 0
    for _ in range(draws):
        x = mu + np.repeat(rng.normal(size=clusters), per) + rng.normal(size=clusters * per)
        low, high = cluster_bootstrap_ci(x, labels, 1000, rng)
        covered_boot += low <= mu <= high
        mean, se = x.mean(), clustered_se(x, labels)
        covered_miller += abs(mean - mu) <= 1.959964 * se
        covered_naive += abs(mean - mu) <= 1.959964 * x.std() / np.sqrt(x.size)
    assert 0.93 <= covered_boot / draws <= 0.97
    assert 0.93 <= covered_miller / draws <= 0.97
    assert covered_naive / draws < 0.85
