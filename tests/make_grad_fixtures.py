#!/usr/bin/python3
"""Writes tests/fixtures/backward_cases.txt (gradients of attention) and
tests/fixtures/training_cases.txt (a few SGD and Adam steps): computed by PyTorch's autograd
in float64, independently of the engine, which its tests (Catch2 natively, in wasm and under
sanitizers, and the JS API tests) compare with. torch is needed only to write these files.

Run with Debian's torch (apt-get install python3-torch):   /usr/bin/python3 tests/make_grad_fixtures.py
Inputs come from a seeded numpy generator, so the output is reproducible; the files are committed.

The attention is written the way tests/make_fixtures.py writes it (our layout x @ W; see README
"Conventions against PyTorch"), in torch so that autograd differentiates it:
    X' = X (+ PE), C' = C (+ PE) or X'
    Q, K, V = X' @ W_Q, C' @ W_K, C' @ W_V
    scores = Q @ K.T;  scaled = (scores / sqrt(d_k) [+ ALiBi's bias]) / temperature, -inf where masked
    weights = softmax(scaled) per row, a fully masked row all 0;  out_h = weights @ V
    concat = [out_0 | out_1 | ...];  output = concat @ W_O, or concat

backward_cases.txt: the format of variant_cases.txt (case, option lines, inputs x, context,
keyPadding, h<i>.wq/wk/wv, wo), then G (dL/doutput for L = sum(G * output)) and every gradient,
named d.<name>: d.x, d.context, d.h<i>.wq/wk/wv, d.wo, d.temperature (1 x 1), d.h<i>.q/k/v/
scores/scaled/weights/output, d.concat, d.output, d.xWithPe, d.contextWithPe.

backward_seed_cases.txt: the same format, for the other ways a gradient enters backward():
    option seed 0|1|2 (0: S.h<i> = dL/dweights of head i, L = sum_h sum(S_h * weights_h);
    1: that plus G, L adds sum(G * output); 2: a loss of train(), option loss 0|1 (output MSE,
    weights cross-entropy) against target or target.h<i>, over every row, its value in loss),
f.h<i>.q, k and weights (the forward pass) and every gradient d.<name> as above.

training_cases.txt: the same inputs and options, plus the training's options
    option loss 0|1 (0: output MSE, 1: weights cross-entropy), option optimizer 0|1 (sgd|adam),
    option learningRate, steps, seed, rowsPerStep (0: every row), option train.<name> 0|1
the target (target, or target.h<i> for the weights of head i), and the results: losses
(1 x steps+1: the loss over every row before the first step and after each step) and
final.<name> for every trained matrix (final.x, final.h0.wq, final.wo, ...).
"""

import math
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)  # one thread: the same sums in the same order, run after run
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RESULTS = ["q", "k", "v", "scores", "scaled", "weights", "output"]
M32 = 0xFFFFFFFF


