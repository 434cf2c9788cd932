#!/usr/bin/python3
"""Writes tests/fixtures/model_cases.txt: small pre-norm transformers (cpp/model.h) run, differentiated
and trained by PyTorch in float64, independently of the engine, which its tests (Catch2 natively,
in wasm and under sanitizers, and tests/js/api-model.test.mjs) compare with. torch is needed only to
write this file.

Run with Debian's torch (apt-get install python3-torch):   /usr/bin/python3 tests/make_model_fixtures.py
Models come from a seeded numpy generator (parameters rounded to 3 decimals, so they are written
short and read back as the very same doubles), so the output is reproducible; the file is committed.

The model, in torch so that autograd differentiates it (our layout x @ W, as in the engine):
    x0 = embed[ids] + P[:n]   (P learned, or the sinusoidal encoding of compute())
    per layer: a = LN1(x) or x; head: softmax(mask((a Wq + bq)(a Wk + bk)^T / sqrt(d_k))) (a Wv + bv)
               x = x + concat(heads) Wo + bo; with an MLP: m = LN2(x) or x; x = x + act(m W1 + b1) W2 + b2
    logits = (LNf(x) or x) U + bU   (U = embed^T when tied);  probabilities = softmax(logits)
    loss = mean over positions with a target (not -1) of cross_entropy(logits, targets)
LN is torch.nn.functional.layer_norm (eps 1e-5), GELU the exact erf form, causal: key j <= query i.
Before writing, the oracle is checked against nn.TransformerEncoderLayer(norm_first=True) on layers
whose shapes it can hold (d_k = d_v = dModel / h, every bias, both norms, an MLP).

The file has the format of the other fixtures (case, option lines, matrices "name rows cols"):
  options vocab, dModel, maxTokens, causal, sinusoidal, tied, layers, finalNorm, unembedBias and per
  layer L<l>.heads, L<l>.norm1, L<l>.norm2, L<l>.mlp, L<l>.activation (0 gelu, 1 relu), L<l>.bo,
  L<l>.b1, L<l>.b2, L<l>.qkvBias (0/1: bq, bk, bv on every head);
  parameters embed, positions, L<l>.norm1.gain/bias, L<l>.h<h>.wq/wk/wv/bq/bk/bv, L<l>.wo, L<l>.bo,
  L<l>.norm2.gain/bias, L<l>.mlp.w1/b1/w2/b2, finalNorm.gain/bias, unembed, unembedBias (vectors 1 x n);
  ids and targets (1 x n);
  results residual.<l> (x_0 ... x_L), L<l>.input, L<l>.h<h>.q/k/v/scores/scaled/weights/output,
  L<l>.concat, L<l>.attention (after Wo, bo), L<l>.mlp.input/hidden/activated/output, finalInput,
  logits, probabilities, loss (1 x 1) and grad.<parameter> for every parameter;
  training cases also: option train.optimizer (0 sgd, 1 adam), train.learningRate, train.batches,
  batch<i>.ids/targets, trainLosses (1 x batches) and final.<parameter> for every parameter.
"""

import math
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RESULTS = ["q", "k", "v", "scores", "scaled", "weights", "output"]


def positional_encoding(n, d_model):
    """compute()'s PE: PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...)."""
    pe = np.zeros((n, d_model))
    pos = np.arange(n, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2)
    angle = pos / 10000.0 ** (two_i / d_model)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return torch.tensor(pe)


def param(rng, *shape, scale=1.0):
    """Uniform in [-scale, scale), rounded to 3 decimals: written short, read back exactly."""
    return torch.tensor(np.round(rng.uniform(-scale, scale, size=shape), 3), requires_grad=True)


