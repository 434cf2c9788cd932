#!/usr/bin/python3
"""The worked example of tests/REFERENCE.md: the tutorial's inputs through its numpy steps in
float64, each step printed on one line with repr (round-trip exact):

    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores  = Q @ K.T
    scaled  = scores / np.sqrt(d_k)
    weights = softmax(scaled)   # per row, after subtracting the row max
    output  = weights @ V

Run with Debian's numpy:   /usr/bin/python3 tests/reference.py
The steps and numpy's pinned code paths are make_fixtures.py's, so these are the digits of
its case tutorial_woaini. tests/js/fixtures-current.test.mjs checks that REFERENCE.md and
tests/js/fixtures.mjs hold exactly what this prints.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tests/ from the import below
from make_fixtures import TUTORIAL, attention  # noqa: E402  (importing it pins numpy's code paths)

STEPS = [("Q", "q"), ("K", "k"), ("V", "v"), ("Scores", "scores"), ("Scaled", "scaled"),
         ("Weights", "weights"), ("Output", "output")]

result = attention(*TUTORIAL)
for label, key in STEPS:
    print(f"{label:<8}{[[float(v) for v in row] for row in result[key]]}")
