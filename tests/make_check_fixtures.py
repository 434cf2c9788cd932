#!/usr/bin/python3
"""Writes tests/fixtures/check_cases.json: for cells of a few states, the true value and the
value each mistake a learner makes gives, computed here with numpy (not with the engine), for
tests/js/web-check.test.mjs, which checks that engine/check.js names each mistake from its digits.

Run with Debian's numpy:   /usr/bin/python3 tests/make_check_fixtures.py [--out DIR]
The inputs are fixed, so the output is reproducible; the file is committed.

Cases: the tutorial (its printed digits are the 'misprint' values), a causal 4-token case with
temperature 0.8, and two heads with W_O (cells of head 1 and of the combined output).
Mistakes (each a wrong computation of the same cell):
    no-scaling      the division by sqrt(d_k) left out
    scaled-by-dk    divided by d_k instead of sqrt(d_k)
    column-softmax  the softmax down a column of Scaled, not along the row
    transposed      S[j][i] for S[i][j]; for the weights, the softmax of Scaled transposed
    wrong-cell      another cell of the same matrix
    term-slip       one term a_t * b_t of the cell's sum left out, given the wrong sign, or
                    added (a_t + b_t); for a weight, one exp of the denominator left out
    rounded-early   the step before rounded to 2 or 4 decimals (Q and K; Scores; Scaled;
                    Weights and V; Concat and W_O)
    misprint        what the tutorial prints (tutorial only)
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

OUT = numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))

PRINTED = {
    "scaled": [[0.18384776, 0.1767767, 0.16970563], [0.16970563, 0.20506082, 0.24041631], [0.15556349, 0.23334524, 0.31112698]],
    "weights": [[0.33614837, 0.33310516, 0.33074647], [0.32184448, 0.33343385, 0.34472167], [0.30815179, 0.33241613, 0.35943208]],
    "output": [[0.55158713, 0.49825904], [0.5443457, 0.50918687], [0.53701315, 0.52096187]],
}


def softmax_rows(s):
    out = np.zeros_like(s)
    for i, row in enumerate(s):
        seen = np.isfinite(row)
        if seen.any():
            e = np.where(seen, np.exp(np.where(seen, row, 0) - row[seen].max()), 0.0)
            out[i] = e / e.sum()
    return out


def head_steps(x, h, causal, scale, temperature):
    q, k, v = x @ np.array(h["wq"]), x @ np.array(h["wk"]), x @ np.array(h["wv"])
    scores = q @ k.T
    divisor = (np.sqrt(q.shape[1]) if scale else 1.0) * temperature
    scaled = scores / divisor
    if causal:
        scaled = np.where(np.tril(np.ones_like(scaled)) > 0, scaled, -np.inf)
    weights = softmax_rows(scaled)
    return {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "weights": weights, "output": weights @ v}


def forward(state, scale=True, temperature=None):
    t = state.get("temperature", 1.0) if temperature is None else temperature
    x = np.array(state["x"])
    heads = state.get("heads") or [{"wq": state["wq"], "wk": state["wk"], "wv": state["wv"]}]
    steps = [head_steps(x, h, state.get("causal", False), scale, t) for h in heads]
    concat = np.hstack([s["output"] for s in steps])
    output = concat @ np.array(state["wo"]) if "wo" in state else concat
    return steps, concat, output


def mistakes(state, matrix, i, j, head, tutorial):
    """{code: [values]} of every mistake for the cell (head None: the combined output)."""
    steps, concat, output = forward(state)
    combined = head is None and matrix == "output" and "heads" in state
    own = steps[head or 0]
    m = output if combined else own[matrix]
    x = np.array(state["x"])
    heads = state.get("heads") or [{"wq": state["wq"], "wk": state["wk"], "wv": state["wv"]}]
    t = state.get("temperature", 1.0)
    d_k = own["q"].shape[1]
    found = {}

    def add(code, value):
        if np.isfinite(value):
            found.setdefault(code, []).append(float(value))

    def cell_of(result):
        r_steps, _, r_output = result
        return r_output[i, j] if combined else r_steps[head or 0][matrix][i, j]

    if matrix in ("scaled", "weights", "output"):
        if tutorial:
            add("misprint", PRINTED[matrix][i][j])
        add("no-scaling", cell_of(forward(state, scale=False)))
        add("scaled-by-dk", cell_of(forward(state, temperature=t * np.sqrt(d_k))))
    if not combined and matrix in ("scores", "scaled") and i != j:
        add("transposed", m[j, i])
    if not combined and matrix in ("weights", "output"):
        flipped = softmax_rows(own["scaled"].T)
        add("transposed", flipped[i, j] if matrix == "weights" else flipped[i] @ own["v"][:, j])
        by_column = softmax_rows(own["scaled"].T).T
        add("column-softmax", by_column[i, j] if matrix == "weights" else by_column[i] @ own["v"][:, j])
    for a in range(m.shape[0]):
        for b in range(m.shape[1]):
            if (a, b) != (i, j):
                add("wrong-cell", m[a, b])
    hw = heads[head or 0]
    factors = {
        "q": lambda: (x[i], np.array(hw["wq"])[:, j]),
        "k": lambda: (x[i], np.array(hw["wk"])[:, j]),
        "v": lambda: (x[i], np.array(hw["wv"])[:, j]),
        "scores": lambda: (own["q"][i], own["k"][j]),
        "output": (lambda: (concat[i], np.array(state["wo"])[:, j])) if combined else (lambda: (own["weights"][i], own["v"][:, j])),
    }.get(matrix)
    if factors is not None:
        a, b = factors()
        for term_a, term_b in zip(a, b):
            add("term-slip", m[i, j] - term_a * term_b)
            add("term-slip", m[i, j] - 2 * term_a * term_b)
            add("term-slip", m[i, j] - term_a * term_b + term_a + term_b)
    if matrix == "weights" and not combined:
        row = own["scaled"][i]
        seen = np.isfinite(row)
        e = np.where(seen, np.exp(np.where(seen, row, 0) - row[seen].max()), 0.0)
        for k in range(len(row)):
            if k != j and e[k] > 0:
                add("term-slip", e[j] / (e.sum() - e[k]))
    for places in (2, 4):
        r = lambda v: np.round(v, places)  # noqa: E731
        divisor = np.sqrt(d_k) * t
        early = {
            "scores": lambda: r(own["q"][i]) @ r(own["k"][j]),
            "scaled": lambda: r(own["scores"][i, j]) / divisor if np.isfinite(own["scaled"][i, j]) else np.nan,
            "weights": lambda: softmax_rows(np.where(np.isfinite(own["scaled"][i:i + 1]), r(np.nan_to_num(own["scaled"][i:i + 1], neginf=0)), -np.inf))[0, j],
            "output": (lambda: r(concat[i]) @ r(np.array(state["wo"])[:, j])) if combined else (lambda: r(own["weights"][i]) @ r(own["v"][:, j])),
        }.get(matrix)
        if early is not None:
            add("rounded-early", early())
    return float(m[i, j]), found


TUTORIAL = {"x": [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]], "wq": [[0.5, 0.2], [0.1, 0.6]], "wk": [[0.4, 0.3], [0.2, 0.7]], "wv": [[0.8, 0.1], [0.3, 0.9]]}
CAUSAL = {
    "x": [[0.9, -0.3, 0.4], [0.2, 0.8, -0.5], [-0.6, 0.1, 0.7], [0.3, 0.5, 0.6]],
    "heads": [{"wq": [[0.7, -0.2], [0.1, 0.9], [-0.4, 0.3]], "wk": [[0.5, 0.6], [-0.8, 0.2], [0.3, -0.7]], "wv": [[0.2, 0.9], [0.6, -0.3], [-0.5, 0.4]]}],
    "causal": True,
    "temperature": 0.8,
}
MULTI = {
    "x": [[0.5, -0.9, 0.3], [0.8, 0.2, -0.6], [-0.1, 0.7, 0.9]],
    "heads": [
        {"wq": [[0.3, 0.8], [-0.5, 0.2], [0.9, -0.1]], "wk": [[0.6, -0.4], [0.2, 0.7], [-0.3, 0.5]], "wv": [[0.4, 0.1], [-0.7, 0.6], [0.2, 0.9]]},
        {"wq": [[-0.6, 0.4], [0.7, 0.3], [0.1, -0.8]], "wk": [[0.9, 0.2], [-0.1, -0.5], [0.4, 0.6]], "wv": [[0.5, -0.3], [0.8, 0.2], [-0.4, 0.7]]},
    ],
    "wo": [[0.6, -0.2, 0.3], [0.1, 0.7, -0.5], [-0.4, 0.2, 0.8], [0.3, -0.6, 0.1]],
}
CELLS = {
    "tutorial": (TUTORIAL, [("q", 1, 0, None), ("scores", 0, 1, None), ("scores", 1, 2, None), ("scaled", 1, 1, None), ("scaled", 2, 0, None),
                            ("weights", 0, 0, None), ("weights", 1, 2, None), ("output", 0, 0, None), ("output", 2, 1, None)]),
    "causal": (CAUSAL, [("k", 2, 1, 0), ("scores", 3, 1, 0), ("scaled", 2, 1, 0), ("weights", 3, 2, 0), ("weights", 2, 0, 0), ("output", 3, 0, 0)]),
    "multi": (MULTI, [("scores", 2, 0, 1), ("weights", 0, 2, 1), ("output", 1, 1, 1), ("output", 2, 2, None)]),
}


def main():
    cases = []
    for name, (state, cells) in CELLS.items():
        for matrix, i, j, head in cells:
            expected, found = mistakes(state, matrix, i, j, head, name == "tutorial")
            cell = {"matrix": matrix, "row": i, "column": j}
            if head is not None:
                cell["head"] = head
            cases.append({"case": name, "input": state, "cell": cell, "expected": expected, "mistakes": found})
    path = os.path.join(OUT, "check_cases.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cells")


if __name__ == "__main__":
    main()
