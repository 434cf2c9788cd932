#!/usr/bin/python3
"""Writes tests/fixtures/attention_cases.txt (single-head self-attention) and
tests/fixtures/variant_cases.txt (multi-head, masks, temperature, no scaling,
positional encoding, cross-attention): attention cases computed by numpy.

The engine's tests (Catch2, natively and in wasm, and the JS API tests) compare
against these values, so they are computed here, independently of the engine,
exactly as the tutorial's numpy script does it:

    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    scores  = Q @ K.T
    scaled  = scores / np.sqrt(d_k)
    weights = softmax(scaled)   # per row, after subtracting the row max
    output  = weights @ V

Run with Debian's numpy:   /usr/bin/python3 tests/make_fixtures.py [--out DIR]
The seed is fixed and numpy's code paths are pinned (below), so the output is the same
byte for byte on any x86-64 machine; the files are committed, and npm test regenerates
them into a temporary folder and compares (tests/js/fixtures-current.test.mjs).

File format (plain text, so C++ and JS read it without a JSON library):
    case <name>
    <matrix name> <rows> <cols>
    <one line per row: values in repr(), i.e. round-trip exact>
    ... (x, wq, wk, wv, q, k, v, scores, scaled, weights, output)
    end

variant_cases.txt adds, per case, before the matrices:
    option <name> <value>     causal 0|1, scale 0|1 (divide by √d_k), temperature <repr>,
                              pe 0|1 (add positional encoding), heads <h>, and for the
                              ALiBi cases only alibi 1 (absent: 0)
and names per-head matrices h<i>.<name> (h0.wq, h0.scores, ...). Optional inputs: context
(cross-attention), keyPadding (1 × n_k, 1 = padding), wo. Results: h<i>.{q,k,v,scores,
scaled,weights,output}, concat, output, masked (n_q × n_k, 1 = masked), fullyMasked (1 × n_q),
and with pe: pe, xWithPe (and contextPe, contextWithPe with a context); with alibi,
h<i>.bias. Masked scaled scores are written as -inf.
"""

import argparse
import os
import sys

import numpy_pinned  # noqa: F401  (pins numpy's code paths before it is imported)

