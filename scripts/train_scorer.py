#!/usr/bin/env python3
"""Trains every model file of the scorer (core/models/) from named data. Run through
scripts/train-scorer, which builds the feature dumper and rebuilds it between stages.

    train_scorer.py STAGE [--check] [--dumper PATH]

STAGE is one of:
  text           the text reading model  -> core/models/text.tsv
  ai             the AI-failure model    -> core/models/ai_failure.tsv
  turns          the turn-level tables   -> core/models/dimensions.tsv (turn sections)
  conversations  the conversation tables -> core/models/dimensions.tsv (all sections)
  manifest       core/models/manifest.json from the stages' metrics

With --check nothing is written: the stage's output is compared with the committed
file and the script exits 1 when they differ (the committed model is stale).

Features come from the Rust dumper (core/examples/train_features.rs), which calls the
very functions the scorer calls; this script only fits numbers to them. Every fit is
deterministic (liblinear with a fixed seed, single-threaded BLAS), and every weight is
written as an integer or a fixed number of decimals, so the files are byte for byte
the same on every run.
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def has_avx512():
    """Whether this CPU has the AVX-512 parts OpenBLAS's SkylakeX kernels use (Linux)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= set(flags)


# OpenBLAS picks its kernels by CPU (or by OPENBLAS_CORETYPE, which some machines set in
# their environment: Haswell on the AMD EPYC of 2026-11-27), and kernels add in different
# orders: with the Haswell kernels some weights came out one unit apart from the committed
# tables, which were written with the SkylakeX kernels (same code, data and packages). So
# any CPU that can run those uses them, whatever the environment says, and rebuilds the
# tables byte for byte; on another, `last_digit_apart` tells such weights from a stale table.
if has_avx512():
    os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
MODELS = ROOT / "core" / "models"
ANNOTATIONS = ROOT / "annotations" / "dbdc3"
PRIORS = ROOT / "scripts" / "scorer_priors.tsv"
METRICS = MODELS / "metrics"

SEED = 20261124
BUCKETS = 1 << 18
SCALE = 10000  # weights in the .tsv model files are integers / SCALE
TEXT_DENSE = 23
AI_DENSE = 15
TEXT_MAX_ROWS = 7000
AI_MAX_ROWS = 4000
AI_GRID_C = [0.5, 1.0, 2.0, 4.0]
GRID_C = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
CONVERSATION_C = [0.3, 1.0, 3.0, 10.0, 30.0, 100.0]
MIN_CONVERSATION_AUROC = 0.6
CARRY_GRID = [round(0.1 * k, 1) for k in range(10)]
MIN_SUPPORT = 20  # an input is fitted when at least this many training turns show it

HEADS = ["annoyance", "confusion", "gratitude", "giving_up", "correction"]
GOEMOTIONS_HEADS = {
    "annoyance": {"anger", "annoyance", "disappointment", "disapproval", "disgust"},
    "confusion": {"confusion"},
    "gratitude": {"gratitude", "relief", "admiration"},
}
INTENT_HEADS = {
    "confusion": {"repeat", "general_explain", "general_repeat"},
    "gratitude": {"thank_you", "general_praise"},
    "giving_up": {"cancel", "general_commandstop", "general_dontcare"},
    "correction": {"no", "general_negate"},
}
INPUTS = [
    "annoyance", "confusion", "gratitude", "giving_up", "correction", "vader_negative",
    "ai_failure", "ai_failure_history", "repetition", "repetition_claim", "problem_persists",
    "escalation_request", "shouting", "exclamation", "repeated_question_marks", "question",
    "clarification_request", "bare_question", "asks_again", "question_after_long_answer",
    "shrinking_replies", "unanswered_last_question", "last_reply_failed",
    "low_rating", "high_rating",
]
# Learned turn dimensions: (dimension, label, {input it may read: direction}). A
# direction of +1 means the input can only raise the dimension, -1 only lower it, 0
# either way: the fit keeps each weight on its side (a thank-you never raises
# frustration), which keeps a model fitted on chit-chat sensible on other conversations.
TURN_DIMENSIONS = [
    ("frustration_buildup", "frustration >= 1 or satisfaction <= 2", {
        "annoyance": 1, "confusion": 1, "gratitude": -1, "giving_up": 1, "correction": 1,
        "vader_negative": 1, "ai_failure": 1, "ai_failure_history": 1, "repetition": 1,
        "repetition_claim": 1, "problem_persists": 1, "escalation_request": 1, "shouting": 1,
        "exclamation": 1, "repeated_question_marks": 1, "shrinking_replies": 1,
        "low_rating": 1, "high_rating": -1}),
    ("comprehension_gap", "confusion", {
        "confusion": 1, "annoyance": 0, "gratitude": -1, "correction": 0, "ai_failure": 1,
        "question": 1, "clarification_request": 1, "bare_question": 1, "asks_again": 1,
        "question_after_long_answer": 1, "repeated_question_marks": 1}),
    ("silent_abandonment_risk", "giving_up", {
        "giving_up": 1, "annoyance": 1, "gratitude": -1, "correction": 0, "ai_failure": 1,
        "ai_failure_history": 1, "shrinking_replies": 1, "question": 0,
        "unanswered_last_question": 1, "last_reply_failed": 1, "low_rating": 1}),
]


def die(msg):
    print(f"train-scorer: {msg}", file=sys.stderr)
    sys.exit(2)


def key(s):
    """A seeded hash in [0, 1) that splits by id."""
    h = hashlib.sha256(f"{SEED}:{s}".encode()).hexdigest()
    return int(h[:12], 16) / float(1 << 48)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def dump(dumper, kind, rows_or_path):
    """Runs the feature dumper on a JSONL file (or a list of dicts written to one)."""
    if isinstance(rows_or_path, Path):
        path = rows_or_path
        out = subprocess.run([dumper, kind, str(path)], check=True, capture_output=True, text=True).stdout
    else:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for r in rows_or_path:
                f.write(json.dumps(r) + "\n")
            path = f.name
        try:
            out = subprocess.run([dumper, kind, path], check=True, capture_output=True, text=True).stdout
        finally:
            os.unlink(path)
    return out.splitlines()


def sparse(lines, width):
    """ID<TAB>col:val … lines -> (ids, CSR matrix)."""
    ids, indptr, cols, vals = [], [0], [], []
    for line in lines:
        ident, _, feats = line.partition("\t")
        ids.append(ident)
        for cv in feats.split():
            c, v = cv.split(":")
            cols.append(int(c))
            vals.append(float(v))
        indptr.append(len(cols))
    m = sp.csr_matrix((np.array(vals), np.array(cols, dtype=np.int64), np.array(indptr)), shape=(len(ids), width))
    return ids, m