def make_model(rng, cfg):
    d, v, t = cfg["dModel"], cfg["vocab"], cfg["maxTokens"]
    p = {"embed": param(rng, v, d)}
    if not cfg["sinusoidal"]:
        p["positions"] = param(rng, t, d, scale=0.5)
    for l, lc in enumerate(cfg["layers"]):
        pre = f"L{l}."
        s = 1.0 / math.sqrt(d)
        if lc["norm1"]:
            p[pre + "norm1.gain"] = param(rng, d, scale=0.5) + 1.0
            p[pre + "norm1.bias"] = param(rng, d, scale=0.2)
        for h in range(lc["heads"]):
            hp = f"{pre}h{h}."
            p[hp + "wq"] = param(rng, d, lc["dk"], scale=2 * s)
            p[hp + "wk"] = param(rng, d, lc["dk"], scale=2 * s)
            p[hp + "wv"] = param(rng, d, lc["dv"], scale=2 * s)
            if lc["qkvBias"]:
                p[hp + "bq"] = param(rng, lc["dk"], scale=0.3)
                p[hp + "bk"] = param(rng, lc["dk"], scale=0.3)
                p[hp + "bv"] = param(rng, lc["dv"], scale=0.3)
        p[pre + "wo"] = param(rng, lc["heads"] * lc["dv"], d, scale=1.0 / math.sqrt(lc["heads"] * lc["dv"]))
        if lc["bo"]:
            p[pre + "bo"] = param(rng, d, scale=0.2)
        if lc["mlp"]:
            if lc["norm2"]:
                p[pre + "norm2.gain"] = param(rng, d, scale=0.5) + 1.0
                p[pre + "norm2.bias"] = param(rng, d, scale=0.2)
            p[pre + "mlp.w1"] = param(rng, d, lc["f"], scale=2 * s)
            if lc["b1"]:
                p[pre + "mlp.b1"] = param(rng, lc["f"], scale=0.3)
            p[pre + "mlp.w2"] = param(rng, lc["f"], d, scale=2.0 / math.sqrt(lc["f"]))
            if lc["b2"]:
                p[pre + "mlp.b2"] = param(rng, d, scale=0.2)
    if cfg["finalNorm"]:
        p["finalNorm.gain"] = param(rng, d, scale=0.5) + 1.0
        p["finalNorm.bias"] = param(rng, d, scale=0.2)
    if not cfg["tied"]:
        p["unembed"] = param(rng, d, v)
    if cfg["unembedBias"]:
        p["unembedBias"] = param(rng, v, scale=0.3)
    # "+ 1.0" made non-leaf tensors of the gains: make every parameter a leaf again
    return {k: x.detach().clone().requires_grad_(True) for k, x in p.items()}


def layer_norm(x, p, name):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), p[name + ".gain"], p[name + ".bias"], eps=1e-5)


def act(kind, x):
    return torch.nn.functional.gelu(x) if kind == "gelu" else torch.relu(x)


def forward(cfg, p, ids):
    """Every intermediate, by name, as the fixture stores it."""
    n = len(ids)
    out = {}
    pos = positional_encoding(n, cfg["dModel"]) if cfg["sinusoidal"] else p["positions"][:n]
    x = p["embed"][torch.tensor(ids)] + pos
    out["residual.0"] = x
    hidden_mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1) if cfg["causal"] else None
    for l, lc in enumerate(cfg["layers"]):
        pre = f"L{l}."
        a = layer_norm(x, p, pre + "norm1") if lc["norm1"] else x
        out[pre + "input"] = a
        outs = []
        for h in range(lc["heads"]):
            hp = f"{pre}h{h}."
            q = a @ p[hp + "wq"] + (p[hp + "bq"] if lc["qkvBias"] else 0)
            k = a @ p[hp + "wk"] + (p[hp + "bk"] if lc["qkvBias"] else 0)
            v = a @ p[hp + "wv"] + (p[hp + "bv"] if lc["qkvBias"] else 0)
            scores = q @ k.T
            scaled = scores / math.sqrt(lc["dk"])
            if hidden_mask is not None:
                scaled = scaled.masked_fill(hidden_mask, -math.inf)
            weights = torch.softmax(scaled, dim=1)
            o = weights @ v
            for name, m in zip(RESULTS, [q, k, v, scores, scaled, weights, o]):
                out[hp + name] = m
            outs.append(o)
        concat = torch.cat(outs, dim=1)
        out[pre + "concat"] = concat
        attn = concat @ p[pre + "wo"] + (p[pre + "bo"] if lc["bo"] else 0)
        out[pre + "attention"] = attn
        x = x + attn
        if lc["mlp"]:
            m = layer_norm(x, p, pre + "norm2") if lc["norm2"] else x
            hid = m @ p[pre + "mlp.w1"] + (p[pre + "mlp.b1"] if lc["b1"] else 0)
            ac = act(lc["activation"], hid)
            mo = ac @ p[pre + "mlp.w2"] + (p[pre + "mlp.b2"] if lc["b2"] else 0)
            out[pre + "mlp.input"], out[pre + "mlp.hidden"] = m, hid
            out[pre + "mlp.activated"], out[pre + "mlp.output"] = ac, mo
            x = x + mo
        out[f"residual.{l + 1}"] = x
    f = layer_norm(x, p, "finalNorm") if cfg["finalNorm"] else x
    out["finalInput"] = f
    u = p["embed"].T if cfg["tied"] else p["unembed"]
    logits = f @ u + (p["unembedBias"] if cfg["unembedBias"] else 0)
    out["logits"] = logits
    out["probabilities"] = torch.softmax(logits, dim=1)
    return out


