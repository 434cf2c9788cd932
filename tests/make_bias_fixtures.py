#!/usr/bin/python3
"""Writes tests/fixtures/bias_cases.txt: attention with biases (Q = X·W_Q + b_Q, K = C·W_K + b_K,
V = C·W_V + b_V, output = concat·W_O + b_O) computed by PyTorch's own nn.MultiheadAttention
(bias=True) in float64, independently of the engine, which its tests (Catch2 natively and in
wasm, the JS API tests, the page's show-the-work) compare with. torch is needed only to write it.

Run with Debian's torch (apt-get install python3-torch):   /usr/bin/python3 tests/make_bias_fixtures.py
Inputs come from a seeded numpy generator, so the output is reproducible; the file is committed.

The module's parameters in the engine's layout (x·W, row vectors; head h's rows h·d_k … of
in_proj_weight, transposed):
    h<i>.wq = W_q[h·d_k:(h+1)·d_k, :]ᵀ (d_model × d_k), h<i>.bq = in_proj_bias's q part, rows h·d_k …
    (the same for k, v: q_proj_weight/k_proj_weight/v_proj_weight when kdim != embed_dim)
    wo = out_proj.weightᵀ, bo = out_proj.bias (1 × d_model)
A bias the engine's input leaves out (option nobk 1, option nobo 1) is zero in the module.

The format of variant_cases.txt (case, option lines, x, context, keyPadding, h<i>.wq/wk/wv) plus
h<i>.bq/bk/bv and bo (1 × d), and the module's results:
    h<i>.q, h<i>.k, h<i>.v   F.linear of the inputs with head i's rows (what the projections give)
    h<i>.weights             the module's attention weights, average_attn_weights=False
    output                   attn_output (option onehead 1: W_O = I and b_O = 0 in the module, so
                             the engine's one-head form, without wo, gives it)
    G                        dL/doutput of L = sum(G ⊙ attn_output), and autograd's gradients
    d.x, d.context, d.h<i>.wq/wk/wv/bq/bk/bv, d.wo, d.bo
Training cases (option steps > 0): option optimizer 0|1 (SGD | Adam, torch.optim defaults),
option learningRate, target (the output wanted), L = mean((attn_output − target)²) over every row
(the engine's output_mse), every parameter of the module trained; losses (1 × steps+1) and
final.<name> for every matrix and bias after the steps.
"""

import os

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)  # one thread: the same sums in the same order, run after run
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "bias_cases.txt")


def write_matrix(f, name, m):
    m = np.atleast_2d(np.asarray(m.detach() if torch.is_tensor(m) else m, dtype=np.float64))
    f.write(f"{name} {m.shape[0]} {m.shape[1]}\n")
    for row in m:
        f.write(" ".join(repr(float(v)) for v in row) + "\n")


def projections(mha, grad=False):
    """(W_q, W_k, W_v) as torch stores them (out × in), and (b_q, b_k, b_v); with grad, their
    gradients (autograd's, of the module's leaf parameters)."""
    e = mha.embed_dim
    of = (lambda t: t.grad) if grad else (lambda t: t)
    if mha._qkv_same_embed_dim:
        w = of(mha.in_proj_weight)
        wq, wk, wv = w[:e], w[e:2 * e], w[2 * e:]
    else:
        wq, wk, wv = of(mha.q_proj_weight), of(mha.k_proj_weight), of(mha.v_proj_weight)
    b = of(mha.in_proj_bias)
    return (wq, wk, wv), (b[:e], b[e:2 * e], b[2 * e:])


def engine_parameters(mha, tensors):
    """{name: tensor} in the engine's layout of any tensors shaped as the module's parameters
    (the parameters themselves, their gradients)."""
    e, h_count = mha.embed_dim, mha.num_heads
    d = e // h_count
    w, b = tensors
    out = {}
    for h in range(h_count):
        rows = slice(h * d, (h + 1) * d)
        for key, wm, bm in zip("qkv", w, b):
            out[f"h{h}.w{key}"] = wm[rows].T
            out[f"h{h}.b{key}"] = bm[rows]
    return out


def module(e, heads, kdim=None, seed=0, zero=()):
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(e, heads, bias=True, kdim=kdim, vdim=kdim)
    with torch.no_grad():
        # nn.MultiheadAttention starts its biases at 0: give them values, so they count
        mha.in_proj_bias.copy_(torch.randn(3 * e) * 0.5)
        mha.out_proj.bias.copy_(torch.randn(e) * 0.5)
        if "bk" in zero:
            mha.in_proj_bias[e:2 * e] = 0.0
        if "bo" in zero:
            mha.out_proj.bias.zero_()
        if "onehead" in zero:  # W_O = I, b_O = 0: the engine's one-head form
            mha.out_proj.weight.copy_(torch.eye(e))
            mha.out_proj.bias.zero_()
    return mha


def run(mha, x, context, causal, key_padding):
    """attn_output (n_q, e) and the weights (heads, n_q, n_k) for x (n_q, e), context (n_k, kdim)
    or None; unbatched inputs, as the module takes them."""
    source = x if context is None else context
    n_q, n_k = x.shape[0], source.shape[0]
    mask = None
    if causal:  # True = not allowed: query i looks at keys j <= i
        mask = torch.ones(n_q, n_k, dtype=torch.bool).triu(1)
    padding = None if key_padding is None else torch.tensor(key_padding, dtype=torch.bool)
    return mha(x, source, source, attn_mask=mask, key_padding_mask=padding,
               need_weights=True, average_attn_weights=False)


