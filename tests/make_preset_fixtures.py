#!/usr/bin/python3
"""Checks that the page's presets (web/src/state/presets.js) show the attention
pattern each one is built for, and writes tests/fixtures/preset_cases.json.

The inputs are built here from the presets' rationale (one-hot features, a
shift matrix), not copied from presets.js; tests/js/web-presets.test.mjs
checks that presets.js holds the same numbers and that the engine gives the
weights below. Attention as in the tutorial's numpy script:

    weights = softmax((X W_Q)(X W_K)^T / sqrt(d_k))   # per row

Asserted, per preset, on every row named in "rows": the keys listed there
share the row's largest weight (equal within 1e-12), and that weight is
at least MARGIN above any other key's. The tutorial (and its English twin)
is the opposite case: in every row the largest weight is less than
NEAR_UNIFORM times the smallest, which is when the page suggests a lower
temperature (steps.js, nearUniform).

Run with Debian's numpy:   /usr/bin/python3 tests/make_preset_fixtures.py [--out DIR]
The output is deterministic; the file is committed.
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

FILE = "preset_cases.json"
MARGIN = 0.2
NEAR_UNIFORM = 1.5  # the same ratio as NEAR_UNIFORM_RATIO in web/src/views/steps.js


def weights_of(x, wq, wk):
    q = x @ wq
    k = x @ wk
    scaled = (q @ k.T) / np.sqrt(wq.shape[1])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def one_hot(indices, size):
    m = np.zeros((len(indices), size))
    m[np.arange(len(indices)), indices] = 1.0
    return m


def tutorial(tokens):
    return {
        "tokens": tokens,
        "x": np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]),
        "wq": np.array([[0.5, 0.2], [0.1, 0.6]]),
        "wk": np.array([[0.4, 0.3], [0.2, 0.7]]),
        "wv": np.array([[0.8, 0.1], [0.3, 0.9]]),
        "rows": {},
    }


def animal():
    # X's features: noun, alive, pronoun ("it"), a feeling ("tired").
    tokens = "The animal didn’t cross the street because it was too tired".split(" ")
    features = {"animal": [1, 1, 0, 0], "street": [1, 0, 0, 0], "it": [0, 0, 1, 0], "tired": [0, 0, 0, 1]}
    x = np.array([features.get(t, [0, 0, 0, 0]) for t in tokens], dtype=float)
    # Query columns: wants a noun, wants something alive. "it" wants both,
    # "tired" wants something alive. Keys: is a noun, is alive, at strength 2.
    wq = np.array([[0, 0], [0, 0], [1, 1], [0, 1]], dtype=float)
    wk = np.array([[2, 0], [0, 2], [0, 0], [0, 0]], dtype=float)
    wv = np.array([[1, 0], [0, 1], [0, 0], [0, 0]], dtype=float)
    it = tokens.index("it")
    return {"tokens": tokens, "x": x, "wq": wq, "wk": wk, "wv": wv, "rows": {it: [tokens.index("animal")]}}


def previous():
    # X: position i, one-hot. The query of position i asks for position i - 1
    # (the first token, with none before it, for itself); keys are positions.
    tokens = "the cat sat on the mat".split(" ")
    n = len(tokens)
    x = one_hot(range(n), n)
    wq = 6 * one_hot([max(i - 1, 0) for i in range(n)], n)
    wk = np.eye(n)
    wv = np.eye(n)
    rows = {i: [max(i - 1, 0)] for i in range(n)}
    return {"tokens": tokens, "x": x, "wq": wq, "wk": wk, "wv": wv, "rows": rows}


def same_word():
    # X: which word of the vocabulary the token is, one-hot. Q and K both read
    # the word, so a query matches every copy of its own word.
    tokens = "the cat saw the dog and the cat ran".split(" ")
    vocabulary = list(dict.fromkeys(tokens))
    x = one_hot([vocabulary.index(t) for t in tokens], len(vocabulary))
    d = len(vocabulary)
    wq = 6 * np.eye(d)
    wk = np.eye(d)
    wv = np.eye(d)
    rows = {i: [j for j, u in enumerate(tokens) if u == t] for i, t in enumerate(tokens)}
    return {"tokens": tokens, "x": x, "wq": wq, "wk": wk, "wv": wv, "rows": rows}


def check_pattern(name, weights, rows):
    for r, largest in rows.items():
        row = weights[r]
        top = row[largest]
        assert np.ptp(top) <= 1e-12, f"{name} row {r}: {largest} do not share the largest weight: {row}"
        others = np.delete(row, largest)
        margin = top.min() - others.max()
        assert margin >= MARGIN, f"{name} row {r}: margin {margin} < {MARGIN}: {row}"
        print(f"{name} row {r} ({largest}): weight {top.min():.4f}, margin {margin:.4f}")


def check_near_uniform(name, weights):
    ratios = weights.max(axis=1) / weights.min(axis=1)
    assert (ratios < NEAR_UNIFORM).all(), f"{name}: largest / smallest weight {ratios}"
    print(f"{name}: largest / smallest weight per row {np.round(ratios, 4)}")


# JSON with one matrix row per line (floats as repr, round-trip exact).
def to_json(value, indent=""):
    if isinstance(value, dict):
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {to_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and value and isinstance(value[0], list) and not isinstance(value[0][0], list):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + json.dumps(row, ensure_ascii=False) for row in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def main():
    presets = {
        "tutorial": tutorial(["我", "爱", "你"]),
        "english": tutorial(["I", "love", "you"]),
        "animal": animal(),
        "previous": previous(),
        "same": same_word(),
    }
    out = {}
    for name, p in presets.items():
        w = weights_of(p["x"], p["wq"], p["wk"])
        if p["rows"]:
            check_pattern(name, w, p["rows"])
            assert (w.max(axis=1) / w.min(axis=1) >= NEAR_UNIFORM).any(), f"{name} is near-uniform"
        else:
            check_near_uniform(name, w)
        out[name] = {
            "tokens": p["tokens"],
            **{k: p[k].tolist() for k in ["x", "wq", "wk", "wv"]},
            "weights": w.tolist(),
            "rows": [[r, largest] for r, largest in p["rows"].items()],
        }
    path = os.path.join(numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")), FILE)
    with open(path, "w", encoding="utf-8") as f:
        f.write(to_json({"margin": MARGIN, "nearUniform": NEAR_UNIFORM, "presets": out}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