def loss_of(logits, targets):
    return torch.nn.functional.cross_entropy(logits, torch.tensor(targets), ignore_index=-1)


def check_oracle_against_encoder_layer(rng):
    """forward() of one layer against nn.TransformerEncoderLayer(norm_first=True): same weights."""
    for activation, causal, d, h in [("relu", False, 8, 2), ("gelu", True, 12, 4), ("gelu", False, 6, 1)]:
        f = 10
        cfg = {"dModel": d, "vocab": 5, "maxTokens": 6, "causal": causal, "sinusoidal": True, "tied": True,
               "finalNorm": False, "unembedBias": False,
               "layers": [{"heads": h, "dk": d // h, "dv": d // h, "norm1": True, "norm2": True, "mlp": True,
                           "activation": activation, "qkvBias": True, "bo": True, "b1": True, "b2": True, "f": f}]}
        p = make_model(rng, cfg)
        ids = [int(i) for i in rng.integers(0, 5, size=6)]
        ours = forward(cfg, p, ids)
        layer = torch.nn.TransformerEncoderLayer(d, h, dim_feedforward=f, dropout=0.0, activation=activation,
                                                 norm_first=True, batch_first=True)
        layer.eval()
        with torch.no_grad():
            # torch's Linear computes x Wᵀ: its weights are our matrices transposed
            wq = torch.cat([p[f"L0.h{i}.wq"] for i in range(h)], dim=1)
            wk = torch.cat([p[f"L0.h{i}.wk"] for i in range(h)], dim=1)
            wv = torch.cat([p[f"L0.h{i}.wv"] for i in range(h)], dim=1)
            layer.self_attn.in_proj_weight.copy_(torch.cat([wq, wk, wv], dim=1).T)
            b = [torch.cat([p[f"L0.h{i}.{name}"] for i in range(h)]) for name in ("bq", "bk", "bv")]
            layer.self_attn.in_proj_bias.copy_(torch.cat(b))
            layer.self_attn.out_proj.weight.copy_(p["L0.wo"].T)
            layer.self_attn.out_proj.bias.copy_(p["L0.bo"])
            layer.norm1.weight.copy_(p["L0.norm1.gain"])
            layer.norm1.bias.copy_(p["L0.norm1.bias"])
            layer.norm2.weight.copy_(p["L0.norm2.gain"])
            layer.norm2.bias.copy_(p["L0.norm2.bias"])
            layer.linear1.weight.copy_(p["L0.mlp.w1"].T)
            layer.linear1.bias.copy_(p["L0.mlp.b1"])
            layer.linear2.weight.copy_(p["L0.mlp.w2"].T)
            layer.linear2.bias.copy_(p["L0.mlp.b2"])
            mask = torch.triu(torch.full((6, 6), -math.inf), 1) if causal else None
            theirs = layer(ours["residual.0"].detach()[None], src_mask=mask)[0]
        diff = (theirs - ours["residual.1"].detach()).abs().max().item()
        assert diff < 1e-12, f"the oracle differs from nn.TransformerEncoderLayer by {diff}"
        print(f"oracle vs nn.TransformerEncoderLayer ({activation}, causal {causal}, d {d}, h {h}): {diff:.1e}")


def write_matrix(f, name, m, short=False):
    m = m.detach().numpy() if torch.is_tensor(m) else np.asarray(m, dtype=np.float64)
    if m.ndim == 1:
        m = m[None, :]
    f.write(f"{name} {m.shape[0]} {m.shape[1]}\n")
    # parameters are 3-decimal numbers; results are written to 15 significant digits (within
    # 5e-16 relative of torch's values, far inside the tests' 1e-12)
    fmt = (lambda v: repr(float(v))) if short else (lambda v: "-inf" if v == -math.inf else f"{v:.15g}")
    for row in m:
        f.write(" ".join(fmt(v) for v in row) + "\n")


def write_config(f, cfg):
    for key in ["vocab", "dModel", "maxTokens", "causal", "sinusoidal", "tied", "finalNorm", "unembedBias"]:
        f.write(f"option {key} {int(cfg[key])}\n")
    f.write(f"option layers {len(cfg['layers'])}\n")
    for l, lc in enumerate(cfg["layers"]):
        for key in ["heads", "norm1", "norm2", "mlp", "qkvBias", "bo", "b1", "b2"]:
            f.write(f"option L{l}.{key} {int(lc[key])}\n")
        f.write(f"option L{l}.activation {0 if lc['activation'] == 'gelu' else 1}\n")