def write_case(f, name, mha, x, context=None, causal=False, key_padding=None, zero=(), train=None):
    rng = np.random.default_rng(len(name))
    f.write(f"case {name}\n")
    heads = mha.num_heads
    f.write(f"option causal {int(causal)}\noption scale 1\noption temperature 1.0\noption pe 0\n")
    f.write(f"option heads {heads}\n")
    one = "onehead" in zero
    f.write(f"option onehead {int(one)}\noption nobk {int('bk' in zero)}\n")
    f.write(f"option nobo {int('bo' in zero or one)}\n")
    x = torch.tensor(x, requires_grad=True)
    context = None if context is None else torch.tensor(context, requires_grad=True)
    write_matrix(f, "x", x)
    if context is not None:
        write_matrix(f, "context", context)
    if key_padding is not None:
        write_matrix(f, "keyPadding", [key_padding])
    params = engine_parameters(mha, projections(mha))
    for h in range(heads):
        for key in ("wq", "wk", "wv", "bq", "bk", "bv"):
            if key == "bk" and "bk" in zero:
                continue
            write_matrix(f, f"h{h}.{key}", params[f"h{h}.{key}"])
    if not one:
        write_matrix(f, "wo", mha.out_proj.weight.T)
        if "bo" not in zero:
            write_matrix(f, "bo", mha.out_proj.bias)

    if train is None:
        output, weights = run(mha, x, context, causal, key_padding)
        source = x if context is None else context
        (wq, wk, wv), (bq, bk, bv) = projections(mha)
        d = mha.embed_dim // heads
        for h in range(heads):
            rows = slice(h * d, (h + 1) * d)
            write_matrix(f, f"h{h}.q", F.linear(x, wq[rows], bq[rows]))
            write_matrix(f, f"h{h}.k", F.linear(source, wk[rows], bk[rows]))
            write_matrix(f, f"h{h}.v", F.linear(source, wv[rows], bv[rows]))
            write_matrix(f, f"h{h}.weights", weights[h])
        write_matrix(f, "output", output)
        g = torch.tensor(rng.standard_normal(tuple(output.shape)))
        write_matrix(f, "G", g)
        mha.zero_grad()
        (g * output).sum().backward()
        write_matrix(f, "d.x", x.grad)
        if context is not None:
            write_matrix(f, "d.context", context.grad)
        grads = engine_parameters(mha, projections(mha, grad=True))
        for key, value in grads.items():
            if key.endswith(".bk") and "bk" in zero:
                continue
            write_matrix(f, f"d.{key}", value)
        if not one:
            write_matrix(f, "d.wo", mha.out_proj.weight.grad.T)
            if "bo" not in zero:
                write_matrix(f, "d.bo", mha.out_proj.bias.grad)
    else:
        optimizer_name, lr, steps = train
        f.write(f"option steps {steps}\noption optimizer {int(optimizer_name == 'adam')}\n")
        f.write(f"option learningRate {lr!r}\n")
        with torch.no_grad():
            shape = run(mha, x, context, causal, key_padding)[0].shape
        target = torch.tensor(rng.standard_normal(tuple(shape)))
        write_matrix(f, "target", target)
        trained = [p for n, p in mha.named_parameters()]
        opt = (torch.optim.Adam if optimizer_name == "adam" else torch.optim.SGD)(trained, lr=lr)
        losses = []
        for step in range(steps + 1):
            opt.zero_grad()
            loss = ((run(mha, x, context, causal, key_padding)[0] - target) ** 2).mean()
            losses.append(loss.item())
            if step == steps:
                break
            loss.backward()
            opt.step()
        write_matrix(f, "losses", [losses])
        final = engine_parameters(mha, projections(mha))
        for h in range(heads):
            for key in ("wq", "wk", "wv", "bq", "bv", "bk"):
                write_matrix(f, f"final.h{h}.{key}", final[f"h{h}.{key}"])
        write_matrix(f, "final.wo", mha.out_proj.weight.T)
        write_matrix(f, "final.bo", mha.out_proj.bias)
    f.write("end\n")


def main():
    rng = np.random.default_rng(20261202)
    normal = lambda *shape: rng.standard_normal(shape)
    with open(OUT, "w") as f:
        f.write(f"# Generated by tests/make_bias_fixtures.py with torch {torch.__version__}; do not edit.\n")
        write_case(f, "one_head_tutorial", module(2, 1, seed=1, zero=("onehead",)),
                   [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]], zero=("onehead",))
        write_case(f, "heads2_n4_dm6", module(6, 2, seed=2), normal(4, 6))
        write_case(f, "heads3_n5_dm6_causal", module(6, 3, seed=3), normal(5, 6), causal=True)
        write_case(f, "heads2_n5_dm4_padding", module(4, 2, seed=4), normal(5, 4),
                   key_padding=[0, 0, 1, 0, 1])
        write_case(f, "heads2_no_bk_no_bo", module(4, 2, seed=5, zero=("bk", "bo")), normal(3, 4),
                   zero=("bk", "bo"))
        write_case(f, "cross_nq3_nk5_dctx3_heads2", module(4, 2, kdim=3, seed=6), normal(3, 4),
                   context=normal(5, 3))
        write_case(f, "cross_nq4_nk4_causal_padding", module(6, 2, kdim=5, seed=7), normal(4, 6),
                   context=normal(4, 5), causal=True, key_padding=[0, 1, 0, 0])
        write_case(f, "train_sgd_heads2", module(4, 2, seed=8), normal(4, 4), train=("sgd", 0.1, 4))
        write_case(f, "train_adam_heads2_causal", module(4, 2, seed=9), normal(5, 4), causal=True,
                   train=("adam", 0.05, 5))
        write_case(f, "train_adam_cross", module(4, 2, kdim=3, seed=10), normal(3, 4),
                   context=normal(4, 3), train=("adam", 0.02, 3))


if __name__ == "__main__":
    main()
