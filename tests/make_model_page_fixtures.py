#!/usr/bin/python3
"""Writes tests/fixtures/model_page_cases.json: the shipped models (web/models/*.json) run by numpy on
sentences a learner types, independently of the engine and of the page's tokenizer, which the page's
browser tests (tests/browser/models-page.test.mjs) compare with: each token's id (-1 unknown), the
ids run (an unknown token as its stand-in: the start token, else vocab[0]), and for every layer its
input after LayerNorm (norm1) and every head's weights (also with the chosen head switched off:
allWeightsOff, its output taken as 0, so the later layers change), the chosen head's q, k, v,
scores and output, and the top-5 next tokens at each position; and (`ablated`) a later layer's
input and one of its heads with an earlier head switched off (runModel's headsOff).

Run with Debian's numpy:   /usr/bin/python3 tests/make_model_page_fixtures.py

The forward pass (pre-norm, attention only, as the shipped models are):
    x0 = embed[ids] + positions[:n]
    per layer: a = LN(x; norm1); head h: softmax(mask(a Wq (a Wk)^T / sqrt(d_k))) a Wv;
               x = x + concat(heads) Wo
    logits = LN(x; finalNorm) U   (U = embed^T when tied)
LN: (x - mean) / sqrt(biased var + 1e-5) * gain + bias. Causal: key j <= query i.
The tokenizers, as the model file's `tokenizer` says (scripts/train-models.mjs):
    words           words of letters/digits (an inner apostrophe kept), lowercased
    words-and-han   each Han character its own token; words; any other mark its own token
    characters      every character but spaces
"""
import json
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "web", "models")
OUT = os.path.join(HERE, "fixtures", "model_page_cases.json")

CASES = [
    # (model, sentence, layer, head)  layer and head 0-based
    ("learner-words", "I love you", 1, 2),
    ("learner-words", "I love zebras", 0, 0),
    ("learner-words", "我爱你", 1, 3),
    ("animal-street", "The animal didn't cross the street because it was too tired", 1, 1),
    ("induction", "ABCDEFABCD", 1, 0),
]

# A head switched off (runModel's headsOff: its output enters the concatenation as 0) and a later
# layer's head shown: (model, sentence, (off layer, off head), shown layer, shown head).
ABLATED = [
    ("learner-words", "我爱你", (0, 0), 1, 3),
    ("animal-street", "The animal didn't cross the street because it was too tired", (0, 2), 1, 1),
]

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
WORD = r"[^\W_]+(?:'[^\W_]+)*"


def tokenize(model, text):
    spec = model["tokenizer"]
    text = re.sub("[\u2019\u2018`\u00b4]", "'", text)
    if spec.get("lowercase"):
        text = text.lower()
    if spec["kind"] == "characters":
        pieces = [ch for ch in text if not ch.isspace()]
    elif spec["kind"] == "words":
        pieces = re.findall(WORD, text)
    else:
        pieces = re.findall(WORD + r"|\S", HAN.sub(lambda m: " " + m.group(0) + " ", text))
    start = spec.get("start")
    if start in model["vocab"]:
        pieces = [start] + pieces
    return pieces


def layer_norm(x, p):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * np.array(p["gain"]) + np.array(p["bias"])


def softmax(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(model, ids, heads_off=()):
    n = len(ids)
    embed = np.array(model["embed"])
    x = embed[ids] + np.array(model["positions"])[:n]
    mask = np.triu(np.ones((n, n), dtype=bool), 1) if model["causal"] else np.zeros((n, n), dtype=bool)
    layers = []
    for li, layer in enumerate(model["layers"]):
        a = layer_norm(x, layer["norm1"]) if "norm1" in layer else x
        heads = []
        outs = []
        for hi, head in enumerate(layer["heads"]):
            q = a @ np.array(head["wq"])
            k = a @ np.array(head["wk"])
            v = a @ np.array(head["wv"])
            scores = q @ k.T
            scaled = np.where(mask, -np.inf, scores / np.sqrt(q.shape[1]))
            w = softmax(scaled)
            out = w @ v
            heads.append({"q": q, "k": k, "v": v, "scores": scores, "weights": w, "output": out})
            outs.append(np.zeros_like(out) if (li, hi) in heads_off else out)
        x = x + np.concatenate(outs, axis=1) @ np.array(layer["wo"])
        layers.append({"input": a, "heads": heads})
    f = layer_norm(x, model["finalNorm"]) if "finalNorm" in model else x
    unembed = embed.T if model["unembed"] == "tied" else np.array(model["unembed"])
    return layers, softmax(f @ unembed)


def top5(model, probs):
    rows = []
    for row in probs:
        order = np.argsort(-row, kind="stable")[:5]
        rows.append([[model["vocab"][i], float(row[i])] for i in order])
    return rows


def main():
    cases = []
    for name, sentence, layer, head in CASES:
        with open(os.path.join(MODELS, name + ".json"), encoding="utf-8") as f:
            model = json.load(f)
        tokens = tokenize(model, sentence)[: model["maxTokens"]]
        vocab = {t: i for i, t in enumerate(model["vocab"])}
        start = model["tokenizer"].get("start")
        stand_in = vocab[start] if start in vocab else 0
        known = [vocab.get(t, -1) for t in tokens]
        ids = [i if i >= 0 else stand_in for i in known]
        layers, probs = forward(model, ids)
        layers_off, probs_off = forward(model, ids, heads_off={(layer, head)})
        h = layers[layer]["heads"][head]
        cases.append({
            "model": name, "sentence": sentence, "layer": layer, "head": head,
            "tokens": tokens, "known": known, "ids": ids,
            "input": layers[layer]["input"].tolist(),
            "q": h["q"].tolist(), "k": h["k"].tolist(), "v": h["v"].tolist(),
            "scores": h["scores"].tolist(), "weights": h["weights"].tolist(), "output": h["output"].tolist(),
            "allWeights": [[hd["weights"].tolist() for hd in l["heads"]] for l in layers],
            "allWeightsOff": [[hd["weights"].tolist() for hd in l["heads"]] for l in layers_off],
            "top5": top5(model, probs), "top5Off": top5(model, probs_off),
        })
    ablated = []
    for name, sentence, off, layer, head in ABLATED:
        with open(os.path.join(MODELS, name + ".json"), encoding="utf-8") as f:
            model = json.load(f)
        tokens = tokenize(model, sentence)[: model["maxTokens"]]
        vocab = {t: i for i, t in enumerate(model["vocab"])}
        ids = [vocab[t] for t in tokens]  # (every token known)
        layers, _ = forward(model, ids, heads_off={off})
        full, _ = forward(model, ids)
        h = layers[layer]["heads"][head]
        ablated.append({
            "model": name, "sentence": sentence, "off": {"layer": off[0], "head": off[1]}, "layer": layer, "head": head,
            "tokens": tokens, "input": layers[layer]["input"].tolist(),
            "q": h["q"].tolist(), "k": h["k"].tolist(), "v": h["v"].tolist(),
            "scores": h["scores"].tolist(), "weights": h["weights"].tolist(), "output": h["output"].tolist(),
            "inputChange": float(np.abs(layers[layer]["input"] - full[layer]["input"]).max()),
        })
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"generator": "tests/make_model_page_fixtures.py", "cases": cases, "ablated": ablated}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
