#!/usr/bin/python3
"""Writes tests/fixtures/editor_cases.json: the attention weights and output of
the edits tests/browser/element-editor.test.mjs makes through the editor of an
editable <attention-visualizer> (and so of the page, whose editor it is):

  1. the tutorial (我爱你) with a second head (W_Q, W_K, W_V typed below) and W_O;
  2. the same with the third token (你) marked as key padding;
  3. cross-attention on a second sentence "sun moon" with its vectors C, the
     padding off (the second sentence gives the keys; none of its tokens is padded).

Multi-head attention as in the tutorial's numpy script, per head h:

    weights_h = softmax((X W_Q,h)(K_in W_K,h)^T / sqrt(d_k))   (a padded key's score -inf)
    out_h = weights_h (K_in W_V,h),   output = [out_1 out_2] W_O

with K_in = X (self-attention) or C (cross-attention).

Run with Debian's numpy:   /usr/bin/python3 tests/make_editor_fixtures.py [--out DIR]
The output is deterministic; the file is committed.
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

FILE = "editor_cases.json"

# The tutorial's inputs (tests/REFERENCE.md).
X = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
HEAD1 = {"wq": [[0.5, 0.2], [0.1, 0.6]], "wk": [[0.4, 0.3], [0.2, 0.7]], "wv": [[0.8, 0.1], [0.3, 0.9]]}
# Typed into the editor.
HEAD2 = {"wq": [[1.0, 0.0], [0.0, 1.0]], "wk": [[0.5, -1.0], [1.0, 0.25]], "wv": [[2.0, 0.0], [0.0, -1.0]]}
WO = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0]]
CONTEXT_TOKENS = ["sun", "moon"]
C = [[1.0, 2.0], [-1.0, 0.5]]


def attention(x, kv, heads, wo, padding):
    outs, weights = [], []
    for head in heads:
        wq, wk, wv = (np.array(head[k]) for k in ("wq", "wk", "wv"))
        scores = (x @ wq) @ (kv @ wk).T / np.sqrt(wq.shape[1])
        scores[:, np.array(padding, dtype=bool)] = -np.inf
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        w = e / e.sum(axis=1, keepdims=True)
        weights.append(w.tolist())
        outs.append(w @ (kv @ wv))
    return {"weights": weights, "output": (np.hstack(outs) @ np.array(wo)).tolist()}


def main():
    cases = {
        "twoHeads": attention(X, X, [HEAD1, HEAD2], WO, [False, False, False]),
        "padded": attention(X, X, [HEAD1, HEAD2], WO, [False, False, True]),
        "cross": attention(X, np.array(C), [HEAD1, HEAD2], WO, [False, False]),
    }
    # the padded key gets no weight; the others share each row
    assert all(row[2] == 0.0 for head in cases["padded"]["weights"] for row in head)
    out = {"head2": HEAD2, "wo": WO, "contextTokens": CONTEXT_TOKENS, "c": C, "cases": cases}
    path = os.path.join(numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")), FILE)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