def positional_encoding(n, d_model):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(...), as numpy does it
    in make_fixtures.py."""
    pe = np.zeros((n, d_model))
    pos = np.arange(n, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2)
    angle = pos / 10000.0 ** (two_i / d_model)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return torch.tensor(pe)


def allowed_mask(n_q, n_k, causal, key_padding):
    """True where query i may look at key j (PyTorch SDPA's boolean attn_mask sense)."""
    allowed = torch.ones(n_q, n_k, dtype=torch.bool)
    if causal:
        allowed &= torch.tril(torch.ones(n_q, n_k, dtype=torch.bool))
    if key_padding is not None:
        allowed &= ~torch.tensor(key_padding, dtype=torch.bool)[None, :]
    return allowed


def forward(p, opts, keep):
    """The attention of the leaf tensors p (x, context, heads [(wq, wk, wv)], wo, temperature);
    keep(name, tensor) sees every intermediate (to retain its gradient). Returns the output and,
    per head, (scaled, weights) for the weights loss."""
    x = p["x"]
    context = p.get("context")
    if opts["pe"]:
        x = keep("xWithPe", x + positional_encoding(*x.shape))
        if context is not None:
            context = keep("contextWithPe", context + positional_encoding(*context.shape))
    source = x if context is None else context
    allowed = allowed_mask(x.shape[0], source.shape[0], opts["causal"], opts.get("key_padding"))
    fully = ~allowed.any(dim=1, keepdim=True)
    outs, per_head = [], []
    for h, (wq, wk, wv) in enumerate(p["heads"]):
        q, k, v = keep(f"h{h}.q", x @ wq), keep(f"h{h}.k", source @ wk), keep(f"h{h}.v", source @ wv)
        scores = keep(f"h{h}.scores", q @ k.T)
        pre = scores / math.sqrt(wq.shape[1]) if opts["scale"] else scores
        if opts["alibi"]:  # a constant: -m |i - j|, m = 2^(-8 (h+1) / H); no gradient flows into it
            slope = 2.0 ** (-8.0 * (h + 1) / len(p["heads"]))
            pre = pre - slope * torch.abs(torch.arange(x.shape[0], dtype=torch.float64)[:, None]
                                          - torch.arange(source.shape[0], dtype=torch.float64)[None, :])
        scaled = keep(f"h{h}.scaled", (pre / p["temperature"]).masked_fill(~allowed, -math.inf))
        # a fully masked row: softmax of zeros, then replaced by 0 (PyTorch alone gives NaN)
        safe = torch.where(fully, torch.zeros_like(scaled), scaled)
        weights = keep(f"h{h}.weights", torch.where(fully, 0.0, torch.softmax(safe, dim=1)))
        outs.append(keep(f"h{h}.output", weights @ v))
        per_head.append((safe, allowed & ~fully))
    concat = keep("concat", torch.cat(outs, dim=1))
    output = keep("output", concat @ p["wo"] if p.get("wo") is not None else concat)
    return output, per_head


def leaves(inputs, opts, requires_grad):
    p = {"x": torch.tensor(inputs["x"], requires_grad=requires_grad.get("x", False)),
         "heads": [tuple(torch.tensor(w, requires_grad=requires_grad.get(name, False))
                         for name, w in zip(("wq", "wk", "wv"), head)) for head in inputs["heads"]],
         "temperature": torch.tensor(float(opts["temperature"]),
                                     requires_grad=requires_grad.get("temperature", False))}
    if inputs.get("context") is not None:
        p["context"] = torch.tensor(inputs["context"],
                                    requires_grad=requires_grad.get("context", False))
    if inputs.get("wo") is not None:
        p["wo"] = torch.tensor(inputs["wo"], requires_grad=requires_grad.get("wo", False))
    return p


def full_options(options, inputs):
    opts = dict(causal=False, scale=True, temperature=1.0, pe=False, alibi=False)
    opts.update(options)
    opts["key_padding"] = inputs.get("key_padding")
    return opts


def write_matrix(f, name, m):
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))
    f.write(f"{name} {m.shape[0]} {m.shape[1]}\n")
    for row in m:
        f.write(" ".join(repr(float(v)) for v in row) + "\n")


def write_case_head(f, name, inputs, opts):
    f.write(f"case {name}\n")
    f.write(f"option causal {int(opts['causal'])}\noption scale {int(opts['scale'])}\n")
    f.write(f"option temperature {float(opts['temperature'])!r}\n")
    f.write(f"option pe {int(opts['pe'])}\noption heads {len(inputs['heads'])}\n")
    if opts["alibi"]:
        f.write("option alibi 1\n")
    write_matrix(f, "x", inputs["x"])
    if inputs.get("context") is not None:
        write_matrix(f, "context", inputs["context"])
    if inputs.get("key_padding") is not None:
        write_matrix(f, "keyPadding", [inputs["key_padding"]])
    for h, (wq, wk, wv) in enumerate(inputs["heads"]):
        for key, m in (("wq", wq), ("wk", wk), ("wv", wv)):
            write_matrix(f, f"h{h}.{key}", m)
    if inputs.get("wo") is not None:
        write_matrix(f, "wo", inputs["wo"])


# ---- backward ----

