#!/usr/bin/python3
"""Writes tests/fixtures/see_cases.json: states and everything numpy computes of them, for the
tests that check what the views print and draw (tests/js/web-see-work.test.mjs,
tests/js/web-see-export.test.mjs, tests/browser/see-*.test.mjs), never against the engine.

Run with Debian's numpy:   /usr/bin/python3 tests/make_see_fixtures.py [--out DIR]
The seed is fixed, so the output is reproducible; the file is committed.

Cases (each: tokens, keyTokens, x, c (cross only), heads [{wq, wk, wv}], wo, options, and the
results: heads [{q, k, v, scores, scaled, weights, output}], concat, output, masked, fullyMasked,
pe, xWithPe, contextPe, contextWithPe; -inf is written null):
    long    n = 14 tokens, d_model = d_k = 14, temperature 0.7: every sum has 14 terms, more than
            show-the-work writes out, and every operand of a row (column) is distinct at 2
            decimals, so each shown term can be told from every elided one
    masked  causal and key padding, key 0 padded: query 0 sees no key at all
    multi   two heads, W_O and positional encoding
    cross   cross-attention, 3 queries and 5 keys (of a second sentence), with key padding
    unscaled  no division by √d_k, temperature 2
    unscaled1 no division by √d_k, temperature 1
Every operand (X, C, W_*) is a multiple of 0.01, so its printed text is exact.
"""

import json
import os

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

OUT = numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))


def distinct(rng, shape):
    """A matrix of multiples of 0.01 in [-0.99, 0.99], distinct within each row and each column, no 0."""
    values = np.array([v for v in range(-99, 100) if v != 0]) / 100
    while True:
        m = rng.choice(values, size=shape, replace=True)
        rows_ok = all(len(set(row)) == len(row) for row in m)
        cols_ok = all(len(set(col)) == len(col) for col in m.T)
        if rows_ok and cols_ok:
            return m


def sinusoidal_pe(n, d):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(d):
            angle = pos / 10000 ** ((i - i % 2) / d)
            pe[pos, i] = np.sin(angle) if i % 2 == 0 else np.cos(angle)
    return pe


def listed(m):
    return [[None if v == -np.inf else float(v) for v in row] for row in np.atleast_2d(m)]


def case(tokens, x, heads, wo=None, context=None, causal=False, key_padding=None, scale=True, temperature=1.0, pe=False,
         alibi=False):
    context_tokens, c = context if context else (tokens, None)
    n_q, n_k = len(tokens), len(context_tokens)
    key_padding = key_padding or [False] * n_k
    xq = x + sinusoidal_pe(*x.shape) if pe else x
    src_kv = c if c is not None else x
    xkv = src_kv + sinusoidal_pe(*src_kv.shape) if pe else src_kv
    masked = np.triu(np.ones((n_q, n_k), dtype=bool), k=1) if causal else np.zeros((n_q, n_k), dtype=bool)
    masked |= np.array(key_padding)[np.newaxis, :]
    results = []
    for index, h in enumerate(heads):
        q, k, v = xq @ h["wq"], xkv @ h["wk"], xkv @ h["wv"]
        scores = q @ k.T
        # ALiBi (Press et al. 2022): head h of H adds -m |i - j|, m = 2^(-8 (h+1) / H), before T
        m = 2.0 ** (-8.0 * (index + 1) / len(heads))
        bias = -m * np.abs(np.arange(n_q)[:, None] - np.arange(n_k)[None, :])
        scaled = scores / (np.sqrt(q.shape[1]) if scale else 1.0)
        scaled = (scaled + bias if alibi else scaled) / temperature
        scaled = np.where(masked, -np.inf, scaled)
        weights = np.zeros_like(scores)
        for i in range(n_q):
            keep = ~masked[i]
            if keep.any():
                e = np.exp(scaled[i, keep] - scaled[i, keep].max())
                weights[i, keep] = e / e.sum()
        results.append(dict(q=q, k=k, v=v, scores=scores, scaled=scaled, weights=weights, output=weights @ v,
                            **({"bias": bias} if alibi else {})))
    concat = np.concatenate([r["output"] for r in results], axis=1)
    output = concat @ wo if wo is not None else concat
    out = {
        "tokens": tokens, "keyTokens": context_tokens, "x": listed(x),
        "heads": [{key: listed(h[key]) for key in ["wq", "wk", "wv"]} for h in heads],
        "options": {"scaleBySqrtDk": scale, "temperature": temperature, "causal": causal, "keyPadding": key_padding, "positionalEncoding": pe,
                    "alibi": alibi, "cross": c is not None, "usesWo": wo is not None, "heads": len(heads)},
        "result": {
            "heads": [{key: listed(val) for key, val in r.items()} for r in results],
            "concat": listed(concat), "output": listed(output), "masked": masked.tolist(),
            "fullyMasked": [not (~row).any() for row in masked],
        },
    }
    if wo is not None:
        out["wo"] = listed(wo)
    if c is not None:
        out["c"] = listed(c)
    if pe:
        out["result"].update(pe=listed(sinusoidal_pe(*x.shape)), xWithPe=listed(xq))
        if c is not None:
            out["result"].update(contextPe=listed(sinusoidal_pe(*c.shape)), contextWithPe=listed(xkv))
    return out


def head(rng, d_in, d_k, d_v):
    return {"wq": distinct(rng, (d_in, d_k)), "wk": distinct(rng, (d_in, d_k)), "wv": distinct(rng, (d_in, d_v))}


def main():
    rng = np.random.default_rng(20261202)
    cases = {}
    n = 14
    cases["long"] = case([f"t{i}" for i in range(n)], distinct(rng, (n, n)), [head(rng, n, n, n)], temperature=0.7)
    cases["masked"] = case(["我", "爱", "你", "们", "好"], distinct(rng, (5, 3)), [head(rng, 3, 2, 3)],
                           causal=True, key_padding=[True, False, False, True, False])
    cases["multi"] = case(["the", "cat", "sat"], distinct(rng, (3, 4)), [head(rng, 4, 2, 2), head(rng, 4, 2, 2)],
                          wo=distinct(rng, (4, 4)), pe=True)
    cases["cross"] = case(["我", "爱", "你"], distinct(rng, (3, 2)), [head(rng, 2, 2, 2)],
                          context=(["I", "love", "you", "so", "much"], distinct(rng, (5, 2))), key_padding=[False, False, False, True, False])
    cases["unscaled"] = case(["a", "b", "c"], distinct(rng, (3, 2)), [head(rng, 2, 2, 2)], scale=False, temperature=2.0)
    cases["unscaled1"] = case(["a", "b", "c"], distinct(rng, (3, 2)), [head(rng, 2, 2, 2)], scale=False)
    cases["alibi"] = case(["a", "b", "c", "d", "e"], distinct(rng, (5, 3)), [head(rng, 3, 2, 2) for _ in range(3)],
                          wo=distinct(rng, (6, 3)), causal=True, temperature=0.5, alibi=True)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "see_cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(cases, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