import numpy as np  # noqa: E402  (after pinning its code paths)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
ATTENTION_FILE = "attention_cases.txt"
VARIANTS_FILE = "variant_cases.txt"
INPUTS = ["x", "wq", "wk", "wv"]
# The tutorial's worked example (tests/REFERENCE.md): 我爱你 as 2-d vectors, W_Q, W_K, W_V.
TUTORIAL = [np.array(m) for m in (
    [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
    [[0.5, 0.2], [0.1, 0.6]],
    [[0.4, 0.3], [0.2, 0.7]],
    [[0.8, 0.1], [0.3, 0.9]])]
RESULTS = ["q", "k", "v", "scores", "scaled", "weights", "output"]


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T
    scaled = scores / np.sqrt(wq.shape[1])
    weights = softmax(scaled)
    return dict(q=q, k=k, v=v, scores=scores, scaled=scaled, weights=weights, output=weights @ v)


def random_case(rng, n, d_model, d_k, d_v, scale):
    """Normal values times `scale`: full-precision doubles of every magnitude."""
    return [rng.standard_normal(shape) * scale
            for shape in [(n, d_model), (d_model, d_k), (d_model, d_k), (d_model, d_v)]]


def huge_case(rng, n, d_model, d_k, d_v):
    """Large values on a grid of quarters, so every product and sum is exact in float64
    (no summation-order rounding), yet scaled scores reach thousands: exp() of them
    overflows unless the row max is subtracted first."""
    def grid(shape, lo, hi):
        return rng.integers(lo * 4, hi * 4, size=shape).astype(np.float64) / 4
    return [grid((n, d_model), -40, 40), grid((d_model, d_k), -4, 4),
            grid((d_model, d_k), -4, 4), grid((d_model, d_v), -4, 4)]


def cases():
    rng = np.random.default_rng(20261130)
    yield "tutorial_woaini", TUTORIAL, False
    yield "one_token_one_dim", random_case(rng, 1, 1, 1, 1, 1.0), False
    yield "one_token", random_case(rng, 1, 4, 3, 2, 1.0), False
    yield "one_dim_many_tokens", random_case(rng, 12, 1, 1, 1, 1.0), False
    # d_k and d_v differ from d_model and from each other
    shapes = [(2, 3, 5, 1), (3, 2, 1, 4), (5, 8, 4, 6), (7, 16, 8, 3), (17, 24, 64, 5),
              (32, 64, 64, 64), (48, 12, 7, 33), (9, 64, 1, 2)]
    for n, d_model, d_k, d_v in shapes:
        for scale in (1e-2, 1.0, 10.0):
            name = f"random_n{n}_dm{d_model}_dk{d_k}_dv{d_v}_scale{scale:g}"
            yield name, random_case(rng, n, d_model, d_k, d_v, scale), False
    for n, d_model, d_k, d_v in [(4, 3, 2, 2), (16, 8, 8, 4), (40, 32, 16, 8)]:
        yield f"huge_n{n}_dm{d_model}_dk{d_k}_dv{d_v}", huge_case(rng, n, d_model, d_k, d_v), True


# ---- variants: multi-head, masks, temperature, scaling, positional encoding, cross ----
# Written the way PyTorch's scaled_dot_product_attention and nn.MultiheadAttention compute
# them, in numpy, with our layout x @ W (PyTorch stores W transposed and computes x @ W.T).

def positional_encoding(n, d_model):
    """"Attention Is All You Need": PE[pos, 2i] = sin(pos / 10000^(2i/d_model)),
    PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))."""
    pe = np.zeros((n, d_model))
    pos = np.arange(n, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2)
    angle = pos / 10000.0 ** (two_i / d_model)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def masked_softmax(scaled):
    """Softmax per row where -inf entries get exactly 0. PyTorch gives NaN for a row that is
    -inf everywhere; we define it as all zeros."""
    m = np.max(scaled, axis=-1, keepdims=True)
    fully = np.isneginf(m)
    e = np.exp(scaled - np.where(fully, 0.0, m))
    s = np.sum(e, axis=-1, keepdims=True)
    return np.where(fully, 0.0, e / np.where(fully, 1.0, s))


def alibi_bias(h, n_heads, n_q, n_k):
    """ALiBi (Press et al. 2022, "Train Short, Test Long"): head h of H adds -m_h * |i - j| to
    its scores, m_h = 2^(-8 (h+1) / H) (the paper's sequence for H a power of 2; used as is for
    other H); i is the query's position, j the key's, each sequence numbered from 0."""
    slope = 2.0 ** (-8.0 * (h + 1) / n_heads)
    i = np.arange(n_q, dtype=np.float64)[:, None]
    j = np.arange(n_k, dtype=np.float64)[None, :]
    return -slope * np.abs(i - j)


def multi_head(x, heads, context=None, wo=None, causal=False, key_padding=None,
               scale=True, temperature=1.0, pe=False, alibi=False):
    res = {}
    if pe:
        res["pe"] = positional_encoding(*x.shape)
        x = res["xWithPe"] = x + res["pe"]
        if context is not None:
            res["contextPe"] = positional_encoding(*context.shape)
            context = res["contextWithPe"] = context + res["contextPe"]
    source = x if context is None else context
    n_q, n_k = x.shape[0], source.shape[0]
    # SDPA's boolean attn_mask: True = takes part; is_causal is tril(ones(L, S)), top-left
    allowed = np.ones((n_q, n_k), dtype=bool)
    if causal:
        allowed &= np.tril(np.ones((n_q, n_k), dtype=bool))
    if key_padding is not None:  # nn.MultiheadAttention's key_padding_mask: True = ignore
        allowed &= ~np.asarray(key_padding, dtype=bool)[None, :]
    res["masked"] = (~allowed).astype(np.float64)
    res["fullyMasked"] = (~allowed.any(axis=1)).astype(np.float64)[None, :]
    outs = []
    for h, (wq, wk, wv) in enumerate(heads):
        q, k, v = x @ wq, source @ wk, source @ wv
        scores = q @ k.T
        scaled = scores / np.sqrt(wq.shape[1]) if scale else scores.copy()
        if alibi:  # (scores / sqrt(d_k) + bias) / temperature
            res[f"h{h}.bias"] = alibi_bias(h, len(heads), n_q, n_k)
            scaled = scaled + res[f"h{h}.bias"]
        scaled = scaled / temperature
        scaled[~allowed] = -np.inf
        weights = masked_softmax(scaled)
        out = weights @ v
        for key, m in zip(RESULTS, (q, k, v, scores, scaled, weights, out)):
            res[f"h{h}.{key}"] = m
        outs.append(out)
    res["concat"] = np.concatenate(outs, axis=1)
    res["output"] = res["concat"] @ wo if wo is not None else res["concat"]
    return res


def variant_cases():
    """(name, inputs dict, options dict). Inputs: x, heads [(wq, wk, wv)], context, wo,
    key_padding; options: causal, scale, temperature, pe."""
    rng = np.random.default_rng(20261201)
    normal = lambda *shape, s=1.0: rng.standard_normal(shape) * s

    def heads(h, d_model, d_k, d_v, d_ctx=None, s=1.0):
        d_ctx = d_model if d_ctx is None else d_ctx
        return [(normal(d_model, d_k, s=s), normal(d_ctx, d_k, s=s), normal(d_ctx, d_v, s=s))
                for _ in range(h)]

    tut = dict(x=TUTORIAL[0], heads=[tuple(TUTORIAL[1:])])
    yield "tutorial_causal", tut, dict(causal=True)
    yield "tutorial_padding_last", dict(tut, key_padding=[0, 0, 1]), {}
    yield "tutorial_causal_padding_first", dict(tut, key_padding=[1, 0, 0]), dict(causal=True)
    yield "tutorial_all_padding", dict(tut, key_padding=[1, 1, 1]), {}
    for temp in (0.01, 0.5, 2.0, 10.0):
        yield f"tutorial_temperature{temp:g}", tut, dict(temperature=temp)
    yield "tutorial_no_scaling", tut, dict(scale=False)
    yield "tutorial_no_scaling_temperature3", tut, dict(scale=False, temperature=3.0)
    yield "tutorial_pe", tut, dict(pe=True)
    yield "tutorial_pe_causal", tut, dict(pe=True, causal=True)

    # many heads, PyTorch-like d_k = d_v = d_model / h, with and without W_O
    for h, n, d_model in [(2, 5, 8), (3, 4, 6), (4, 7, 8), (8, 6, 16), (16, 3, 16)]:
        d = d_model // h
        yield (f"heads{h}_n{n}_dm{d_model}_wo",
               dict(x=normal(n, d_model), heads=heads(h, d_model, d, d),
                    wo=normal(h * d, d_model)), {})
        yield (f"heads{h}_n{n}_dm{d_model}_causal_nowo",
               dict(x=normal(n, d_model), heads=heads(h, d_model, d, d)), dict(causal=True))
    # one head with W_O, and heads whose d_k, d_v differ from d_model / h and each other
    yield "heads1_wo", dict(x=normal(4, 3), heads=heads(1, 3, 2, 5), wo=normal(5, 3)), {}
    yield ("heads3_dk7_dv2_wo", dict(x=normal(6, 5), heads=heads(3, 5, 7, 2), wo=normal(6, 5)),
           dict(causal=True, key_padding=None))

    # d_k from 1 to 64, two heads, causal
    for d_k in (1, 2, 3, 5, 8, 16, 32, 64):
        yield (f"dk{d_k}_heads2_causal",
               dict(x=normal(5, 6), heads=heads(2, 6, d_k, 3, s=0.5), wo=normal(6, 6)),
               dict(causal=True))
    # at d_k = 64 the unscaled softmax saturates; the same inputs with and without scaling
    big = dict(x=normal(6, 8), heads=heads(1, 8, 64, 4, s=0.3))
    yield "dk64_scaled", big, {}
    yield "dk64_unscaled", big, dict(scale=False)

    # temperature with heads and masks
    for temp in (1e-3, 0.3, 7.0, 100.0):
        yield (f"temperature{temp:g}_heads2_padding",
               dict(x=normal(6, 4), heads=heads(2, 4, 3, 3), wo=normal(6, 4),
                    key_padding=[0, 0, 0, 0, 1, 1]), dict(temperature=temp))

    # causal plus padding, including fully masked rows
    yield ("causal_padding_heads3",
           dict(x=normal(8, 6), heads=heads(3, 6, 2, 2), wo=normal(6, 6),
                key_padding=[0, 0, 1, 0, 0, 1, 1, 0]), dict(causal=True))
    yield ("causal_padding_first_two_rows_fully_masked",
           dict(x=normal(5, 4), heads=heads(2, 4, 3, 2), wo=normal(4, 4),
                key_padding=[1, 1, 0, 0, 1]), dict(causal=True))
    yield ("all_padding_heads2_wo",
           dict(x=normal(4, 3), heads=heads(2, 3, 2, 2), wo=normal(4, 3),
                key_padding=[1, 1, 1, 1]), {})

    # cross-attention: queries from x, keys and values from a context of another length
    for n_q, n_k, d_model, d_ctx, h in [(3, 5, 4, 4, 1), (7, 2, 6, 3, 2), (1, 9, 5, 5, 3),
                                        (12, 4, 8, 8, 2), (4, 11, 2, 7, 4)]:
        inputs = dict(x=normal(n_q, d_model), context=normal(n_k, d_ctx),
                      heads=heads(h, d_model, 3, 2, d_ctx=d_ctx), wo=normal(h * 2, d_model))
        yield f"cross_nq{n_q}_nk{n_k}_dm{d_model}_dctx{d_ctx}_heads{h}", inputs, {}
        yield f"cross_nq{n_q}_nk{n_k}_dm{d_model}_dctx{d_ctx}_heads{h}_causal", inputs, \
            dict(causal=True)
    yield ("cross_padding_causal_fully_masked_row",
           dict(x=normal(6, 4), context=normal(3, 4), heads=heads(2, 4, 2, 2),
                key_padding=[1, 0, 1]), dict(causal=True))
    yield ("cross_pe",
           dict(x=normal(4, 6), context=normal(7, 5), heads=heads(2, 6, 3, 3, d_ctx=5),
                wo=normal(6, 6)), dict(pe=True))

    # positional encoding at more positions and odd d_model
    for n, d_model in [(1, 1), (10, 7), (50, 16)]:
        yield (f"pe_n{n}_dm{d_model}",
               dict(x=normal(n, d_model, s=0.1), heads=heads(1, d_model, 4, 4, s=0.2)),
               dict(pe=True))

    # magnitudes: small, large, and grid values whose scaled scores overflow a naive exp
    for s in (1e-2, 10.0):
        yield (f"scale{s:g}_heads2_causal_padding",
               dict(x=normal(6, 5, s=s), heads=heads(2, 5, 4, 3, s=s), wo=normal(6, 5, s=s),
                    key_padding=[0, 1, 0, 0, 0, 1]), dict(causal=True, temperature=0.8))
    grid = lambda shape, lo, hi: rng.integers(lo * 4, hi * 4, size=shape).astype(np.float64) / 4
    yield ("huge_heads2_causal_padding",
           dict(x=grid((9, 6), -40, 40),
                heads=[(grid((6, 4), -4, 4), grid((6, 4), -4, 4), grid((6, 3), -4, 4))
                       for _ in range(2)],
                key_padding=[0, 0, 0, 1, 0, 0, 0, 0, 1]), dict(causal=True))

    # everything at once
    yield ("everything_cross_heads4",
           dict(x=normal(5, 8), context=normal(9, 6), heads=heads(4, 8, 2, 3, d_ctx=6),
                wo=normal(12, 8), key_padding=[0, 0, 1, 0, 0, 0, 1, 0, 1]),
           dict(causal=True, scale=False, temperature=1.7, pe=True))

    # ALiBi: one head (m = 2^-8), 8 heads (the paper's 1/2 … 1/256) with the causal mask, 3
    # heads (not a power of 2) without scaling and with a temperature, cross-attention (the
    # keys' own positions) with padding, and with PE and W_O
    yield "tutorial_alibi", tut, dict(alibi=True)
    yield ("alibi_heads8_causal",
           dict(x=normal(7, 8), heads=heads(8, 8, 2, 2), wo=normal(16, 8)), dict(alibi=True, causal=True))
    yield ("alibi_heads3_unscaled_temperature2",
           dict(x=normal(5, 4), heads=heads(3, 4, 3, 2)), dict(alibi=True, scale=False, temperature=2.0))
    yield ("alibi_cross_nq4_nk6_heads2_padding",
           dict(x=normal(4, 3), context=normal(6, 5), heads=heads(2, 3, 2, 2, d_ctx=5),
                key_padding=[0, 0, 1, 0, 0, 0]), dict(alibi=True))
    yield ("alibi_pe_heads4_wo",
           dict(x=normal(6, 8), heads=heads(4, 8, 2, 2), wo=normal(8, 8)), dict(alibi=True, pe=True))


def write_variants(out):
    count = fully = 0
    with open(out, "w") as f:
        f.write("# Generated by tests/make_fixtures.py with numpy %s; do not edit.\n" % np.__version__)
        for name, inputs, options in variant_cases():
            opts = dict(causal=False, scale=True, temperature=1.0, pe=False, alibi=False)
            opts.update(options)
            kp = inputs.get("key_padding")
            res = multi_head(inputs["x"], inputs["heads"], context=inputs.get("context"),
                             wo=inputs.get("wo"), causal=opts["causal"], key_padding=kp,
                             scale=opts["scale"], temperature=opts["temperature"], pe=opts["pe"],
                             alibi=opts["alibi"])
            for key, m in res.items():
                # only masked scaled scores may be infinite, and nothing may be NaN
                finite = np.isfinite(m) | (np.isneginf(m) & key.endswith(".scaled"))
                assert np.all(finite), (name, key)
            if name.startswith("huge"):  # proves the masked softmax is stabilised too
                with np.errstate(over="ignore"):
                    s = res["h0.scaled"]
                    assert np.isinf(np.exp(s[np.isfinite(s)])).any(), name
            fully += int(res["fullyMasked"].sum() > 0)
            f.write(f"case {name}\n")
            f.write(f"option causal {int(opts['causal'])}\noption scale {int(opts['scale'])}\n")
            f.write(f"option temperature {float(opts['temperature'])!r}\n")
            f.write(f"option pe {int(opts['pe'])}\noption heads {len(inputs['heads'])}\n")
            if opts["alibi"]:
                f.write("option alibi 1\n")
            write_matrix(f, "x", inputs["x"])
            if inputs.get("context") is not None:
                write_matrix(f, "context", inputs["context"])
            if kp is not None:
                write_matrix(f, "keyPadding", np.array([kp], dtype=np.float64))
            for h, (wq, wk, wv) in enumerate(inputs["heads"]):
                for key, m in (("wq", wq), ("wk", wk), ("wv", wv)):
                    write_matrix(f, f"h{h}.{key}", m)
            if inputs.get("wo") is not None:
                write_matrix(f, "wo", inputs["wo"])
            for key, m in res.items():
                write_matrix(f, key, m)
            f.write("end\n")
            count += 1
    print(f"wrote {count} cases to {os.path.relpath(out)} ({fully} with fully masked rows)",
          file=sys.stderr)


def write_matrix(f, name, m):
    rows, cols = m.shape
    f.write(f"{name} {rows} {cols}\n")
    for row in m:
        f.write(" ".join(repr(float(v)) for v in row) + "\n")


def main():
    parser = argparse.ArgumentParser(description="Writes the numpy fixtures of the engine's tests.")
    parser.add_argument("--out", default=FIXTURES, help="folder to write to (default: tests/fixtures)")
    folder = parser.parse_args().out
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, ATTENTION_FILE)
    count = overflowing = 0
    with open(out, "w") as f:
        f.write("# Generated by tests/make_fixtures.py with numpy %s; do not edit.\n" % np.__version__)
        for name, (x, wq, wk, wv), must_overflow in cases():
            res = attention(x, wq, wk, wv)
            with np.errstate(over="ignore"):
                naive_overflows = not np.all(np.isfinite(np.exp(res["scaled"])))
            # the "huge" cases exist to prove the softmax is stabilised: check that they need it
            assert naive_overflows or not must_overflow, name
            overflowing += naive_overflows
            assert all(np.all(np.isfinite(m)) for m in res.values()), name
            f.write(f"case {name}\n")
            for key, m in zip(INPUTS, (x, wq, wk, wv)):
                write_matrix(f, key, m)
            for key in RESULTS:
                write_matrix(f, key, res[key])
            f.write("end\n")
            count += 1
    print(f"wrote {count} cases to {os.path.relpath(out)} ({overflowing} overflow an unstabilised softmax)",
          file=sys.stderr)
    write_variants(os.path.join(folder, VARIANTS_FILE))


if __name__ == "__main__":
    main()