def backward_cases():
    """(name, inputs, options): every option of compute() and their combinations."""
    rng = np.random.default_rng(20261216)
    normal = lambda *shape, s=1.0: rng.standard_normal(shape) * s

    def heads(h, d_model, d_k, d_v, d_ctx=None, s=1.0):
        d_ctx = d_model if d_ctx is None else d_ctx
        return [(normal(d_model, d_k, s=s), normal(d_ctx, d_k, s=s), normal(d_ctx, d_v, s=s))
                for _ in range(h)]

    tut = dict(x=np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]),
               heads=[(np.array([[0.5, 0.2], [0.1, 0.6]]), np.array([[0.4, 0.3], [0.2, 0.7]]),
                       np.array([[0.8, 0.1], [0.3, 0.9]]))])
    yield "tutorial", tut, {}
    yield "tutorial_causal", tut, dict(causal=True)
    yield "tutorial_padding_last", dict(tut, key_padding=[0, 0, 1]), {}
    yield "tutorial_causal_padding_first", dict(tut, key_padding=[1, 0, 0]), dict(causal=True)
    yield "tutorial_all_padding", dict(tut, key_padding=[1, 1, 1]), {}
    yield "tutorial_temperature0.5", tut, dict(temperature=0.5)
    yield "tutorial_no_scaling_temperature3", tut, dict(scale=False, temperature=3.0)
    yield "tutorial_pe", tut, dict(pe=True)
    yield "tutorial_pe_causal", tut, dict(pe=True, causal=True)
    yield "one_head_n5_dm4_dk3_dv2", dict(x=normal(5, 4), heads=heads(1, 4, 3, 2)), {}
    yield "heads1_wo", dict(x=normal(4, 3), heads=heads(1, 3, 2, 5), wo=normal(5, 3)), {}
    yield "heads2_n5_dm8_wo", dict(x=normal(5, 8), heads=heads(2, 8, 4, 4), wo=normal(8, 8)), {}
    yield ("heads3_n4_dm6_causal_nowo", dict(x=normal(4, 6), heads=heads(3, 6, 2, 2)),
           dict(causal=True))
    yield ("heads3_dk7_dv2_wo_causal", dict(x=normal(6, 5), heads=heads(3, 5, 7, 2),
                                            wo=normal(6, 5)), dict(causal=True))
    yield ("temperature0.3_heads2_padding",
           dict(x=normal(6, 4), heads=heads(2, 4, 3, 3), wo=normal(6, 4),
                key_padding=[0, 0, 0, 0, 1, 1]), dict(temperature=0.3))
    yield ("causal_padding_first_two_rows_fully_masked",
           dict(x=normal(5, 4), heads=heads(2, 4, 3, 2), wo=normal(4, 4),
                key_padding=[1, 1, 0, 0, 1]), dict(causal=True))
    yield "cross_nq3_nk5_heads1", dict(x=normal(3, 4), context=normal(5, 4),
                                      heads=heads(1, 4, 3, 2)), {}
    yield ("cross_nq7_nk2_dctx3_heads2_wo_causal",
           dict(x=normal(7, 6), context=normal(2, 3), heads=heads(2, 6, 3, 2, d_ctx=3),
                wo=normal(4, 6)), dict(causal=True))
    yield ("cross_padding_causal_fully_masked_row",
           dict(x=normal(6, 4), context=normal(3, 4), heads=heads(2, 4, 2, 2),
                key_padding=[1, 0, 1]), dict(causal=True))
    yield ("cross_pe_heads2_wo",
           dict(x=normal(4, 6), context=normal(7, 5), heads=heads(2, 6, 3, 3, d_ctx=5),
                wo=normal(6, 6)), dict(pe=True))
    yield ("pe_n10_dm7", dict(x=normal(10, 7, s=0.1), heads=heads(1, 7, 4, 4, s=0.2)),
           dict(pe=True))
    big = dict(x=normal(6, 8), heads=heads(1, 8, 64, 4, s=0.3))
    yield "dk64_scaled", big, {}
    yield "dk64_unscaled", big, dict(scale=False)
    yield ("scale10_heads2_causal_padding",
           dict(x=normal(6, 5, s=10.0), heads=heads(2, 5, 4, 3, s=10.0), wo=normal(6, 5, s=10.0),
                key_padding=[0, 1, 0, 0, 0, 1]), dict(causal=True, temperature=0.8))
    # sizes past the kernels' 8-column panels and 2-row blocks, odd everywhere
    yield ("n33_dm17_heads2_dk9_dv11_wo_causal",
           dict(x=normal(33, 17, s=0.5), heads=heads(2, 17, 9, 11, s=0.5), wo=normal(22, 17)),
           dict(causal=True))
    yield ("everything_cross_heads4",
           dict(x=normal(5, 8), context=normal(9, 6), heads=heads(4, 8, 2, 3, d_ctx=6),
                wo=normal(12, 8), key_padding=[0, 0, 1, 0, 0, 0, 1, 0, 1]),
           dict(causal=True, scale=False, temperature=1.7, pe=True))
    # ALiBi: its bias is a constant, the gradients those of the biased scores (d.temperature too)
    yield ("alibi_heads3_causal_wo_temperature0.7",
           dict(x=normal(5, 4), heads=heads(3, 4, 2, 2), wo=normal(6, 4)), dict(alibi=True, causal=True, temperature=0.7))
    yield ("alibi_cross_nq3_nk5_heads2_unscaled_padding",
           dict(x=normal(3, 4), context=normal(5, 3), heads=heads(2, 4, 3, 2, d_ctx=3),
                key_padding=[0, 1, 0, 0, 0]), dict(alibi=True, scale=False))