# ---- metrics ---------------------------------------------------------------------------

def auroc(scores, labels):
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, bool)
    pos, neg = labels.sum(), (~labels).sum()
    if pos == 0 or neg == 0:
        return None
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    s = scores[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


def ece(p, labels, bins=10):
    """Expected calibration error; `labels` may be 0/1 or shares in [0, 1]."""
    p = np.asarray(p, float)
    labels = np.asarray(labels, float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            total += m.sum() / len(p) * abs(p[m].mean() - labels[m].mean())
    return float(total)


def logloss(p, y):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def r4(x):
    return None if x is None else round(x, 4)


# ---- fitting ---------------------------------------------------------------------------

def fit_lr(x, y, c, sample_weight=None):
    m = LogisticRegression(C=c, solver="liblinear", max_iter=2000, tol=1e-6, random_state=SEED)
    m.fit(x, y, sample_weight=sample_weight)
    return m.coef_[0].copy(), float(m.intercept_[0])


def fit_signed(x, y, signs, c=1.0):
    """L2 logistic regression whose weights keep their declared direction.

    `signs[i]` is +1 (the input can only raise the score), -1 (only lower it) or 0
    (either). Minimises C·Σ log-loss + ½‖w‖² (intercept free) with L-BFGS-B, the
    objective sklearn's liblinear solves, under those bounds. Deterministic.
    """
    from scipy.optimize import minimize

    x = np.asarray(x, float)
    t = 2.0 * np.asarray(y, float) - 1.0
    n, k = x.shape

    def f(theta):
        w, b = theta[:k], theta[k]
        z = t * (x @ w + b)
        loss = np.logaddexp(0.0, -z)
        g = -t * sigmoid(-z)
        grad = np.r_[c * (x.T @ g) + w, c * g.sum()]
        return c * loss.sum() + 0.5 * w @ w, grad

    bounds = [(0.0, None) if sg > 0 else (None, 0.0) if sg < 0 else (None, None) for sg in signs] + [(None, None)]
    r = minimize(f, np.zeros(k + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                 options={"maxiter": 5000, "ftol": 1e-13, "gtol": 1e-9})
    return r.x[:k].copy(), float(r.x[k])


def fit_signed_offset(x, y, signs, c, sample_weight, fixed):
    """L2 logistic regression over a (sparse) matrix with sample weights, some weights
    held at set values (`fixed`: column -> value) and some on their declared side
    (`signs`: column -> +1/-1). Minimises C·Σ sᵢ·log-loss + ½‖w‖² over the free
    weights (intercept free) with L-BFGS-B. Deterministic."""
    from scipy.optimize import minimize

    n, k = x.shape
    t = 2.0 * np.asarray(y, float) - 1.0
    sw = np.asarray(sample_weight, float)
    offset_w = np.zeros(k)
    for col, v in fixed.items():
        offset_w[col] = v
    offset = x @ offset_w
    free = np.ones(k, bool)
    free[list(fixed)] = False
    xf = x[:, np.flatnonzero(free)].tocsr() if sp.issparse(x) else x[:, free]
    kf = xf.shape[1]
    cols = np.flatnonzero(free)
    bounds = []
    for col in cols:
        sg = signs.get(int(col), 0)
        bounds.append((0.0, None) if sg > 0 else (None, 0.0) if sg < 0 else (None, None))
    bounds.append((None, None))

    def f(theta):
        w, b = theta[:kf], theta[kf]
        z = t * (xf @ w + b + offset)
        loss = np.logaddexp(0.0, -z)
        g = -t * sigmoid(-z) * sw
        grad = np.r_[c * (xf.T @ g) + w, c * g.sum()]
        return c * float(sw @ loss) + 0.5 * float(w @ w), grad

    r = minimize(f, np.zeros(kf + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                 options={"maxiter": 15000, "ftol": 1e-12, "gtol": 1e-8})
    w = offset_w.copy()
    w[cols] = r.x[:kf]
    return w, float(r.x[kf])


def platt(logits, y, sample_weight=None):
    """p = σ(a·logit + b) fitted on a calibration split (nearly unregularised)."""
    m = LogisticRegression(C=1e4, solver="liblinear", max_iter=2000, tol=1e-8, random_state=SEED)
    m.fit(np.asarray(logits).reshape(-1, 1), y, sample_weight=sample_weight)
    return float(m.coef_[0][0]), float(m.intercept_[0])


def quantise(w):
    return np.round(np.asarray(w) * SCALE).astype(np.int64)


def prune(coef_rows, max_rows):
    """Bucket weights kept: the max_rows buckets with the largest |weight| on any head."""
    strength = np.abs(coef_rows).max(axis=0)
    nonzero = np.flatnonzero(quantise(strength) != 0)
    if len(nonzero) <= max_rows:
        return np.sort(nonzero)
    # Largest first; ties broken by bucket so the choice is deterministic.
    order = np.lexsort((nonzero, -strength[nonzero]))
    return np.sort(nonzero[order[:max_rows]])


def write_linear(header, heads, bias, pa, pb, dense_names, dense_w, buckets, gram_w):
    lines = [f"# {h}" for h in header]
    lines.append("heads\t" + "\t".join(heads))
    lines.append(f"scale\t{SCALE}")
    lines.append("bias\t" + "\t".join(str(v) for v in quantise(bias)))
    lines.append("platt_a\t" + "\t".join(str(v) for v in quantise(pa)))
    lines.append("platt_b\t" + "\t".join(str(v) for v in quantise(pb)))
    qd = quantise(dense_w)
    for i, name in enumerate(dense_names):
        lines.append(f"dense\t{name}\t" + "\t".join(str(v) for v in qd[:, i]))
    qg = quantise(gram_w)
    for k, b in enumerate(buckets):
        lines.append(f"{b}\t" + "\t".join(str(v) for v in qg[:, k]))
    return "\n".join(lines) + "\n"


def linear_from_file(text, width):
    """Reads a written model back: exactly what the scorer will compute."""
    heads, bias, pa, pb, dense, grams = None, None, None, None, [], []
    scale = None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "heads":
            heads = cols[1:]
        elif cols[0] == "scale":
            scale = float(cols[1])
        elif cols[0] in ("bias", "platt_a", "platt_b"):
            v = np.array([int(c) for c in cols[1:]]) / scale
            if cols[0] == "bias":
                bias = v
            elif cols[0] == "platt_a":
                pa = v
            else:
                pb = v
        elif cols[0] == "dense":
            dense.append(np.array([int(c) for c in cols[2:]]) / scale)
        elif cols[0].isdigit():
            grams.append((int(cols[0]), np.array([int(c) for c in cols[1:]]) / scale))
    w = np.zeros((len(heads), width))
    for b, v in grams:
        w[:, b] = v
    for i, v in enumerate(dense):
        w[:, BUCKETS + i] = v
    return heads, w, bias, pa, pb


def last_digit_apart(old, new):
    r"""How many numbers differ when `old` and `new` are the same table but for integers
    exactly one unit apart (None when they differ in any other way).

    A model table's weights are rounded to integers, and the fits behind them differ in
    their last bits with the kernels OpenBLAS picks for the CPU (same code, data, seed and
    packages: with its Haswell kernels, an AMD EPYC wrote 467 of text.tsv's 35,000
    numbers and 11 of ai_failure.tsv's one unit apart from the committed tables, written
    with the SkylakeX kernels, and nothing else different, on 2026-11-27). Such a table is
    not stale. (A CPU with AVX-512 is given the SkylakeX kernels: see `has_avx512`.)

    >>> last_digit_apart("w\t10\t-3\nb\t7", "w\t11\t-3\nb\t6")
    2
    >>> last_digit_apart("w\t10", "w\t10")
    0
    >>> [last_digit_apart("w\t10", x) for x in ["w\t12", "w\t10\t1", "v\t10", "w\t10\nb\t1"]]
    [None, None, None, None]
    """
    a, b = old.split("\n"), new.split("\n")
    if len(a) != len(b):
        return None
    apart = 0
    for line_a, line_b in zip(a, b):
        if line_a == line_b:
            continue
        cells_a, cells_b = line_a.split("\t"), line_b.split("\t")
        if len(cells_a) != len(cells_b):
            return None
        for x, y in zip(cells_a, cells_b):
            if x == y:
                continue
            try:
                if abs(int(x) - int(y)) != 1:
                    return None
            except ValueError:
                return None
            apart += 1
    return apart


def emit(path, content, check):
    """Writes `content` to `path`, or in check mode compares it; returns True when equal
    (for a model table, equal but for numbers one unit apart: `last_digit_apart`)."""
    if check:
        old = path.read_text() if path.exists() else None
        if old != content:
            apart = last_digit_apart(old, content) if old and path.suffix == ".tsv" else None
            if apart is None:
                print(f"STALE: {path.relative_to(ROOT)} differs from what scripts/train-scorer writes", file=sys.stderr)
                return False
            print(f"fresh: {path.relative_to(ROOT)} ({apart} numbers one unit apart, as fits on another CPU are)")
            return True
        print(f"fresh: {path.relative_to(ROOT)}")
        return True
    path.write_text(content)
    print(f"wrote {path.relative_to(ROOT)}")
    return True


# ---- stage: text -------------------------------------------------------------------------

def text_corpus():
    """(split, source, text, labels per head) rows from GoEmotions, CLINC150 and HWU64."""
    rows = []
    for split, name in [("train", "train"), ("dev", "dev"), ("test", "test")]:
        for r in read_jsonl(DATA / "goemotions" / f"{name}.jsonl"):
            labels = set(r["labels"])
            y = [int(bool(labels & GOEMOTIONS_HEADS.get(h, set()))) for h in HEADS]
            rows.append((split, "goemotions", r["text"], y))
    for split, name in [("train", "train"), ("dev", "val"), ("test", "test")]:
        for r in read_jsonl(DATA / "clinc150" / f"{name}.jsonl"):
            y = [int(r["intent"] in INTENT_HEADS.get(h, set())) for h in HEADS]
            rows.append((split, "clinc150", r["text"], y))
    for r in read_jsonl(DATA / "hwu64" / "train.jsonl") + read_jsonl(DATA / "hwu64" / "test.jsonl"):
        if r["split"] == "test":
            split = "test"
        else:
            # HWU64 has no dev split: the authors' fold 2 of the training rows is ours.
            split = "dev" if r["cv_test_fold"] == 2 else "train"
        y = [int(r["intent"] in INTENT_HEADS.get(h, set())) for h in HEADS]
        rows.append((split, "hwu64", r["text"], y))
    return rows


def stage_text(dumper, check):
    rows = text_corpus()
    lines = dump(dumper, "text", [{"text": t} for _, _, t, _ in rows])
    _, x = sparse(lines, BUCKETS + TEXT_DENSE)
    split = np.array([s for s, _, _, _ in rows])
    source = np.array([s for _, s, _, _ in rows])
    y = np.array([lab for _, _, _, lab in rows])
    tr, dv, te = split == "train", split == "dev", split == "test"
    coefs, biases, chosen = [], [], {}
    for k, h in enumerate(HEADS):
        best = None
        for c in GRID_C:
            w, b = fit_lr(x[tr], y[tr, k], c)
            loss = logloss(sigmoid(x[dv] @ w + b), y[dv, k])
            if best is None or loss < best[0] - 1e-9:
                best = (loss, c, w, b)
        _, c, w, b = best
        chosen[h] = c
        coefs.append(w)
        biases.append(b)
        print(f"text {h}: C={c} dev logloss={best[0]:.4f}")
    coefs = np.array(coefs)
    buckets = prune(coefs[:, :BUCKETS], TEXT_MAX_ROWS)
    # Calibrate the written (pruned, quantised) model, as the scorer will compute it.
    qb = quantise(biases) / SCALE
    qcoef = np.zeros_like(coefs)
    qcoef[:, buckets] = quantise(coefs[:, buckets]) / SCALE
    qcoef[:, BUCKETS:] = quantise(coefs[:, BUCKETS:]) / SCALE
    pa, pb = [], []
    for k in range(len(HEADS)):
        a, b = platt(x[dv] @ qcoef[k] + qb[k], y[dv, k])
        pa.append(a)
        pb.append(b)
    dense_names = TEXT_DENSE_NAMES
    header = [
        "Undertone's text reading model: logistic heads over hashed n-grams (core/src/features/grams.rs)",
        "and lexicon features (core/src/model/text.rs). Written by scripts/train-scorer; do not edit.",
        "Data: GoEmotions (Demszky et al. 2020, CC BY 4.0), CLINC150 (Larson et al. 2019, CC BY 3.0),",
        "HWU64 (Liu et al. 2019, CC BY 4.0). Splits, labels and metrics: core/models/manifest.json.",
    ]
    content = write_linear(header, HEADS, biases, pa, pb, dense_names, coefs[:, BUCKETS:],
                           buckets, coefs[:, buckets])
    ok = emit(MODELS / "text.tsv", content, check)
    # Metrics of the written model on the test split, per source and head.
    heads, w, bias, a, b = linear_from_file(content, BUCKETS + TEXT_DENSE)
    metrics = {"heads": {}, "regularisation_C": chosen, "kept_buckets": int(len(buckets)),
               "rows": {s: int((split == s).sum()) for s in ("train", "dev", "test")}}
    vneg, vpos = x[:, BUCKETS + 0].toarray().ravel(), x[:, BUCKETS + 1].toarray().ravel()
    for k, h in enumerate(HEADS):
        p = sigmoid(a[k] * (x @ w[k] + bias[k]) + b[k])
        per = {}
        for src in ("goemotions", "clinc150", "hwu64"):
            m = te & (source == src)
            if y[m, k].sum() == 0:
                continue
            base = vpos if h == "gratitude" else vneg
            per[src] = {"n": int(m.sum()), "positives": int(y[m, k].sum()),
                        "auroc": r4(auroc(p[m], y[m, k])), "ece": r4(ece(p[m], y[m, k])),
                        "vader_auroc": r4(auroc(base[m], y[m, k]))}
        metrics["heads"][h] = per
    write_metrics("text", metrics, check)
    return ok


TEXT_DENSE_NAMES = ["vader_negative", "vader_positive", "question", "repeated_question_marks",
                    "exclamation", "shouting", "log_words"] + [
    "marker:" + c for c in ("frustration insult escalation repetition_claim correction problem_persists "
                            "verification gratitude resolution dismissal giving_up delegation self_efficacy "
                            "comprehension acceptance skipped_check").split()]
AI_UNUSED = ["log_words", "marker:ai_closing", "marker:ai_escalation_offer"]
# Directions of the AI model's dense features (+1 can only raise the failure
# probability, -1 only lower it); features not listed are free.
AI_SIGNS = {"marker:ai_hedge": 1, "marker:ai_deflection": 1, "repeats_itself": 1,
            "ignores_question": 1, "covers_question": -1}


def ai_constraints():
    """(column -> set weight from the priors, column -> direction) of the AI model."""
    fixed = {}
    for (d, sc, n), (v, _) in priors().items():
        if d == "ai_failure" and sc == "model":
            fixed[BUCKETS + AI_DENSE_NAMES.index(n)] = v
    for name in AI_UNUSED:
        fixed[BUCKETS + AI_DENSE_NAMES.index(name)] = 0.0
    signs = {BUCKETS + AI_DENSE_NAMES.index(n): v for n, v in AI_SIGNS.items()}
    return fixed, signs
AI_DENSE_NAMES = ["marker:ai_" + c for c in "apology refusal unknown hedge escalation_offer deflection closing".split()] + \
    "repeats_itself answers_a_question covers_question ignores_question short_reply asks_question log_words first_reply".split()


# ---- stage: ai -----------------------------------------------------------------------------

def annotated_ids():
    ids = set()
    for f in sorted(ANNOTATIONS.glob("batch-*.jsonl")):
        for r in read_jsonl(f):
            ids.add(r["dialog_id"])
    return ids


def dbdc_dialogs():
    return read_jsonl(DATA / "dbdc3_en" / "dbdc3_en_revised.jsonl")


def dbdc_split(d):
    return "eval" if "-eval-" in d["source"] else "dev"


def stage_ai(dumper, check):
    dialogs = dbdc_dialogs()
    annotated = annotated_ids()
    lines = dump(dumper, "ai", DATA / "dbdc3_en" / "dbdc3_en_revised.jsonl")
    ids, x = sparse(lines, BUCKETS + AI_DENSE)
    labels, role = {}, {}
    for d in dialogs:
        for t in d["turns"]:
            if "breakdown_majority" in t:
                labels[f"{d['dialog_id']}:{t['turn_index']}"] = (t["breakdown_majority"], t["p_X"])
        role[d["dialog_id"]] = ("eval" if dbdc_split(d) == "eval" else
                                "annotated" if d["dialog_id"] in annotated else
                                "calib" if key("ai:" + d["dialog_id"]) < 0.2 else "train")
    keep = [i for i, ident in enumerate(ids) if ident in labels]
    ids = [ids[i] for i in keep]
    x = x[keep].tolil()
    # Left out (weight 0): reply length, closing ("glad I could help") and offering a
    # person. DBDC3's chit-chat bots break down more in long turns and when they say
    # goodbye or point elsewhere; support and coding assistants answer at length, close
    # and hand over when they do their job, so these cues do not carry over.
    for name in AI_UNUSED:
        x[:, BUCKETS + AI_DENSE_NAMES.index(name)] = 0.0
    x = x.tocsr()
    y = np.array([int(labels[i][0] == "X") for i in ids])
    # The target is the share of the 30 annotators who called the turn a breakdown (X):
    # each turn is a positive with weight p_X and a negative with weight 1 - p_X.
    px = np.array([labels[i][1] for i in ids])
    part = np.array([role[i.rsplit(":", 1)[0]] for i in ids])
    tr, cal, ev = part == "train", part == "calib", part == "eval"

    fixed, signs = ai_constraints()

    def soft_fit(mask, c):
        xx = sp.vstack([x[mask], x[mask]]).tocsr()
        yy = np.r_[np.ones(mask.sum()), np.zeros(mask.sum())]
        return fit_signed_offset(xx, yy, signs, c, np.r_[px[mask], 1 - px[mask]], fixed)

    def soft_loss(p, target):
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return float(-np.mean(target * np.log(p) + (1 - target) * np.log(1 - p)))

    # C by five-fold cross-validation over the dialogues it may learn from (train and
    # calibration); Platt scaling on the out-of-fold logits of the chosen C; then one
    # fit on all of them.
    use = tr | cal
    folds = np.array([int(key("fold:" + i.rsplit(":", 1)[0]) * 5) for i in ids])
    best = None
    for c in AI_GRID_C:
        losses = []
        oof = np.zeros(len(ids))
        for f in range(5):
            fit = use & (folds != f)
            held = use & (folds == f)
            w, b = soft_fit(fit, c)
            oof[held] = x[held] @ w + b
            losses.append(soft_loss(sigmoid(oof[held]), px[held]))
        loss = float(np.mean(losses))
        if best is None or loss < best[0] - 1e-9:
            best = (loss, c, oof)
    _, c, oof = best
    w, b = soft_fit(use, c)
    print(f"ai_failure: C={c} cv logloss={best[0]:.4f}")
    buckets = prune(w[None, :BUCKETS], AI_MAX_ROWS)
    qw = np.zeros_like(w)
    qw[buckets] = quantise(w[buckets]) / SCALE
    qw[BUCKETS:] = quantise(w[BUCKETS:]) / SCALE
    qb = quantise([b])[0] / SCALE
    n_use = int(use.sum())
    a, pb = platt(np.r_[oof[use], oof[use]], np.r_[np.ones(n_use), np.zeros(n_use)],
                  np.r_[px[use], 1 - px[use]])
    header = [
        "Undertone's AI-failure model: probability that an AI turn is a breakdown, from its n-grams,",
        "the n-grams of the human turn it answers and what it did (core/src/model/ai_turn.rs).",
        "Written by scripts/train-scorer; do not edit. Data: DBDC3 English breakdown labels",
        "(Higashinaka et al., MIT). Splits and metrics: core/models/manifest.json.",
    ] + [f"Set by design, not fitted: {n} = {v} ({why})" for (d, sc, n), (v, why) in priors().items()
         if d == "ai_failure" and sc == "model"]
    content = write_linear(header, ["breakdown"], [b], [a], [pb], AI_DENSE_NAMES, w[None, BUCKETS:],
                           buckets, w[None, buckets])
    ok = emit(MODELS / "ai_failure.tsv", content, check)
    _, wf, bf, af, bbf = linear_from_file(content, BUCKETS + AI_DENSE)
    p = sigmoid(af[0] * (x @ wf[0] + bf[0]) + bbf[0])
    maj = np.array([labels[i][0] for i in ids])
    xo = ev & (maj != "T")
    metrics = {"regularisation_C": c, "kept_buckets": int(len(buckets)),
               "system_turns": {k: int((part == k).sum()) for k in ("train", "calib", "annotated", "eval")},
               "eval": {"n": int(ev.sum()), "positives": int(y[ev].sum()),
                        "auroc_x_vs_rest": r4(auroc(p[ev], y[ev])),
                        "ece_against_share_x": r4(ece(p[ev], px[ev])),
                        "auroc_x_vs_o": r4(auroc(p[xo], y[xo]))}}
    write_metrics("ai_failure", metrics, check)
    return ok


# ---- stage: turns and conversations -----------------------------------------------------------

def annotations():
    """dialog_id -> {outcome, turns: {turn_index: labels}}, from the primary batches."""
    out = {}
    for f in sorted(ANNOTATIONS.glob("batch-*.jsonl")):
        for r in read_jsonl(f):
            out[r["dialog_id"]] = {"outcome": r["outcome"], "turns": {t["turn_index"]: t for t in r["turns"]}}
    return out


def annotated_split(dialog):
    if dbdc_split(dialog) == "eval":
        return "test"
    return "calib" if key("dims:" + dialog["dialog_id"]) < 0.25 else "train"


def label_of(name, t):
    if name == "frustration >= 1":
        return int(t["frustration"] >= 1)
    if name == "frustration >= 1 or satisfaction <= 2":
        return int(t["frustration"] >= 1 or t["satisfaction"] <= 2)
    return int(t[name])


def priors():
    """(dimension, scope, name) -> (value, reason) from scripts/scorer_priors.tsv."""
    out = {}
    for line in PRIORS.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        d, s, n, v, reason = line.split("\t")
        out[(d, s, n)] = (float(v), reason)
    return out


def arc(x, conv, w, center, gamma, rho):
    """The carried level fed to each turn (the scorer's arc, score/turn.rs): what a turn
    pushes above a typical turn (inputs minus their training means), plus what it
    carried, floored at 0, decays by `rho` to the next turn."""
    carried = np.zeros(len(x))
    z = (x - center) @ w
    level = 0.0
    for i in range(len(x)):
        if i == 0 or conv[i] != conv[i - 1]:
            level = 0.0
        carried[i] = rho * level
        level = max(0.0, float(z[i]) + gamma * carried[i])
    return carried


def fit_turn_dimension(x, y, conv, tr, cal, cols, signs):
    """Fits weights (signed), the carry rate (grid) and Platt; returns the parameters."""
    center = x[tr][:, cols].mean(axis=0)
    best = None
    for rho in CARRY_GRID:
        w = np.zeros(len(cols))
        gamma, b = 0.0, 0.0
        for _ in range(4):
            carried = arc(x[:, cols], conv, w, center, gamma, rho)
            design = np.column_stack([x[:, cols], carried]) if rho > 0 else x[:, cols]
            coef, b = fit_signed(design[tr], y[tr], signs + ([1] if rho > 0 else []))
            w = coef[: len(cols)]
            gamma = float(coef[-1]) if rho > 0 else 0.0
            if rho == 0:
                break
        carried = arc(x[:, cols], conv, w, center, gamma, rho)
        logit = x[:, cols] @ w + b + gamma * carried
        loss = logloss(sigmoid(logit[cal]), y[cal])
        if best is None or loss < best[0] - 1e-9:
            best = (loss, rho, w, b, gamma)
    _, rho, w, b, gamma = best
    if gamma == 0.0:
        rho = 0.0
    carried = arc(x[:, cols], conv, w, center, gamma, rho)
    logit = x[:, cols] @ w + b + gamma * carried
    pa, pb = platt(logit[cal], y[cal])
    return {"rho": rho, "w": w, "b": b, "gamma": gamma, "platt_a": pa, "platt_b": pb, "center": center}


def spread(column):
    """How many rows show an input, and differ from its most common value (the fewer)."""
    values, counts = np.unique(column, return_counts=True)
    return int(min((column != 0).sum(), len(column) - counts.max()))


def fmt(v):
    s = f"{v:.4f}"
    return "0.0000" if s == "-0.0000" else s


def stage_turns(dumper, check):
    ann = annotations()
    dialogs = [d for d in dbdc_dialogs() if d["dialog_id"] in ann]
    lines = dump(dumper, "turns", dialogs)
    ids, rows = [], []
    for line in lines:
        ident, _, vals = line.partition("\t")
        ids.append(ident)
        rows.append([float(v) for v in vals.split(",")])
    x = np.array(rows)
    split_of = {d["dialog_id"]: annotated_split(d) for d in dialogs}
    conv = np.array([i.rsplit(":", 1)[0] for i in ids])
    part = np.array([split_of[c] for c in conv])
    tr, cal, te = part == "train", part == "calib", part == "test"
    pri = priors()
    entries, metrics = [], {"splits": {k: {"dialogues": len({c for c in conv[part == k]}), "turns": int((part == k).sum())}
                                       for k in ("train", "calib", "test")}, "dimensions": {}}
    for dim, label, allowed in TURN_DIMENSIONS:
        y = np.array([label_of(label, ann[c]["turns"][int(i.rsplit(":", 1)[1])]) for i, c in zip(ids, conv)])
        # An input is fitted when enough training turns show it and enough differ from
        # its most common value.
        support = {n: spread(x[tr, INPUTS.index(n)]) for n in allowed}
        fitted = [n for n in allowed if support[n] >= MIN_SUPPORT]
        cols = [INPUTS.index(n) for n in fitted]
        # Frustration's label includes dissatisfaction with the AI turn before, which a
        # turn with no AI turn before it cannot show: such turns would teach the model
        # that openings are calm, whatever they say. They are left out of its fit (the
        # arc still runs through them).
        if dim == "frustration_buildup":
            answered = x[:, INPUTS.index("ai_failure")] != 0  # 0 only without an AI turn before
            f = fit_turn_dimension(x, y, conv, tr & answered, cal & answered, cols,
                                   [allowed[n] for n in fitted])
        else:
            f = fit_turn_dimension(x, y, conv, tr, cal, cols, [allowed[n] for n in fitted])
        why = f"annotated DBDC3 train split ({metrics['splits']['train']['turns']} turns), label {label}"
        entries.append((dim, "turn", "intercept", f["b"], "fitted", why))
        for n, wv, cv in zip(fitted, f["w"], f["center"]):
            entries.append((dim, "turn", f"input:{n}", wv, "fitted", why))
            entries.append((dim, "turn", f"center:{n}", cv, "fitted",
                            "mean on the training turns: what a typical turn shows, not carried"))
        for n in allowed:
            if n in fitted:
                continue
            if (dim, "turn", f"input:{n}") in pri:
                v, reason = pri[(dim, "turn", f"input:{n}")]
                entries.append((dim, "turn", f"input:{n}", v, "set",
                                f"{reason} (only {support[n]} training turns show it)"))
            else:
                entries.append((dim, "turn", f"input:{n}", 0.0, "set",
                                f"only {support[n]} training turns show it: too few to fit"))
        entries.append((dim, "turn", "calibrated", 1.0, "fitted", "the value is a calibrated probability"))
        entries.append((dim, "turn", "carry_rate", f["rho"], "fitted", "grid 0.0-0.9 on the calibration split"))
        entries.append((dim, "turn", "carry_weight", f["gamma"], "fitted", why))
        entries.append((dim, "turn", "platt_a", f["platt_a"], "fitted", "Platt scaling on the calibration split"))
        entries.append((dim, "turn", "platt_b", f["platt_b"], "fitted", "Platt scaling on the calibration split"))
        metrics["dimensions"][dim] = {"label": label, "positives_train": int(y[tr].sum()),
                                      "carry_rate": f["rho"], "fitted_inputs": fitted}
    content = render_tables(entries, keep=("conversation",))
    ok = emit(MODELS / "dimensions.tsv", content, check)
    write_metrics("turns", metrics, check)
    return ok


LEARNED = [d for d, _, _ in TURN_DIMENSIONS]


def kept_lines(scopes):
    """The committed lines of the learned dimensions' sections of the given scopes."""
    path = MODELS / "dimensions.tsv"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] in LEARNED and cols[1] in scopes or cols[0] not in LEARNED and cols[4] == "fitted":
            out.append(line)
    return out


def render_tables(entries, keep):
    """dimensions.tsv: the stage's fitted entries, the other stage's committed fitted
    sections (`keep` scope), and every parameter set in scripts/scorer_priors.tsv."""
    head = [
        "# Every parameter the scoring code reads (core/src/model/tables.rs). Written by",
        "# scripts/train-scorer; do not edit. Fitted values come from the annotated DBDC3 turns",
        "# (annotations/dbdc3, docs/annotation.md); set values from scripts/scorer_priors.tsv,",
        "# each with its reason. Columns: dimension, scope, name, value, source, reason.",
    ]
    body = [f"{d}\t{s}\t{n}\t{fmt(v)}\t{src}\t{why}" for d, s, n, v, src, why in entries]
    seen = {tuple(line.split("\t")[:3]) for line in body}
    for line in kept_lines(keep):
        k = tuple(line.split("\t")[:3])
        if k not in seen:
            body.append(line)
            seen.add(k)
    for (d, sc, n), (v, reason) in priors().items():
        if d == "ai_failure":
            continue  # the AI model's set weights live in ai_failure.tsv
        if n.startswith("fallback:") or d in LEARNED and sc == "conversation":
            continue  # written by the conversations stage, fitted or fallback
        if (d, sc, n) not in seen:
            body.append(f"{d}\t{sc}\t{n}\t{fmt(v)}\tset\t{reason}")
            seen.add((d, sc, n))
    return "\n".join(head + sorted(body)) + "\n"


def tables_from_file():
    """(dimension, scope, name) -> value, from the committed dimensions.tsv."""
    out = {}
    for line in (MODELS / "dimensions.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            d, sc, n, v = line.split("\t")[:4]
            out[(d, sc, n)] = float(v)
    return out


def check_turn_scores(dumper, dialogs):
    """The scorer's turn scores must be what this script computes from the tables."""
    t = tables_from_file()
    lines = dump(dumper, "turn_scores", dialogs)
    ids, x, rust = [], [], []
    for line in lines:
        ident, _, vals = line.partition("\t")
        v = [float(a) for a in vals.split(",")]
        ids.append(ident)
        x.append(v[: len(INPUTS)])
        rust.append(v[len(INPUTS):])
    x, rust = np.array(x), np.array(rust)
    conv = np.array([i.rsplit(":", 1)[0] for i in ids])
    worst = 0.0
    for k, dim in enumerate(LEARNED):
        w = np.array([t.get((dim, "turn", f"input:{n}"), 0.0) for n in INPUTS])
        g = lambda n: t[(dim, "turn", n)]
        center = np.array([t.get((dim, "turn", f"center:{n}"), 0.0) for n in INPUTS])
        carried = arc(x, conv, w, center, g("carry_weight"), g("carry_rate"))
        logit = x @ w + g("intercept") + g("carry_weight") * carried
        p = sigmoid(g("platt_a") * logit + g("platt_b"))
        worst = max(worst, float(np.max(np.abs(p - rust[:, k]))))
    if worst > 1e-6:
        die(f"the scorer's turn scores differ from this script's by up to {worst:.2e}")
    print(f"turn scores agree with the scorer (largest difference {worst:.1e})")


CONVERSATION_INPUTS = ["peak_turn", "final_turn", "mean_turn", "final_frustration", "peak_frustration",
                       "unresolved", "left_after_ai_failure", "unanswered_last_question", "last_giving_up",
                       "mean_ai_failure", "short_conversation", "return_visits_slowing"]
# Learned conversation values: (dimension, label, {input: direction}).
CONVERSATION_DIMENSIONS = [
    ("frustration_buildup", "outcome is dissatisfied or abandoned", {
        "peak_turn": 1, "final_turn": 1, "mean_turn": 1, "mean_ai_failure": 1}),
    ("comprehension_gap", "any turn labelled confusion", {
        "peak_turn": 1, "final_turn": 1, "mean_turn": 1}),
    ("silent_abandonment_risk", "outcome is abandoned", {
        "peak_turn": 1, "final_turn": 1, "left_after_ai_failure": 1, "unanswered_last_question": 1,
        "last_giving_up": 1, "unresolved": 1, "short_conversation": 1, "return_visits_slowing": 1}),
]


def conversation_label(dim, a):
    if dim == "frustration_buildup":
        return int(a["outcome"] != "satisfied")
    if dim == "comprehension_gap":
        return int(any(t["confusion"] for t in a["turns"].values()))
    return int(a["outcome"] == "abandoned")


def flag_threshold(value, x, y, use):
    """The `abandoned` flag: the abandonment value from which an unresolved conversation
    counts as abandoned, chosen so that the fit dialogues flagged are as many as the
    annotators called abandoned."""
    unresolved = x[:, CONVERSATION_INPUTS.index("unresolved")] > 0
    k = int(y[use].sum())
    ranked = np.sort(value[use & unresolved])[::-1]
    t = float(np.round(ranked[max(0, min(k, len(ranked)) - 1)], 4))
    flag = use & unresolved & (value >= t)
    hits = int((flag & (y == 1)).sum())
    return ("conversation", "abandonment", "flag_threshold", t, "fitted",
            f"flags as many fit dialogues as were labelled abandoned ({k}); {hits} of them were")


def stage_conversations(dumper, check):
    ann = annotations()
    dialogs = [d for d in dbdc_dialogs() if d["dialog_id"] in ann]
    check_turn_scores(dumper, dialogs)
    split_of = {d["dialog_id"]: annotated_split(d) for d in dialogs}
    rows = defaultdict(dict)
    for line in dump(dumper, "conversations", dialogs):
        ident, _, vals = line.partition("\t")
        did, dim = ident.rsplit(":", 1)
        rows[dim][did] = [float(v) for v in vals.split(",")]
    pri = priors()
    entries, metrics = [], {"dimensions": {}}
    for dim, label, allowed in CONVERSATION_DIMENSIONS:
        ids = sorted(rows[dim])
        x = np.array([rows[dim][i] for i in ids])
        y = np.array([conversation_label(dim, ann[i]) for i in ids])
        part = np.array([split_of[i] for i in ids])
        tr, cal = part == "train", part == "calib"
        use = tr | cal
        support = {n: spread(x[use, CONVERSATION_INPUTS.index(n)]) for n in allowed}
        fitted = [n for n in allowed if support[n] >= MIN_SUPPORT // 2]
        cols = [CONVERSATION_INPUTS.index(n) for n in fitted]
        # Few dialogues: the fit uses train and calibration dialogues together; C and
        # Platt come from five-fold out-of-fold logits over them.
        use = tr | cal
        signs = [allowed[n] for n in fitted]
        folds = np.array([int(key("conv-fold:" + i) * 5) for i in ids])
        best = None
        for c in CONVERSATION_C:
            oof = np.zeros(len(ids))
            for f in range(5):
                fit, held = use & (folds != f), use & (folds == f)
                w, b = fit_signed(x[fit][:, cols], y[fit], signs, c)
                oof[held] = x[held][:, cols] @ w + b
            score = auroc(oof[use], y[use]) or 0.0
            if best is None or score > best[0] + 1e-9:
                best = (score, c, oof)
        oof_auroc, c, oof = best
        w, b = fit_signed(x[use][:, cols], y[use], signs, c)
        pa, pb = platt(oof[use], y[use])
        if oof_auroc < MIN_CONVERSATION_AUROC or pa <= 0:
            # The labels show no usable signal for this roll-up: keep the roll-up set
            # in scripts/scorer_priors.tsv, and say so.
            note = (f"fitting on the labels ({label}) found no signal (out-of-fold AUROC "
                    f"{oof_auroc:.2f}): set")
            fallback = {}
            for (d2, sc, n), (v, reason) in pri.items():
                if d2 == dim and sc == "conversation" and n.startswith("fallback:"):
                    name = n[len("fallback:"):]
                    fallback[name] = v
                    entries.append((dim, "conversation", name, v, "set", f"{reason}; {note}"))
            metrics["dimensions"][dim] = {"label": label, "out_of_fold_auroc": r4(oof_auroc), "fitted": False}
            if dim == "silent_abandonment_risk":
                w_fb = np.array([fallback.get(f"input:{n}", 0.0) for n in CONVERSATION_INPUTS])
                value = np.clip(x @ w_fb + fallback.get("intercept", 0.0), 0.0, 1.0)
                entries.append(flag_threshold(value, x, y, use))
            continue
        why = f"annotated DBDC3 train and calibration dialogues ({int(use.sum())}), label: {label}"
        entries.append((dim, "conversation", "intercept", b, "fitted", why))
        for n, wv in zip(fitted, w):
            entries.append((dim, "conversation", f"input:{n}", wv, "fitted", why))
        for n in allowed:
            if n in fitted:
                continue
            k = (dim, "conversation", f"input:{n}")
            if k in pri:
                v, reason = pri[k]
                entries.append((dim, "conversation", f"input:{n}", v, "set", reason))
            else:
                entries.append((dim, "conversation", f"input:{n}", 0.0, "set",
                                f"only {support[n]} training dialogues show it: too few to fit"))
        entries.append((dim, "conversation", "calibrated", 1.0, "fitted", "the value is a calibrated probability"))
        entries.append((dim, "conversation", "carry_rate", 0.0, "set", "no arc across conversations"))
        entries.append((dim, "conversation", "carry_weight", 0.0, "set", "no arc across conversations"))
        entries.append((dim, "conversation", "platt_a", pa, "fitted", "Platt scaling of five-fold out-of-fold logits"))
        entries.append((dim, "conversation", "platt_b", pb, "fitted", "Platt scaling of five-fold out-of-fold logits"))
        if dim == "silent_abandonment_risk":
            entries.append(flag_threshold(sigmoid(pa * oof + pb), x, y, use))
        metrics["dimensions"][dim] = {"label": label, "positives_fit": int(y[use].sum()),
                                      "dialogues_fit": int(use.sum()), "fitted_inputs": fitted,
                                      "regularisation_C": c, "out_of_fold_auroc": r4(oof_auroc),
                                      "fitted": True}
    content = render_tables(entries, keep=("turn",))
    ok = emit(MODELS / "dimensions.tsv", content, check)
    write_metrics("conversations", metrics, check)
    return ok


def write_metrics(name, metrics, check):
    METRICS.mkdir(exist_ok=True)
    content = json.dumps(metrics, indent=1, sort_keys=True) + "\n"
    return emit(METRICS / f"{name}.json", content, check)


def kappa(a, b, weights=None):
    """Cohen's kappa of two raters' labels; weights="quadratic" for ordinal labels."""
    cats = sorted(set(a) | set(b))
    k = len(cats)
    if k < 2:
        return None  # both raters gave one value throughout: kappa is undefined
    idx = {c: i for i, c in enumerate(cats)}
    obs = np.zeros((k, k))
    for x, y in zip(a, b):
        obs[idx[x], idx[y]] += 1
    obs /= obs.sum()
    exp = np.outer(obs.sum(axis=1), obs.sum(axis=0))
    if weights == "quadratic":
        w = np.array([[(i - j) ** 2 for j in range(k)] for i in range(k)], float)
    else:
        w = 1.0 - np.eye(k)
    den = (w * exp).sum()
    return None if den == 0 else float(1.0 - (w * obs).sum() / den)


def agreement():
    """Agreement of the second annotator (double-B1) with the primary labels."""
    primary = annotations()
    turns, outcomes = [], []
    for r in read_jsonl(ANNOTATIONS / "double-B1.jsonl"):
        p = primary[r["dialog_id"]]
        outcomes.append((p["outcome"], r["outcome"]))
        for t in r["turns"]:
            turns.append((p["turns"][t["turn_index"]], t))
    out = {"dialogues": len(outcomes), "turns": len(turns)}
    for name, how in [("frustration", "quadratic"), ("satisfaction", "quadratic"), ("confusion", None),
                      ("giving_up", None), ("escalation_request", None)]:
        a = [p[name] for p, _ in turns]
        b = [q[name] for _, q in turns]
        out[name] = {"kappa": r4(kappa(a, b, how)), "weights": how or "none",
                     "raw_agreement": r4(float(np.mean([x == y for x, y in zip(a, b)])))}
    a = [int(p["frustration"] >= 1 or p["satisfaction"] <= 2) for p, _ in turns]
    b = [int(q["frustration"] >= 1 or q["satisfaction"] <= 2) for _, q in turns]
    out["frustration_or_dissatisfaction"] = {"kappa": r4(kappa(a, b)), "weights": "none",
                                             "raw_agreement": r4(float(np.mean([x == y for x, y in zip(a, b)])))}
    out["outcome"] = {"kappa": r4(kappa([x for x, _ in outcomes], [y for _, y in outcomes])), "weights": "none",
                      "raw_agreement": r4(float(np.mean([x == y for x, y in outcomes])))}
    return out


def stage_priors(dumper, check):
    """dimensions.tsv with the fitted sections as committed and every set parameter
    from scripts/scorer_priors.tsv: run first, so the scorer the later stages compile
    has every parameter its code reads."""
    return emit(MODELS / "dimensions.tsv", render_tables([], keep=("turn", "conversation")), check)


def stage_manifest(dumper, check):
    metrics = {}
    for name in ("text", "ai_failure", "turns", "conversations"):
        path = METRICS / f"{name}.json"
        metrics[name] = json.loads(path.read_text()) if path.exists() else None
    manifest = {
        "written_by": "scripts/train-scorer (scripts/train_scorer.py); do not edit",
        "seed": SEED,
        "features": {
            "hashing": "XXH3-64 of each normalised word (apostrophes dropped, any word with a digit as 0), "
                       "seeded by role (human, AI); bigrams hash the two word hashes; a word within three "
                       "words after a negator in the same clause is a separate negated unigram",
            "buckets": BUCKETS,
            "value": "1/sqrt(n) per n-gram of a text with n n-grams",
            "code": ["core/src/features/grams.rs", "core/src/model/text.rs", "core/src/model/ai_turn.rs",
                     "core/src/score/inputs.rs"],
        },
        "data": {
            "goemotions": "Demszky et al. 2020, GoEmotions, CC BY 4.0 (../shared/data/goemotions): official train/dev/test",
            "clinc150": "Larson et al. 2019, CLINC150, CC BY 3.0 (../shared/data/clinc150): official train/val/test",
            "hwu64": "Liu et al. 2019, HWU64, CC BY 4.0 (../shared/data/hwu64): train minus the authors' fold 2 / fold 2 as dev / test",
            "dbdc3_en": "Higashinaka et al., DBDC3 English, MIT (../shared/data/dbdc3_en): AI-failure model on dev dialogues not annotated "
                        "(80% fit, 20% calibration by seeded hash); eval dialogues held out",
            "annotations": "annotations/dbdc3 (team, Apache-2.0, docs/annotation.md): dev dialogues split 75% train / 25% calibration "
                           "by seeded hash; eval dialogues are the test split",
        },
        "text_heads": {h: {"goemotions": sorted(GOEMOTIONS_HEADS.get(h, [])), "intents": sorted(INTENT_HEADS.get(h, []))}
                       for h in HEADS},
        "metrics": metrics,
        "annotation_agreement": agreement(),
    }
    return emit(MODELS / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n", check)


DOCS = ROOT / "docs" / "scoring.md"
DOCS_BEGIN = "<!-- tables: written by scripts/train-scorer from core/models/dimensions.tsv; do not edit -->"
DOCS_END = "<!-- end of tables -->"


def stage_docs(dumper, check):
    """The parameter tables of docs/scoring.md, from core/models/dimensions.tsv."""
    rows = defaultdict(list)
    for line in (MODELS / "dimensions.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            d, sc, n, v, src, why = line.split("\t")
            rows[(d, sc)].append((n, v, src, why))
    out = [DOCS_BEGIN, ""]
    for (d, sc) in sorted(rows):
        out.append(f"#### `{d}` · {sc}")
        out.append("")
        out.append("| parameter | value | source | why |")
        out.append("|---|---:|---|---|")
        for n, v, src, why in rows[(d, sc)]:
            out.append(f"| `{n}` | {v} | {src} | {why.replace('|', '/')} |")
        out.append("")
    out.append(DOCS_END)
    block = "\n".join(out)
    text = DOCS.read_text()
    if DOCS_BEGIN not in text or DOCS_END not in text:
        die(f"{DOCS} lacks the markers of the generated tables")
    a = text.index(DOCS_BEGIN)
    b = text.index(DOCS_END) + len(DOCS_END)
    return emit(DOCS, text[:a] + block + text[b:], check)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stage", choices=["priors", "text", "ai", "turns", "conversations", "manifest", "docs"])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--dumper", required=True)
    a = ap.parse_args()
    if not DATA.exists():
        die(f"{DATA} not found (the shared data folder sits beside the repository)")
    stages = {"priors": stage_priors, "text": stage_text, "ai": stage_ai, "turns": stage_turns, "conversations": stage_conversations,
              "manifest": stage_manifest, "docs": stage_docs}
    ok = stages[a.stage](a.dumper, a.check)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
