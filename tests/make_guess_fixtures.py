#!/usr/bin/python3
"""Writes tests/fixtures/guess_cases.json: the answers to the questions of "Guess first"
(web/src/views/guess.js) for the tutorial's example, computed here with numpy (not with the
engine), for tests/browser/exercise.test.mjs, which answers them on the page and reads the verdicts.

Run with Debian's numpy:   /usr/bin/python3 tests/make_guess_fixtures.py [--out DIR]
The inputs are fixed, so the output is reproducible; the file is committed.

The questions (row questions of row 0, the tokens' first):
    project  whose query is longest: ||q_i||, and the index of the largest
    scores   which key of row 0 has the largest score
    scale    what the scale step does to row 0: 'shrinks' or 'grows' (its spread, largest -
             smallest, while the same key stays the largest), 'same', or 'other' (another key
             becomes the largest)
    softmax  which key row 0 attends to most (the largest weight)
    output   whose output is farthest from its own value vector: ||output_i - v_i||
Cases: the tutorial as printed (÷√d_k, T = 1), at temperature 0.5 (the spread grows), and
without the division by √d_k (nothing changes).
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

from make_fixtures import TUTORIAL  # noqa: E402

OUT = numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
TOKENS = ["我", "爱", "你"]


def answers(scale, temperature):
    x, wq, wk, wv = TUTORIAL
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T
    scaled = scores / ((np.sqrt(q.shape[1]) if scale else 1.0) * temperature)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    output = weights @ v
    norms = np.linalg.norm(q, axis=1)
    moved = np.linalg.norm(output - v, axis=1)
    s0, s1 = np.ptp(scores[0]), np.ptp(scaled[0])
    top0, top1 = int(np.argmax(scores[0])), int(np.argmax(scaled[0]))
    truth = "other" if top0 != top1 else "same" if abs(s1 - s0) <= 1e-12 else "shrinks" if s1 < s0 else "grows"
    return {
        "project": {"values": norms.tolist(), "best": int(np.argmax(norms))},
        "scores": {"values": scores[0].tolist(), "best": top0},
        "scale": {"truth": truth, "top0": float(scores[0][top0]), "spread0": float(s0), "best0": top0,
                  "top1": float(scaled[0][top1]), "spread1": float(s1), "best1": top1},
        "softmax": {"values": weights[0].tolist(), "best": int(np.argmax(weights[0]))},
        "output": {"values": moved.tolist(), "best": int(np.argmax(moved))},
    }


cases = [
    {"case": "tutorial", "state": {}, "answers": answers(True, 1.0)},
    {"case": "temperature 0.5", "state": {"temperature": 0.5}, "answers": answers(True, 0.5)},
    {"case": "no scaling", "state": {"scaleBySqrtDk": False}, "answers": answers(False, 1.0)},
]
with open(os.path.join(OUT, "guess_cases.json"), "w", encoding="utf-8") as f:
    json.dump({"tokens": TOKENS, "cases": cases}, f, ensure_ascii=False, indent=1)
    f.write("\n")