def retained_forward(inputs, options):
    """The forward pass with every input a leaf that takes a gradient and every intermediate
    retained: (p, opts, output, per_head, kept), kept[name] for d.<name>."""
    opts = full_options(options, inputs)
    p = leaves(inputs, opts, dict(x=True, context=True, wq=True, wk=True, wv=True, wo=True,
                                  temperature=True))
    kept = {}

    def keep(key, t):
        t.retain_grad()
        kept[key] = t
        return t

    output, per_head = forward(p, opts, keep)
    return p, opts, output, per_head, kept


def write_gradients(f, name, p, kept):
    """d.<name> of every input and retained intermediate, after backward(); one the loss does
    not reach (W_V and the output for a weights seed alone) has no gradient in torch: 0."""
    tensors = {"x": p["x"], "temperature": p["temperature"]}
    if "context" in p:
        tensors["context"] = p["context"]
    for h, head in enumerate(p["heads"]):
        for key, w in zip(("wq", "wk", "wv"), head):
            tensors[f"h{h}.{key}"] = w
    if "wo" in p:
        tensors["wo"] = p["wo"]
    tensors.update(kept)
    for key, t in tensors.items():
        d = t.grad if t.grad is not None else torch.zeros_like(t)
        assert torch.all(torch.isfinite(d)), (name, key)
        write_matrix(f, f"d.{key}", d.detach().numpy())


def write_target(f, loss, target):
    """train()'s target: one matrix for the output loss, one per head with a goal for the
    weights loss."""
    if loss == "output":
        write_matrix(f, "target", target)
    else:
        for h, t in enumerate(target):
            if t is not None:
                write_matrix(f, f"target.h{h}", t)


def write_backward():
    out = os.path.join(FIXTURES, "backward_cases.txt")
    rng = np.random.default_rng(7)
    count = 0
    with open(out, "w") as f:
        f.write(f"# Generated by tests/make_grad_fixtures.py with torch {torch.__version__}; "
                "do not edit.\n")
        for name, inputs, options in backward_cases():
            p, opts, output, _, kept = retained_forward(inputs, options)
            g = torch.tensor(rng.standard_normal(tuple(output.shape)))
            (g * output).sum().backward()
            write_case_head(f, name, inputs, opts)
            write_matrix(f, "G", g.numpy())
            write_gradients(f, name, p, kept)
            f.write("end\n")
            count += 1
    print(f"wrote {count} cases to {os.path.relpath(out)}")


# ---- other seeds: dL/dweights, and the losses of train() ----

