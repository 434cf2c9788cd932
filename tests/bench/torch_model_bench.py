#!/usr/bin/python3
"""Times PyTorch (CPU, one thread, float64) on the models of scripts/bench.mjs's model section:
the forward pass (under no_grad) and one Adam step (zero_grad, forward, cross-entropy, backward,
step) of the very model and batch the engine gets, read from a JSON file in the engine's model
format (docs/api.md, "Models"; our layout x @ W). Only the bench needs torch (python3-torch).

Usage: torch_model_bench.py cases.json; the file holds [{name, model, ids, targets}]. Prints one
JSON line per case: {name, forward_ms, adam_step_ms, loss} (medians after warm-up).
"""
import json
import math
import statistics
import sys
import time

import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)


def tensor(value):
    return torch.tensor(value, requires_grad=True)


def parameters(model):
    """The model's arrays as leaf tensors, in a structure forward() reads."""
    p = {"embed": tensor(model["embed"])}
    if model["positions"] != "sinusoidal":
        p["positions"] = tensor(model["positions"])
    p["layers"] = []
    for layer in model["layers"]:
        out = {k: tensor(layer[k]) for k in ("wo", "bo") if k in layer}
        for norm in ("norm1", "norm2"):
            if norm in layer:
                out[norm] = (tensor(layer[norm]["gain"]), tensor(layer[norm]["bias"]))
        out["heads"] = [{k: tensor(v) for k, v in head.items()} for head in layer["heads"]]
        if "mlp" in layer:
            out["mlp"] = {k: tensor(v) for k, v in layer["mlp"].items() if k != "activation"}
            out["activation"] = layer["mlp"]["activation"]
        p["layers"].append(out)
    if "finalNorm" in model:
        p["finalNorm"] = (tensor(model["finalNorm"]["gain"]), tensor(model["finalNorm"]["bias"]))
    if model["unembed"] != "tied":
        p["unembed"] = tensor(model["unembed"])
    if "unembedBias" in model:
        p["unembedBias"] = tensor(model["unembedBias"])
    return p


def leaves(p):
    if torch.is_tensor(p):
        return [p]
    if isinstance(p, dict):
        return [t for v in p.values() for t in leaves(v)]
    if isinstance(p, (list, tuple)):
        return [t for v in p for t in leaves(v)]
    return []


def sinusoidal(n, d):
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / 10000.0 ** (two_i / d)
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d // 2])
    return pe


def layer_norm(x, norm):
    return torch.nn.functional.layer_norm(x, (x.shape[1],), norm[0], norm[1], eps=1e-5)


def forward(model, p, ids):
    n = len(ids)
    pos = sinusoidal(n, model["dModel"]) if "positions" not in p else p["positions"][:n]
    x = p["embed"][ids] + pos
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1) if model.get("causal") else None
    for layer in p["layers"]:
        a = layer_norm(x, layer["norm1"]) if "norm1" in layer else x
        outs = []
        for h in layer["heads"]:
            q = a @ h["wq"] + h.get("bq", 0)
            k = a @ h["wk"] + h.get("bk", 0)
            v = a @ h["wv"] + h.get("bv", 0)
            scaled = (q @ k.T) / math.sqrt(h["wq"].shape[1])
            if mask is not None:
                scaled = scaled.masked_fill(mask, -math.inf)
            outs.append(torch.softmax(scaled, dim=1) @ v)
        x = x + torch.cat(outs, dim=1) @ layer["wo"] + layer.get("bo", 0)
        if "mlp" in layer:
            m = layer_norm(x, layer["norm2"]) if "norm2" in layer else x
            mlp = layer["mlp"]
            hidden = m @ mlp["w1"] + mlp.get("b1", 0)
            act = torch.nn.functional.gelu(hidden) if layer["activation"] == "gelu" else torch.relu(hidden)
            x = x + act @ mlp["w2"] + mlp.get("b2", 0)
    f = layer_norm(x, p["finalNorm"]) if "finalNorm" in p else x
    u = p["embed"].T if "unembed" not in p else p["unembed"]
    return f @ u + p.get("unembedBias", 0)


def median_ms(fn):
    for _ in range(20):  # warm-up
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < 20 or (time.perf_counter() - start < 1.0 and len(times) < 500):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        model = case["model"]
        p = parameters(model)
        ids = torch.tensor(case["ids"])
        targets = torch.tensor(case["targets"])

        def run():
            with torch.no_grad():
                torch.softmax(forward(model, p, ids), dim=1)

        optimizer = torch.optim.Adam(leaves(p), lr=1e-3)

        def step():
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(forward(model, p, ids), targets, ignore_index=-1)
            loss.backward()
            optimizer.step()

        with torch.no_grad():
            loss = float(torch.nn.functional.cross_entropy(forward(model, p, ids), targets, ignore_index=-1))
        line = {"name": case["name"], "forward_ms": median_ms(run), "adam_step_ms": median_ms(step), "loss": loss}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