def random_config(rng, i, layers, heads):
    """Case i of the covering: each flag alternates with i's bits, so every flag is seen both ways."""
    bit = lambda k: bool((i >> k) & 1) if i < 32 else bool(rng.integers(0, 2))
    d = int(rng.choice([4, 6]))
    cfg = {"dModel": d, "vocab": int(rng.integers(4, 7)), "maxTokens": int(rng.integers(4, 7)),
           "causal": bit(0), "sinusoidal": bit(1), "tied": bit(2), "finalNorm": bit(3), "unembedBias": bit(4),
           "layers": []}
    for l in range(layers):
        dk = int(rng.integers(1, 3))
        dk = 3 - dk if dk * heads == d else dk
        dv = dk + 1  # d_k != d_v, and d_k != dModel / h
        cfg["layers"].append({
            "heads": heads, "dk": dk, "dv": dv, "norm1": bit(l + 1) != bit(0), "norm2": bit(l + 2) == bit(3),
            "mlp": (i + l) % 4 != 3, "activation": "relu" if (i + l) % 2 else "gelu",
            "qkvBias": bit(l + 3) != bit(1), "bo": bit(l) == bit(4), "b1": (i + l) % 3 != 1, "b2": (i + l) % 3 != 2,
            "f": int(rng.integers(3, 7)),
        })
    return cfg


def random_targets(rng, n, vocab):
    targets = [int(t) for t in rng.integers(0, vocab, size=n)]
    targets[int(rng.integers(0, n))] = -1  # a position without a loss
    return targets


def write_case(f, rng, name, cfg, training=None):
    p = make_model(rng, cfg)
    n = int(rng.integers(3, cfg["maxTokens"] + 1))
    ids = [int(t) for t in rng.integers(0, cfg["vocab"], size=n)]
    targets = random_targets(rng, n, cfg["vocab"])
    f.write(f"case {name}\n")
    write_config(f, cfg)
    for key, value in p.items():
        write_matrix(f, key, value, short=True)
    write_matrix(f, "ids", ids, short=True)
    write_matrix(f, "targets", targets, short=True)
    out = forward(cfg, p, ids)
    for key, value in out.items():
        write_matrix(f, key, value)
    loss = loss_of(out["logits"], targets)
    loss.backward()
    write_matrix(f, "loss", [float(loss)])
    for key, value in p.items():
        write_matrix(f, "grad." + key, value.grad)
    if training is not None:
        optimizer_kind, lr, n_batches = training
        f.write(f"option train.optimizer {0 if optimizer_kind == 'sgd' else 1}\n")
        f.write(f"option train.learningRate {lr!r}\n")
        f.write(f"option train.batches {n_batches}\n")
        q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
        params = list(q.values())
        opt = torch.optim.SGD(params, lr=lr) if optimizer_kind == "sgd" else torch.optim.Adam(params, lr=lr)
        losses = []
        for b in range(n_batches):
            m = int(rng.integers(2, cfg["maxTokens"] + 1))
            b_ids = [int(t) for t in rng.integers(0, cfg["vocab"], size=m)]
            b_targets = random_targets(rng, m, cfg["vocab"])
            write_matrix(f, f"batch{b}.ids", b_ids, short=True)
            write_matrix(f, f"batch{b}.targets", b_targets, short=True)
            opt.zero_grad()
            loss = loss_of(forward(cfg, q, b_ids)["logits"], b_targets)
            loss.backward()
            opt.step()
            losses.append(float(loss))
        write_matrix(f, "trainLosses", losses)
        for key, value in q.items():
            write_matrix(f, "final." + key, value)
    f.write("end\n")


def main():
    rng = np.random.default_rng(35)
    check_oracle_against_encoder_layer(rng)
    path = os.path.join(FIXTURES, "model_cases.txt")
    with open(path, "w") as f:
        f.write(f"# Generated by tests/make_model_fixtures.py with torch {torch.__version__}; do not edit.\n")
        # (layers, heads): 1-4 layers, 1-8 heads; each case its own mix of the flags
        shapes = [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (1, 4), (3, 2), (1, 8), (4, 1), (2, 3), (1, 2), (3, 1),
                  (1, 5), (2, 1)]
        for i, (layers, heads) in enumerate(shapes):
            write_case(f, rng, f"model{i}_{layers}x{heads}", random_config(rng, i, layers, heads))
        trainings = [("adam", 0.01, 4), ("sgd", 0.1, 3), ("adam", 0.05, 3)]
        for i, training in enumerate(trainings):
            cfg = random_config(rng, 14 + 5 * i, 1 + i % 2, 2 + i % 2)
            write_case(f, rng, f"train{i}_{training[0]}", cfg, training)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