def seed_cases():
    """(name, inputs, options, seed): seed = dict(kind=...) with
    weights: S per head (None for a head the loss does not see), L = sum_h sum(S_h * weights_h)
    both:    G and S, L = sum(G * output) + sum_h sum(S_h * weights_h)
    loss:    train()'s loss over every row: "weights" (cross-entropy against target per head,
             None for a head left out) or "output" (mean squared error against target)."""
    rng = np.random.default_rng(20261218)
    normal = lambda *shape: rng.standard_normal(shape)

    def distribution(n_q, n_k, zeros=False):
        t = rng.random((n_q, n_k)) ** 4
        if zeros:  # some cells, and row 1, with no weight wanted
            t[rng.random((n_q, n_k)) < 0.3] = 0.0
            t[1] = 0.0
        sums = t.sum(axis=1, keepdims=True)
        return np.divide(t, sums, out=np.zeros_like(t), where=sums > 0)

    base = {name: (inputs, options) for name, inputs, options in backward_cases()}

    def case(name):
        inputs, options = base[name]
        n_q = inputs["x"].shape[0]
        n_k = n_q if inputs.get("context") is None else inputs["context"].shape[0]
        return inputs, options, len(inputs["heads"]), n_q, n_k

    def weights_seed(name, heads_seen, extra_name=None, output=False):
        inputs, options, h, n_q, n_k = case(name)
        s = [normal(n_q, n_k) if i in heads_seen else None for i in range(h)]
        return (extra_name or name), inputs, options, dict(kind="both" if output else "weights",
                                                           S=s)

    yield weights_seed("tutorial", {0}, "tutorial_weights")
    yield weights_seed("tutorial_causal_padding_first", {0}, "tutorial_causal_padding_weights")
    yield weights_seed("tutorial_no_scaling_temperature3", {0}, "tutorial_temperature3_weights")
    yield weights_seed("tutorial_pe", {0}, "tutorial_pe_weights_and_output", output=True)
    yield weights_seed("heads3_n4_dm6_causal_nowo", {0, 2}, "heads3_weights_heads_0_2")
    yield weights_seed("causal_padding_first_two_rows_fully_masked", {0, 1},
                       "fully_masked_rows_weights")
    yield weights_seed("temperature0.3_heads2_padding", {1}, "temperature0.3_weights_head1")
    yield weights_seed("cross_pe_heads2_wo", {0, 1}, "cross_pe_weights_and_output", output=True)
    yield weights_seed("everything_cross_heads4", {1, 3}, "everything_weights_heads_1_3")
    yield weights_seed("heads2_n5_dm8_wo", {0}, "heads2_wo_weights_and_output", output=True)

    # the page's "How it learns" at its start: the tutorial, goal "each word looks at the
    # previous word" (the first word at itself)
    inputs, options, _, _, _ = case("tutorial")
    previous = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    yield "tutorial_loss_previous", inputs, options, dict(kind="loss", loss="weights",
                                                          target=[previous])
    inputs, options, _, n_q, n_k = case("tutorial_causal")
    yield ("tutorial_causal_loss_weights", inputs, options,
           dict(kind="loss", loss="weights", target=[distribution(n_q, n_k, zeros=True)]))
    inputs, options, h, n_q, n_k = case("causal_padding_first_two_rows_fully_masked")
    yield ("fully_masked_rows_loss_weights", inputs, options,
           dict(kind="loss", loss="weights", target=[distribution(n_q, n_k) for _ in range(h)]))
    inputs, options, h, n_q, n_k = case("cross_pe_heads2_wo")
    yield ("cross_pe_loss_weights_head1", inputs, options,
           dict(kind="loss", loss="weights", target=[None, distribution(n_q, n_k, zeros=True)]))
    inputs, options, _, n_q, _ = case("one_head_n5_dm4_dk3_dv2")
    yield ("one_head_loss_output", inputs, options,
           dict(kind="loss", loss="output", target=normal(n_q, 2)))
    inputs, options, _, n_q, _ = case("heads2_n5_dm8_wo")
    yield ("heads2_wo_loss_output", inputs, options,
           dict(kind="loss", loss="output", target=normal(n_q, 8)))


