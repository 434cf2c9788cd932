#!/usr/bin/python3
"""Writes tests/fixtures/see_backward_cases.json: states for "How it learns" and the backward pass
numpy computes of them, for tests/browser/see-backward.test.mjs, which compares every gradient
heatmap and every number of show-the-work of the backward pass with these, never with the engine.

Run with Debian's numpy:   /usr/bin/python3 tests/make_see_backward_fixtures.py [--out DIR]
The seed is fixed, so the output is reproducible; the file is committed.

The loss is the learn step's: the cross-entropy of the head's weights against the goal's target,
over the n_q query rows, L = -(1/n_q) sum_ij target_ij log weights_ij (a cell with target 0, or
masked, adds nothing). Its gradients, by the chain rule written out (not autograd), and checked
here against central differences of L:
    dWeights = -target / (weights n_q)              (0 where target is 0 or the cell masked)
    dScaled_ij = w_ij (dWeights_ij - sum_k w_ik dWeights_ik)
    dScores = dScaled / divisor                     (divisor = sqrt(d_k) T, or T unscaled)
    dQ = dScores @ K;   dK = dScores.T @ Q;   dW_Q = X'.T @ dQ;   dW_K = C'.T @ dK
    (X' = X (+ PE); C' = C (+ PE_C) in cross-attention, else X')

Cases (each: the state's tokens, keyTokens, x, c, head {wq, wk, wv}, options, target; forward
xq, xk, q, k, weights, masked; loss, divisor and every gradient):
    masked   causal and key padding, key 0 padded: query 0 sees no key, its row has no target
    cross    cross-attention, 3 queries and 4 keys of a second sentence, key 2 padded
    pe       positional encoding, temperature 0.5, a row with no target
    crosspe  cross-attention with positional encoding on both sentences, unscaled, temperature 2
Every operand is a multiple of 0.01, so its printed text is exact.
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

from make_see_fixtures import case, distinct, head, listed  # noqa: E402

OUT = numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))


def forward(x, h, c, masked, scale, temperature, pe, sinusoidal):
    xq = x + sinusoidal(*x.shape) if pe else x
    src = c if c is not None else x
    xk = src + sinusoidal(*src.shape) if pe else src
    q, k = xq @ h["wq"], xk @ h["wk"]
    divisor = (np.sqrt(q.shape[1]) if scale else 1.0) * temperature
    scaled = np.where(masked, -np.inf, (q @ k.T) / divisor)
    weights = np.zeros_like(scaled)
    for i in range(len(scaled)):
        keep = ~masked[i]
        if keep.any():
            e = np.exp(scaled[i, keep] - scaled[i, keep].max())
            weights[i, keep] = e / e.sum()
    return xq, xk, q, k, divisor, weights


def loss_of(weights, target):
    n_q = len(weights)
    used = target > 0
    return -np.sum(target[used] * np.log(weights[used])) / n_q


def backward_case(tokens, x, h, target, context=None, causal=False, key_padding=None, scale=True, temperature=1.0, pe=False):
    from make_see_fixtures import sinusoidal_pe
    out = case(tokens, x, [h], context=context, causal=causal, key_padding=key_padding, scale=scale, temperature=temperature, pe=pe)
    c = context[1] if context else None
    masked = np.array(out["result"]["masked"])
    target = np.array(target, dtype=float)
    assert not (target[masked] > 0).any(), "a target on a masked cell"
    xq, xk, q, k, divisor, w = forward(x, h, c, masked, scale, temperature, pe, sinusoidal_pe)
    # the forward pass is make_see_fixtures.case's
    assert np.array_equal(w, np.array(out["result"]["heads"][0]["weights"]))
    n_q = len(w)
    d_weights = np.zeros_like(w)
    used = (target > 0) & ~masked
    d_weights[used] = -target[used] / (w[used] * n_q)
    d_scaled = w * (d_weights - np.sum(w * d_weights, axis=1, keepdims=True))
    d_scores = d_scaled / divisor
    d_q = d_scores @ k
    d_k = d_scores.T @ q
    d_wq = xq.T @ d_q
    d_wk = xk.T @ d_k
    loss = loss_of(w, target)
    # central differences of L in W_Q and W_K: the chain rule above is right
    for name, grad in (("wq", d_wq), ("wk", d_wk)):
        for index in np.ndindex(grad.shape):
            step = 1e-6
            moved = []
            for sign in (1, -1):
                hh = {key: val.copy() for key, val in h.items()}
                hh[name][index] += sign * step
                moved.append(loss_of(forward(x, hh, c, masked, scale, temperature, pe, sinusoidal_pe)[5], target))
            numeric = (moved[0] - moved[1]) / (2 * step)
            assert abs(numeric - grad[index]) < 1e-6 * max(1, abs(grad[index])), (name, index, numeric, grad[index])
    return {
        "tokens": out["tokens"], "keyTokens": out["keyTokens"], "x": out["x"], **({"c": out["c"]} if c is not None else {}),
        "head": out["heads"][0], "options": out["options"], "target": listed(target),
        "xq": listed(xq), "xk": listed(xk), "q": listed(q), "k": listed(k), "weights": listed(w), "masked": masked.tolist(),
        "loss": float(loss), "divisor": float(divisor),
        "dWeights": listed(d_weights), "dScaled": listed(d_scaled), "dScores": listed(d_scores),
        "dQ": listed(d_q), "dK": listed(d_k), "dWq": listed(d_wq), "dWk": listed(d_wk),
    }


def main():
    rng = np.random.default_rng(20261203)
    cases = {}
    cases["masked"] = backward_case(["我", "爱", "你", "们"], distinct(rng, (4, 3)), head(rng, 3, 2, 2),
                                    [[0, 0, 0, 0], [0, 1, 0, 0], [0, 0.25, 0.75, 0], [0, 0.5, 0, 0.5]],
                                    causal=True, key_padding=[True, False, False, False])
    cases["cross"] = backward_case(["我", "爱", "你"], distinct(rng, (3, 2)), head(rng, 2, 2, 2),
                                   [[1, 0, 0, 0], [0, 0.5, 0, 0.5], [0.25, 0.25, 0, 0.5]],
                                   context=(["I", "love", "you", "so"], distinct(rng, (4, 2))), key_padding=[False, False, True, False])
    cases["pe"] = backward_case(["the", "cat", "sat", "on"], distinct(rng, (4, 4)), head(rng, 4, 3, 3),
                                [[1, 0, 0, 0], [0.75, 0.25, 0, 0], [0, 0, 0, 0], [0, 0, 0.5, 0.5]], temperature=0.5, pe=True)
    cases["crosspe"] = backward_case(["a", "b", "c"], distinct(rng, (3, 3)), head(rng, 3, 2, 2),
                                     [[0, 1, 0], [0.5, 0, 0.5], [0, 0.25, 0.75]],
                                     context=(["x", "y", "z"], distinct(rng, (3, 3))), scale=False, temperature=2.0, pe=True)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "see_backward_cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(cases, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
