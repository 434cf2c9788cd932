#!/usr/bin/python3
"""The Python package (hosts/python/attention_visualizer), as installed from the wheel: run by
tests/js/python-package.test.mjs with a fresh venv's python (torch from Debian's python3-torch,
seen through --system-site-packages). Needs torch: without it this file fails, saying so.

show_torch: the attributes it writes, read back from its markup, recompute torch's per-head
weights and attn_output to 1e-12 (float64) — the element's own numbers against torch are checked
in Chromium (tests/browser/python-notebook.test.mjs); every bad input raises an error naming
the argument. from_torch: with AV_CASES set, writes <AV_CASES>/models.json, each model with its
ids and torch's forward (float64), which the node test runs through the engine's runModel.
"""

import html.parser
import json
import math
import os
import sys
import tempfile
import unittest

try:
    import torch
    from torch import nn
except ImportError as error:  # the tests below need torch: fail, never skip
    sys.exit(f"tests/python/test_package.py needs torch: apt-get install python3-torch ({error})")

import attention_visualizer as av
from attention_visualizer import TinyGPT, from_torch, init, show, show_torch

torch.set_num_threads(1)


def attributes(view):
    """The element's attributes in a Visualizer's markup, JSON ones decoded."""
    found = {}

    class Parser(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "attention-visualizer":
                found.update(attrs)

    Parser().feed(view.markup)
    for name in ("x", "heads", "wo", "bo", "context", "tokens", "context-tokens"):
        if name in found:
            found[name] = json.loads(found[name])
    return found


def recompute(attrs):
    """Per-head weights (h, n_q, n_k) and the output (n_q, E) from the attributes alone (float64)."""
    def T(rows):
        return torch.tensor(rows, dtype=torch.float64)

    x = T(attrs["x"])
    c = T(attrs["context"]) if "context" in attrs else x
    weights, outputs = [], []
    for head in attrs["heads"]:
        q, k, v = x @ T(head["wq"]), c @ T(head["wk"]), c @ T(head["wv"])
        if "bq" in head:  # Q = X·W_Q + b_Q, each bias on every row
            q, k, v = q + T(head["bq"]), k + T(head["bk"]), v + T(head["bv"])
        s = q @ k.T / math.sqrt(q.shape[1])
        if attrs.get("causal") == "true":
            s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), -math.inf)
        if "key-padding" in attrs:
            s = s.masked_fill(torch.tensor([f == "true" for f in attrs["key-padding"].split(",")]), -math.inf)
        w = torch.softmax(s, dim=-1)
        weights.append(w)
        outputs.append(w @ v)
    output = torch.cat(outputs, dim=1) @ T(attrs["wo"])
    return torch.stack(weights), output + T(attrs["bo"]) if "bo" in attrs else output


def biggest(a, b):
    return (a - b).abs().max().item()


class Installed(unittest.TestCase):
    def test_imported_from_the_wheel_with_its_script(self):
        here = os.path.dirname(av.__file__)
        self.assertIn("site-packages", here)
        self.assertEqual(av.SCRIPT, os.path.join(here, "attention-visualizer.js"))
        with open(av.SCRIPT, encoding="utf-8") as f:
            self.assertIn("customElements.define('attention-visualizer'", f.read().replace('"', "'"))
        self.assertRegex(av.__version__, r"^\d+\.\d+\.\d+")