def write_seeds():
    out = os.path.join(FIXTURES, "backward_seed_cases.txt")
    rng = np.random.default_rng(8)
    count = 0
    with open(out, "w") as f:
        f.write(f"# Generated by tests/make_grad_fixtures.py with torch {torch.__version__}; "
                "do not edit.\n")
        for name, inputs, options, seed in seed_cases():
            p, opts, output, per_head, kept = retained_forward(inputs, options)
            weights = [kept[f"h{h}.weights"] for h in range(len(inputs["heads"]))]
            loss = None
            if seed["kind"] in ("weights", "both"):
                total = sum((torch.tensor(s) * w).sum() for s, w in zip(seed["S"], weights)
                            if s is not None)
                if seed["kind"] == "both":
                    g = torch.tensor(rng.standard_normal(tuple(output.shape)))
                    total = total + (g * output).sum()
            elif seed["loss"] == "output":
                total = loss = ((output - torch.tensor(seed["target"])) ** 2).mean()
            else:
                # -sum T log W / (|H| n_q) over unmasked cells with T != 0, written on the
                # weights so that autograd's dL/dweights is -T / W / (|H| n_q) there
                n_targets = sum(t is not None for t in seed["target"])
                total = 0.0
                for (_, allowed), w, t in zip(per_head, weights, seed["target"]):
                    if t is None:
                        continue
                    t = torch.tensor(t)
                    use = allowed & (t != 0)
                    total = total - torch.where(use, t * torch.log(torch.where(use, w, 1.0)),
                                                0.0).sum()
                total = loss = total / (n_targets * inputs["x"].shape[0])
            total.backward()
            write_case_head(f, name, inputs, opts)
            f.write(f"option seed {['weights', 'both', 'loss'].index(seed['kind'])}\n")
            if seed["kind"] == "both":
                write_matrix(f, "G", g.numpy())
            for h, s in enumerate(seed.get("S", [])):
                if s is not None:
                    write_matrix(f, f"S.h{h}", s)
            if seed["kind"] == "loss":
                f.write(f"option loss {int(seed['loss'] == 'weights')}\n")
                write_target(f, seed["loss"], seed["target"])
                write_matrix(f, "loss", [[loss.item()]])
            for h in range(len(weights)):
                for key in ("q", "k", "weights"):
                    write_matrix(f, f"f.h{h}.{key}", kept[f"h{h}.{key}"].detach().numpy())
            write_gradients(f, name, p, kept)
            f.write("end\n")
            count += 1
    print(f"wrote {count} cases to {os.path.relpath(out)}")


# ---- training ----

def mulberry32(seed):
    """The page's generator (web/src/io/random.js), in 32-bit integer arithmetic."""
    a = seed & M32

    def next_value():
        nonlocal a
        a = (a + 0x6D2B79F5) & M32
        t = a
        t = ((t ^ (t >> 15)) * (t | 1)) & M32
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & M32)) & M32
        return ((t ^ (t >> 14)) & M32) / 4294967296
    return next_value


def pick_rows(seed, step, n, k):
    """The query rows of step `step` (0-based): all, or k drawn by a partial Fisher-Yates
    shuffle from mulberry32(seed + step * 0x9E3779B9 mod 2^32)."""
    if k == 0 or k >= n:
        return list(range(n))
    rand = mulberry32((seed + step * 0x9E3779B9) & M32)
    order = list(range(n))
    for i in range(k):
        j = i + int(rand() * (n - i))
        order[i], order[j] = order[j], order[i]
    return sorted(order[:k])


def loss_of(output, per_head, train, rows):
    rows = torch.tensor(rows)
    if train["loss"] == "output":
        return ((output[rows] - torch.tensor(train["target"])[rows]) ** 2).mean()
    total, n_targets = 0.0, 0
    for (safe, keep), target in zip(per_head, train["target"]):
        if target is None:
            continue
        n_targets += 1
        log_w = torch.log_softmax(safe, dim=1)
        ce = -torch.where(keep, torch.tensor(target) * log_w, 0.0).sum(dim=1)
        total = total + ce[rows].sum()
    return total / (n_targets * len(rows))


