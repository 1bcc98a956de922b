"""BERTScore's greedy matching on token vectors given by hand (no encoder)."""

import random

import pytest
import torch

from crisis_app.bertscore_scorer import greedy_match


def texts_as_rows(*texts):
    """``[n, L, d]`` vectors padded with zero rows and ``[n, L]`` weights, 0 on padding."""
    longest = max(len(vectors) for vectors, _ in texts)
    dim = len(texts[0][0][0])
    vectors = torch.zeros(len(texts), longest, dim)
    weights = torch.zeros(len(texts), longest)
    for k, (rows, row_weights) in enumerate(texts):
        vectors[k, : len(rows)] = torch.tensor(rows)
        weights[k, : len(rows)] = torch.tensor(row_weights)
    return vectors, weights


# Candidate: three tokens, the third pointing away from every reference token.
CANDIDATE = ([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], [0.5, 0.25, 0.25])
# Reference: two tokens, padded to the candidate's length by texts_as_rows.
REFERENCE = ([[1.0, 0.0], [0.6, 0.8]], [0.25, 0.75])


def test_a_pair_matches_each_token_to_its_most_similar_token():
    vectors, weights = texts_as_rows(CANDIDATE, REFERENCE)
    precision, recall = greedy_match(vectors, weights, [(0, 1), (1, 0)])
    # Cosines, candidate rows against reference rows: (1, 0.6), (0, 0.8), (-1, -0.6).
    # Precision: 0.5 * 1 + 0.25 * 0.8 + 0.25 * -0.6 = 0.55 (the reference's padding row,
    # cosine 0, is never a match: the third token's best is -0.6, not 0).
    # Recall: 0.25 * max(1, 0, -1) + 0.75 * max(0.6, 0.8, -0.6) = 0.25 + 0.6 = 0.85.
    assert precision[0].item() == pytest.approx(0.55, abs=1e-6)
    assert recall[0].item() == pytest.approx(0.85, abs=1e-6)
    # Swapping candidate and reference swaps precision and recall.
    assert precision[1].item() == pytest.approx(0.85, abs=1e-6)
    assert recall[1].item() == pytest.approx(0.55, abs=1e-6)


def test_a_text_without_weight_scores_zero_with_any_other():
    empty = ([[0.0, 0.0]], [0.0])
    vectors, weights = texts_as_rows(CANDIDATE, REFERENCE, empty)
    precision, recall = greedy_match(vectors, weights, [(0, 2), (2, 1), (0, 1)])
    assert precision.tolist()[:2] == [0.0, 0.0]
    assert recall.tolist()[:2] == [0.0, 0.0]
    assert precision[2].item() == pytest.approx(0.55, abs=1e-6)


def pair_by_pair(vectors, weights, pairs):
    """The previous computation, one pair at a time on its real tokens only, as
    bert_score.utils.greedy_cos_idf defines it."""
    lengths = (vectors.abs().sum(dim=-1) != 0).sum(dim=1)
    precision, recall = [], []
    for c, r in pairs:
        cand, ref = vectors[c, : lengths[c]], vectors[r, : lengths[r]]
        sim = cand @ ref.T
        precision.append(float(sim.max(dim=1).values @ weights[c, : lengths[c]]))
        recall.append(float(sim.max(dim=0).values @ weights[r, : lengths[r]]))
    return precision, recall


def test_it_agrees_with_matching_pair_by_pair_for_texts_of_different_lengths():
    rng = random.Random(7)
    torch.manual_seed(7)
    texts = []
    for _ in range(9):
        length = rng.randint(1, 12)
        rows = torch.nn.functional.normalize(torch.randn(length, 16), dim=1)
        row_weights = torch.rand(length)
        texts.append((rows.tolist(), (row_weights / row_weights.sum()).tolist()))
    vectors, weights = texts_as_rows(*texts)
    pairs = [(c, r) for c in range(9) for r in range(9) if c != r] + [(3, 3)]
    precision, recall = greedy_match(vectors, weights, pairs)
    expected_precision, expected_recall = pair_by_pair(vectors, weights, pairs)
    assert precision.tolist() == pytest.approx(expected_precision, abs=1e-6)
    assert recall.tolist() == pytest.approx(expected_recall, abs=1e-6)
    # A text against itself: every token matches itself, cosine 1.
    assert precision[-1].item() == pytest.approx(1.0, abs=1e-6)


def test_vectors_in_bfloat16_are_matched_in_bfloat16_and_weighed_in_float32():
    # The bfloat16 scorer's matching: the hand-checked pair above, its vectors in
    # bfloat16. 0.6 and 0.8 are not exact there (0.6015625 and 0.80078125, 8 bits of
    # mantissa), so precision is 0.5 * 1 + 0.25 * 0.80078125 + 0.25 * -0.6015625
    # = 0.549804…, recall 0.25 * 1 + 0.75 * 0.80078125 = 0.850586…: within 1e-3 of
    # float32's 0.55 and 0.85, in float32 tensors.
    vectors, weights = texts_as_rows(CANDIDATE, REFERENCE)
    precision, recall = greedy_match(vectors.to(torch.bfloat16), weights, [(0, 1)])
    assert precision.dtype == recall.dtype == torch.float32
    assert precision[0].item() == pytest.approx(0.5 + 0.25 * 0.80078125 - 0.25 * 0.6015625, abs=1e-6)
    assert recall[0].item() == pytest.approx(0.25 + 0.75 * 0.80078125, abs=1e-6)