class Show(unittest.TestCase):
    def setUp(self):
        av._carrier = None

    def test_the_script_rides_in_the_first_output_only_and_every_output_says_when_it_is_missing(self):
        first, second = show(sentence="我爱你", lang="zh"), show(sentence="I love you", lang="en")
        a, b = first._repr_html_(), second._repr_html_()
        self.assertIn("customElements", a)
        self.assertNotIn("customElements", b)
        self.assertLess(len(b), 3000)
        self.assertIn("attention_visualizer.init()", b)
        self.assertIn("此页面上没有", a)
        self.assertIn("customElements", init()._repr_html_())

    def test_an_edit_reported_by_the_page_becomes_state_and_reaches_the_callbacks(self):
        import base64

        calls = []
        view = show(sentence="我爱你").on_change(calls.append)
        self.assertIsNone(view.state)
        html_text = view._repr_html_()
        key = view._key
        self.assertIn(f'id="av-{key}"', html_text)
        state = {"tokens": ["我", "爱", "你"], "view": {"step": "scale"}}
        av._edited(key, base64.b64encode(json.dumps(state, ensure_ascii=False).encode()).decode())
        self.assertEqual(view.state, state)
        self.assertEqual(calls, [state])
        av._edited("0" * 16, "e30=")  # an output of an earlier kernel: ignored
        self.assertEqual(len(calls), 1)

    def test_bad_keywords_name_themselves(self):
        with self.assertRaisesRegex(TypeError, "unknown attribute 'casual'"):
            show(casual=True)
        with self.assertRaisesRegex(ValueError, r"x\[1\]\[0\] is nan"):
            show(x=[[1.0, 0.0], [math.nan, 1.0]])

    def test_save_writes_a_standalone_page(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = show(sentence="我爱你", lang="zh").save(os.path.join(tmp, "page.html"))
            with open(path, encoding="utf-8") as f:
                page = f.read()
        self.assertTrue(page.startswith("<!doctype html>"))
        self.assertIn('<html lang="zh">', page)
        self.assertIn("customElements", page)
        self.assertNotIn("src=", page.split("<script>")[0])


class ShowTorch(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(37)

    def check(self, module, x, expect_x, **options):
        """show_torch's attributes recompute module(x)'s per-head weights and output to 1e-12."""
        view = show_torch(module, x, **options)
        attrs = attributes(view)
        key = options.get("key", x)
        masks = {k: v for k, v in options.items() if k in ("attn_mask", "key_padding_mask")}
        with torch.no_grad():
            out, w = module(x, key, key, average_attn_weights=False, **masks)
        if module.batch_first and x.dim() == 3:
            out, w = out[0], w[0]
        elif x.dim() == 3:
            out, w = out[:, 0], w[0]
        if w.dim() == 4:
            w = w[0]
        weights, output = recompute(attrs)
        self.assertLess(biggest(weights, w.double()), 1e-12)
        self.assertLess(biggest(output, out.double()), 1e-12)
        self.assertEqual(attrs["x"], expect_x.double().tolist())
        return view, attrs

    def test_bias_false_any_heads_and_each_layout_of_x(self):
        for heads in (1, 2, 4):
            m = nn.MultiheadAttention(8, heads, bias=False).double().eval()
            x = torch.randn(5, 8, dtype=torch.float64)
            _, attrs = self.check(m, x, x, tokens=list("abcde"))
            self.assertEqual(len(attrs["heads"]), heads)
            self.assertEqual(len(attrs["heads"][0]["wq"]), 8)  # d_model × d_k, d_k = 8 / heads
            self.assertEqual(len(attrs["heads"][0]["wq"][0]), 8 // heads)
            self.assertEqual(attrs["tokens"], list("abcde"))
            _, attrs = self.check(m, x[:, None], x)  # (n, 1, E): batch_first=False
            self.assertEqual(attrs["tokens"], ["0", "1", "2", "3", "4"])  # positions, not the element's example
        m = nn.MultiheadAttention(6, 3, bias=False, batch_first=True).double().eval()
        x = torch.randn(1, 4, 6, dtype=torch.float64)
        self.check(m, x, x[0])

    def test_masks_pass_through(self):
        m = nn.MultiheadAttention(4, 2, bias=False).double().eval()
        x = torch.randn(4, 4, dtype=torch.float64)
        causal = torch.ones(4, 4, dtype=torch.bool).triu(1)
        _, attrs = self.check(m, x, x, attn_mask=causal)
        self.assertEqual(attrs["causal"], "true")
        self.check(m, x, x, attn_mask=torch.zeros(4, 4, dtype=torch.float64).masked_fill(causal, -math.inf))
        _, attrs = self.check(m, x, x, key_padding_mask=torch.tensor([False, False, True, False]))
        self.assertEqual(attrs["key-padding"], "false,false,true,false")
        _, attrs = self.check(m, x[:, None], x, key_padding_mask=torch.tensor([[True, False, False, False]]))  # (batch, S)
        self.assertEqual(attrs["key-padding"], "true,false,false,false")
        self.assertEqual(attributes(show_torch(m, x, is_causal=True))["causal"], "true")

    def test_cross_attention_with_kdim(self):
        m = nn.MultiheadAttention(4, 2, bias=False, kdim=3, vdim=3).double().eval()
        x, key = torch.randn(2, 4, dtype=torch.float64), torch.randn(5, 3, dtype=torch.float64)
        _, attrs = self.check(m, x, x, key=key, context_tokens=list("vwxyz"))
        self.assertEqual(attrs["context"], key.tolist())
        self.assertEqual(attrs["context-tokens"], list("vwxyz"))

    def test_biases_go_with_their_heads(self):
        for kdim in (None, 3):  # self-attention, and cross-attention with kdim = vdim = 3
            m = nn.MultiheadAttention(4, 2, kdim=kdim, vdim=kdim).double().eval()  # bias=True, the default
            with torch.no_grad():  # torch starts its biases at zero: make them count
                m.in_proj_bias.copy_(torch.randn(12, dtype=torch.float64))
                m.out_proj.bias.copy_(torch.randn(4, dtype=torch.float64))
            x = torch.randn(3, 4, dtype=torch.float64)
            key = torch.randn(5, 3, dtype=torch.float64) if kdim else None
            options = {"key": key} if kdim else {}
            _, attrs = self.check(m, x, x, key_padding_mask=torch.tensor([False, True, False] + [False] * (2 if kdim else 0)), **options)
            # head 1's b_Q: entries 2, 3 of the first third of in_proj_bias; b_V: of the last third
            self.assertEqual(attrs["heads"][1]["bq"], m.in_proj_bias[2:4].tolist())
            self.assertEqual(attrs["heads"][1]["bv"], m.in_proj_bias[10:12].tolist())
            self.assertEqual(attrs["bo"], m.out_proj.bias.tolist())
            self.check(m, x, x, attn_mask=torch.ones(3, 5 if kdim else 3, dtype=torch.bool).triu(1), **options)
        m = nn.MultiheadAttention(4, 2, bias=False).double().eval()
        attrs = attributes(show_torch(m, torch.randn(3, 4, dtype=torch.float64)))
        self.assertNotIn("bq", attrs["heads"][0])  # bias=False: no biases at all
        self.assertNotIn("bo", attrs)

    def test_float32_is_shown_as_float64_of_its_values_and_says_so(self):
        m = nn.MultiheadAttention(4, 2, bias=False).eval()
        x = torch.randn(3, 4)
        view = show_torch(m, x, lang="en")
        attrs = attributes(view)
        self.assertEqual(attrs["x"], x.double().tolist())
        self.assertEqual(attrs["wo"], m.out_proj.weight.T.double().tolist())
        self.assertIn("float32", view.caption)
        self.assertIn("float64", view.caption)
        self.assertIn("float32", view._repr_html_())
        weights, output = recompute(attrs)
        with torch.no_grad():
            out, w = m.double()(x.double(), x.double(), x.double(), average_attn_weights=False)
        self.assertLess(biggest(weights, w), 1e-12)
        self.assertLess(biggest(output, out), 1e-12)

    def test_every_bad_input_names_its_argument(self):
        m = nn.MultiheadAttention(4, 2, bias=False).double().eval()
        x = torch.randn(3, 4, dtype=torch.float64)
        cases = [
            (TypeError, "^module must be a torch.nn.MultiheadAttention, got Linear", lambda: show_torch(nn.Linear(4, 4), x)),
            (TypeError, r"TransformerEncoderLayer.*\.self_attn", lambda: show_torch(nn.TransformerEncoderLayer(4, 2), x)),
            (ValueError, r"^x has shape \(3, 2, 4\).*batch of 2", lambda: show_torch(m, torch.randn(3, 2, 4, dtype=torch.float64))),
            (ValueError, r"^x has shape \(2, 3, 4\).*batch of 2.*pass x\[0\]",
             lambda: show_torch(nn.MultiheadAttention(4, 2, bias=False, batch_first=True), torch.randn(2, 3, 4))),
            (ValueError, "^x has 5 features per token but the module's embed_dim is 4", lambda: show_torch(m, torch.randn(3, 5))),
            (ValueError, r"^x has shape \(4,\)", lambda: show_torch(m, torch.randn(4))),
            (ValueError, "^kdim", lambda: show_torch(nn.MultiheadAttention(4, 2, bias=False, kdim=3, vdim=2), x, key=torch.randn(2, 3))),
            (ValueError, "^key: ", lambda: show_torch(nn.MultiheadAttention(4, 2, bias=False, kdim=3, vdim=3), x)),
            (ValueError, "^value must be the same as key", lambda: show_torch(m, x, key=x, value=x + 1)),
            (ValueError, "^attn_mask", lambda: show_torch(m, x, attn_mask=torch.zeros(3, 3, dtype=torch.bool).fill_diagonal_(True))),
            (ValueError, "^key_padding_mask has shape", lambda: show_torch(m, x, key_padding_mask=torch.tensor([False, True]))),
            (ValueError, "^add_bias_kv", lambda: show_torch(nn.MultiheadAttention(4, 2, bias=False, add_bias_kv=True), x)),
            (ValueError, "^dropout", lambda: show_torch(nn.MultiheadAttention(4, 2, bias=False, dropout=0.1), x)),
            (TypeError, "^heads comes from the module", lambda: show_torch(m, x, heads=[])),
            (ValueError, "^x must hold finite", lambda: show_torch(m, torch.full((3, 4), math.inf))),
            (ValueError, "^tokens has 2 entries but x has 3 tokens", lambda: show_torch(m, x, tokens=["a", "b"])),
        ]
        for error, message, call in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(error, message):
                    call()


def encoder_layer(d, h, f, activation):
    layer = nn.TransformerEncoderLayer(d, h, dim_feedforward=f, dropout=0.0, activation=activation, norm_first=True, batch_first=True)
    with torch.no_grad():  # torch starts biases and norms at 0 and 1: make every parameter count
        for p in layer.parameters():
            p.add_(torch.randn_like(p) * 0.2)
    return layer


class FromTorch(unittest.TestCase):
    def test_models_and_torch_forward_for_the_engine(self):
        torch.manual_seed(12)
        cases = []

        def residuals(layers, run):
            seen = []
            hooks = [layer.register_forward_hook(lambda _m, _i, out: seen.append(out.detach().clone())) for layer in layers]
            with torch.no_grad():
                result = run()
            for hook in hooks:
                hook.remove()
            return result, seen

        # an encoder stack with a final norm, causal, relu then gelu layers; x batched (1, n, d)
        layers = [encoder_layer(6, 2, 10, "relu"), encoder_layer(6, 3, 8, "gelu")]
        stack = nn.TransformerEncoder(layers[0], 2, norm=nn.LayerNorm(6), enable_nested_tensor=False).double().eval()
        stack.layers[1] = layers[1].double()
        with torch.no_grad():
            stack.norm.weight.add_(torch.randn(6, dtype=torch.float64) * 0.2)
        x = torch.randn(1, 5, 6, dtype=torch.float64)
        mask = torch.full((5, 5), -math.inf, dtype=torch.float64).triu(1)
        out, seen = residuals(stack.layers, lambda: stack(x, mask=mask))
        model = from_torch(stack, x=x, tokens=list("abcde"), causal=True)
        self.assertEqual(model["vocab"], list("abcde"))
        cases.append({"name": "TransformerEncoder(2 layers, norm, causal)", "model": model, "ids": list(range(5)),
                      "residual": [x[0].tolist()] + [s[0].tolist() for s in seen], "finalInput": out[0].tolist()})
        # one layer alone, not causal
        layer = encoder_layer(4, 1, 6, "gelu").double().eval()
        x = torch.randn(3, 4, dtype=torch.float64)
        with torch.no_grad():
            out = layer(x[None])[0]
        cases.append({"name": "TransformerEncoderLayer", "model": from_torch(layer, x=x), "ids": [0, 1, 2],
                      "residual": [x.tolist(), out.tolist()]})
        # TinyGPT, tied and free unembedding
        for tied in (True, False):
            gpt = TinyGPT(vocab_size=7, d_model=8, n_heads=2, n_layers=2, max_tokens=6, dim_feedforward=12, tied=tied).double().eval()
            with torch.no_grad():
                for p in gpt.parameters():
                    p.add_(torch.randn_like(p) * 0.1)
            ids = torch.tensor([3, 1, 4, 1, 5, 6])
            logits, seen = residuals(gpt.layers, lambda: gpt(ids))
            model = from_torch(gpt, vocab=list("abcdefg"))
            self.assertEqual(model["unembed"] == "tied", tied)
            self.assertTrue(model["causal"])
            cases.append({"name": f"TinyGPT(tied={tied})", "model": model, "ids": ids.tolist(),
                          "residual": [(gpt.embed(ids) + gpt.positions(torch.arange(6))).tolist()] + [s.tolist() for s in seen],
                          "logits": logits.tolist()})
        json.dumps(cases, allow_nan=False)
        if os.environ.get("AV_CASES"):
            with open(os.path.join(os.environ["AV_CASES"], "models.json"), "w", encoding="utf-8") as f:
                json.dump(cases, f)

    def test_bad_modules_name_the_argument(self):
        x = torch.randn(3, 4, dtype=torch.float64)
        post = nn.TransformerEncoderLayer(4, 2, dropout=0.0)
        cases = [
            (ValueError, "^module: norm_first must be True", lambda: from_torch(post, x=x)),
            (TypeError, "^module must be an nn.TransformerEncoderLayer", lambda: from_torch(nn.Linear(4, 4), x=x)),
            (TypeError, "^x: an encoder stack", lambda: from_torch(encoder_layer(4, 2, 6, "relu"))),
            (ValueError, "^tokens has 2 entries", lambda: from_torch(encoder_layer(4, 2, 6, "relu"), x=x, tokens=["a", "b"])),
            (ValueError, r"^module is in training mode", lambda: from_torch(nn.TransformerEncoderLayer(4, 2, norm_first=True), x=x)),
            (ValueError, r"^module.activation must be relu or gelu",
             lambda: from_torch(nn.TransformerEncoderLayer(4, 2, dropout=0.0, activation=torch.tanh, norm_first=True), x=x)),
            (ValueError, "^vocab has 2 tokens", lambda: from_torch(TinyGPT(5, 4, 2, 1, 3, 6), vocab=["a", "b"])),
        ]
        for error, message, call in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(error, message):
                    call()


if __name__ == "__main__":
    unittest.main()