def training_cases():
    """(name, inputs, options, training options)."""
    rng = np.random.default_rng(20261217)
    normal = lambda *shape, s=1.0: rng.standard_normal(shape) * s

    def heads(h, d_model, d_k, d_v, d_ctx=None, s=1.0):
        d_ctx = d_model if d_ctx is None else d_ctx
        return [(normal(d_model, d_k, s=s), normal(d_ctx, d_k, s=s), normal(d_ctx, d_v, s=s))
                for _ in range(h)]

    def distribution(n_q, n_k):
        t = rng.random((n_q, n_k)) ** 4
        return t / t.sum(axis=1, keepdims=True)

    tut = dict(x=np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]),
               heads=[(np.array([[0.5, 0.2], [0.1, 0.6]]), np.array([[0.4, 0.3], [0.2, 0.7]]),
                       np.array([[0.8, 0.1], [0.3, 0.9]]))])
    yield ("tutorial_output_sgd", tut, {},
           dict(loss="output", target=normal(3, 2), train=["wq", "wk", "wv"], optimizer="sgd",
                learning_rate=0.5, steps=20))
    # "each token attends to the one before it" (token 0 to itself), causal
    shift = np.eye(3, k=-1)
    shift[0, 0] = 1.0
    yield ("tutorial_weights_adam_causal", tut, dict(causal=True),
           dict(loss="weights", target=[shift], train=["wq", "wk"], optimizer="adam",
                learning_rate=0.05, steps=20))
    yield ("heads2_wo_padding_output_adam_rows3",
           dict(x=normal(6, 4), heads=heads(2, 4, 3, 2), wo=normal(4, 4),
                key_padding=[0, 0, 0, 0, 0, 1]), {},
           dict(loss="output", target=normal(6, 4), train=["x", "wq", "wk", "wv", "wo"],
                optimizer="adam", learning_rate=0.02, steps=15, seed=7, rows_per_step=3))
    yield ("cross_pe_temperature_weights_head1_sgd_rows2",
           dict(x=normal(5, 4), context=normal(4, 3), heads=heads(2, 4, 3, 2, d_ctx=3)),
           dict(pe=True, temperature=0.7),
           dict(loss="weights", target=[None, distribution(5, 4)], train=["wq", "wk", "context"],
                optimizer="sgd", learning_rate=0.15, steps=12, seed=42, rows_per_step=2))
    yield ("heads3_fully_masked_weights_adam",
           dict(x=normal(5, 6), heads=heads(3, 6, 2, 2), key_padding=[1, 0, 0, 1, 0]),
           dict(causal=True),
           dict(loss="weights", target=[distribution(5, 5) for _ in range(3)],
                train=["x", "wq", "wk"], optimizer="adam", learning_rate=0.03, steps=10))
    yield ("no_scaling_output_sgd_wv", dict(x=normal(7, 5), heads=heads(1, 5, 4, 3)),
           dict(scale=False),
           dict(loss="output", target=normal(7, 3), train=["wv"], optimizer="sgd",
                learning_rate=0.1, steps=10, seed=3, rows_per_step=4))


def write_training():
    out = os.path.join(FIXTURES, "training_cases.txt")
    count = 0
    with open(out, "w") as f:
        f.write(f"# Generated by tests/make_grad_fixtures.py with torch {torch.__version__}; "
                "do not edit.\n")
        for name, inputs, options, train in training_cases():
            train = dict(dict(seed=0, rows_per_step=0), **train)
            opts = full_options(options, inputs)
            trained = {name: True for name in train["train"]}
            p = leaves(inputs, opts, trained)
            params = [t for key, t in (("x", p["x"]), ("context", p.get("context")),
                                       ("wo", p.get("wo"))) if key in trained]
            params += [w for head in p["heads"] for key, w in zip(("wq", "wk", "wv"), head)
                       if key in trained]
            make = torch.optim.Adam if train["optimizer"] == "adam" else torch.optim.SGD
            optimizer = make(params, lr=train["learning_rate"])
            n_q = inputs["x"].shape[0]
            losses = []
            for step in range(train["steps"] + 1):
                output, per_head = forward(p, opts, lambda key, t: t)
                with torch.no_grad():
                    losses.append(loss_of(output, per_head, train, list(range(n_q))).item())
                if step == train["steps"]:
                    break
                rows = pick_rows(train["seed"], step, n_q, train["rows_per_step"])
                optimizer.zero_grad()
                loss_of(output, per_head, train, rows).backward()
                optimizer.step()
            assert losses[-1] < losses[0], name  # every case learns something
            write_case_head(f, name, inputs, opts)
            f.write(f"option loss {int(train['loss'] == 'weights')}\n")
            f.write(f"option optimizer {int(train['optimizer'] == 'adam')}\n")
            f.write(f"option learningRate {float(train['learning_rate'])!r}\n")
            f.write(f"option steps {train['steps']}\noption seed {train['seed']}\n")
            f.write(f"option rowsPerStep {train['rows_per_step']}\n")
            for key in ("x", "context", "wq", "wk", "wv", "wo"):
                f.write(f"option train.{key} {int(key in trained)}\n")
            write_target(f, train["loss"], train["target"])
            write_matrix(f, "losses", [losses])
            finals = {"x": p["x"], "context": p.get("context"), "wo": p.get("wo")}
            for h, head in enumerate(p["heads"]):
                finals.update({f"h{h}.{key}": w for key, w in zip(("wq", "wk", "wv"), head)})
            for key, t in finals.items():
                if key.split(".")[-1] in trained:
                    write_matrix(f, f"final.{key}", t.detach().numpy())
            f.write("end\n")
            count += 1
    print(f"wrote {count} cases to {os.path.relpath(out)}")


if __name__ == "__main__":
    write_backward()
    write_seeds()
    write_training()
