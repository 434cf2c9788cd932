"""PyTorch to the element and to the engine's model format (torch is imported here only).

show_torch(module, x, ...): an nn.MultiheadAttention's heads on one sequence, as the element shows
them: the per-head weights and attn_output equal torch's (average_attn_weights=False) in float64.
from_torch(module, ...): an nn.TransformerEncoderLayer(norm_first=True) stack, or a TinyGPT (the
GPT-style module below), as the engine's model JSON (docs/api.md, "Models"), so that the engine's
runModel equals the module's forward.

Layouts: torch's Linear computes x·Wᵀ, the engine x·W: every matrix is transposed, and head h of
W_Q is rows h·d_k … (h+1)·d_k − 1 of torch's (E × E) query weight.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

from . import _element, _texts


def _values(t):
    """A tensor's values as float64 lists (a float32 value is written as the float64 it equals)."""
    return t.detach().cpu().to(torch.float64).tolist()


def _sequence(name, value, batch_first, width, width_name):
    """One sequence (n, width) from x as the module takes it: (n, d), or batched with a batch of 1."""
    if not torch.is_tensor(value):
        try:
            value = torch.as_tensor(value, dtype=torch.float64)
        except (TypeError, ValueError, RuntimeError) as error:
            raise ValueError(f"{name} must be a tensor or an array of numbers: {error} · {name} 必须是张量或数字数组") from error
    shape = tuple(value.shape)
    if value.dim() == 3:
        batch = shape[0] if batch_first else shape[1]
        if batch != 1:
            layout = "(batch, n, d)" if batch_first else "(n, batch, d)"
            pick = f"{name}[0]" if batch_first else f"{name}[:, 0]"
            raise ValueError(
                f"{name} has shape {shape}, {layout} with batch_first={batch_first}: a batch of {batch} sequences; "
                f"show_torch shows one: pass {pick} · {name} 的形状是 {shape}，含 {batch} 个序列；只能显示一个：请传入 {pick}"
            )
        value = value[0] if batch_first else value[:, 0]
    elif value.dim() != 2:
        raise ValueError(f"{name} has shape {shape}: it must be (n, d), (1, n, d) or (n, 1, d) · {name} 的形状 {shape} 不对")
    if value.shape[0] == 0:
        raise ValueError(f"{name} has no tokens (shape {shape}) · {name} 没有词元")
    if value.shape[1] != width:
        raise ValueError(
            f"{name} has {value.shape[1]} features per token but the module's {width_name} is {width} · "
            f"{name} 每个词元有 {value.shape[1]} 个值，但模块的 {width_name} 是 {width}"
        )
    if not value.is_floating_point() or not torch.isfinite(value).all():
        raise ValueError(f"{name} must hold finite floating-point numbers · {name} 必须是有限的浮点数")
    return value


def _key_padding(mask, n_k):
    """key_padding_mask, (S,) or (1, S), bool (True = ignore) or float (0 or -inf), as one flag per key."""
    if not torch.is_tensor(mask):
        mask = torch.as_tensor(mask)
    if mask.dim() == 2 and mask.shape[0] == 1:
        mask = mask[0]
    if mask.dim() != 1 or mask.shape[0] != n_k:
        raise ValueError(f"key_padding_mask has shape {tuple(mask.shape)}: it must be ({n_k},) or (1, {n_k}) · key_padding_mask 的形状不对")
    if mask.dtype == torch.bool:
        return mask.tolist()
    if mask.is_floating_point() and bool(((mask == 0) | (mask == -math.inf)).all()):
        return (mask == -math.inf).tolist()
    raise ValueError("key_padding_mask must be boolean (True = ignore that key) or 0/-inf · key_padding_mask 必须是布尔值或 0/-inf")


def _is_causal_mask(mask, n_q, n_k, heads):
    """Whether attn_mask is the causal mask (True, or -inf, exactly above the diagonal)."""
    if not torch.is_tensor(mask):
        mask = torch.as_tensor(mask)
    if mask.dim() == 3 and mask.shape[0] in (1, heads):
        if not all(torch.equal(mask[0], m) for m in mask):
            return False
        mask = mask[0]
    if tuple(mask.shape) != (n_q, n_k):
        return False
    above = torch.ones(n_q, n_k, dtype=torch.bool).triu(1)
    if mask.dtype == torch.bool:
        return torch.equal(mask, above)
    if mask.is_floating_point():
        return bool(((mask == -math.inf) == above).all() and (mask[~above] == 0).all())
    return False


def _names(given, n, name, what):
    """The tokens' names: given, else their positions (never the element's own example sentence)."""
    if given is None:
        return [str(i) for i in range(n)]
    given = [str(t) for t in given]
    if len(given) != n:
        raise ValueError(f"{name} has {len(given)} entries but {what} has {n} tokens · {name} 的个数与 {what} 的词元数不同")
    return given


def show_torch(module, x, tokens=None, key=None, value=None, context_tokens=None,
               attn_mask=None, key_padding_mask=None, is_causal=False, **attributes):
    """An nn.MultiheadAttention on x (and on key for cross-attention), step by step: a Visualizer.

    x as the module takes it: (n, E), or (1, n, E) with batch_first=True, (n, 1, E) without.
    key (= value): the keys' and values' sequence, (S, kdim) likewise; kdim must equal vdim.
    attn_mask: only the causal mask; key_padding_mask: (S,) or (1, S); is_causal=True: causal.
    bias=True (the default): each head's b_Q, b_K, b_V (its entries of in_proj_bias) and b_O
    (out_proj.bias) go with it, shown as Q = X·W_Q + b_Q and output = concat·W_O + b_O."""
    if not isinstance(module, nn.MultiheadAttention):
        hint = " (for a TransformerEncoderLayer, pass its .self_attn)" if hasattr(module, "self_attn") else ""
        raise TypeError(
            f"module must be a torch.nn.MultiheadAttention, got {type(module).__name__}{hint} · "
            f"module 必须是 torch.nn.MultiheadAttention，而不是 {type(module).__name__}"
        )
    taken = sorted({"x", "heads", "wq", "wk", "wv", "wo", "bo", "context", "causal", "key_padding"} & set(attributes))
    if taken:
        raise TypeError(f"{taken[0]} comes from the module and x, not from a keyword · {taken[0]} 由模块与 x 决定")
    if module.bias_k is not None or module.add_zero_attn:
        name = "add_bias_kv" if module.bias_k is not None else "add_zero_attn"
        raise ValueError(f"{name}=True is not supported: the element has no extra key/value rows · 不支持 {name}=True")
    if module.training and module.dropout > 0:
        raise ValueError(
            f"dropout: the module is in training mode with dropout={module.dropout}, so its weights are random; call module.eval() · "
            f"dropout：模块处于训练模式，请先调用 module.eval()"
        )
    if module.kdim != module.vdim:
        raise ValueError(
            f"kdim ({module.kdim}) differs from vdim ({module.vdim}): the element takes keys and values from one sequence · "
            f"kdim（{module.kdim}）与 vdim（{module.vdim}）不同：元素的键和值来自同一个序列"
        )
    E, h = module.embed_dim, module.num_heads
    d = E // h
    q = _sequence("x", x, module.batch_first, E, "embed_dim")
    cross = key is not None
    if value is not None and (key is None or not (value is key or torch.equal(torch.as_tensor(value), torch.as_tensor(key)))):
        raise ValueError("value must be the same as key: the element takes keys and values from one sequence · value 必须与 key 相同")
    if not cross and module.kdim != E:
        raise ValueError(f"key: this module has kdim={module.kdim} ≠ embed_dim={E}, so it needs key (the keys' and values' sequence) · 需要 key")
    c = _sequence("key", key, module.batch_first, module.kdim, "kdim") if cross else q
    if module._qkv_same_embed_dim:
        wq, wk, wv = module.in_proj_weight.chunk(3)
    else:
        wq, wk, wv = module.q_proj_weight, module.k_proj_weight, module.v_proj_weight
    # head i: rows i·d … (i+1)·d − 1 of torch's (out × in) weights, transposed to (in × d)
    rows = [slice(i * d, (i + 1) * d) for i in range(h)]
    heads = [{"wq": _values(wq[r].T), "wk": _values(wk[r].T), "wv": _values(wv[r].T)} for r in rows]
    if module.in_proj_bias is not None:  # bias=True: head i's entries of each third of in_proj_bias
        bq, bk, bv = module.in_proj_bias.chunk(3)
        for head, r in zip(heads, rows):
            head.update(bq=_values(bq[r]), bk=_values(bk[r]), bv=_values(bv[r]))
    bo = _values(module.out_proj.bias) if module.out_proj.bias is not None else None
    n_q, n_k = q.shape[0], c.shape[0]
    causal = bool(is_causal)
    if attn_mask is not None:
        if not _is_causal_mask(attn_mask, n_q, n_k, h):
            raise ValueError(
                "attn_mask: only the causal mask (True or -inf above the diagonal) can be shown; the element has causal "
                "and key padding masks only · attn_mask：只能显示因果掩码"
            )
        causal = True
    padding = _key_padding(key_padding_mask, n_k) if key_padding_mask is not None else None
    wide = [t for t in (q, c, wq, module.out_proj.weight) if t.dtype != torch.float64]
    caption = None
    if wide:
        kind = str(wide[0].dtype).replace("torch.", "")
        caption = {
            "en": f"The module and x are {kind}: shown as the float64 numbers their values are, computed here in float64 "
                  f"(torch's own {kind} results differ from these by its rounding).",
            "zh": f"模块与 x 是 {kind}：这里以它们数值的 float64 显示并以 float64 计算（torch 的 {kind} 结果与之相差其舍入误差）。",
        }
    tokens = _names(tokens, n_q, "tokens", "x")
    context_tokens = _names(context_tokens, n_k, "context_tokens", "key") if cross else None
    text = _texts(caption, attributes.get("lang")) if caption else None
    return _element(dict(
        attributes,
        tokens=tokens, x=_values(q), heads=heads, wo=_values(module.out_proj.weight.T), bo=bo,
        context=_values(c) if cross else None, context_tokens=context_tokens,
        causal=True if causal else None, key_padding=padding,
    ), caption=text)


class TinyGPT(nn.Module):
    """The GPT-style module from_torch takes: token and learned position embeddings, pre-norm layers
    (nn.TransformerEncoderLayer(norm_first=True, batch_first=True), causal), a final LayerNorm and
    an unembedding (the embedding's transpose when tied). forward(ids) → logits (n, vocab_size)."""

    def __init__(self, vocab_size, d_model, n_heads, n_layers, max_tokens, dim_feedforward, activation="gelu", tied=True, causal=True):
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(vocab_size, d_model)
        self.positions = nn.Embedding(max_tokens, d_model)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward, dropout=0.0, activation=activation, norm_first=True, batch_first=True)
            for _ in range(n_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.unembed = None if tied else nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        n = ids.shape[-1]
        x = self.embed(ids) + self.positions(torch.arange(n))
        mask = torch.full((n, n), -math.inf, dtype=x.dtype).triu(1) if self.causal else None
        for layer in self.layers:
            x = layer(x, src_mask=mask)
        x = self.norm(x)
        return x @ self.embed.weight.T if self.unembed is None else self.unembed(x)


def _norm(norm, where):
    if not isinstance(norm, nn.LayerNorm) or norm.eps != 1e-5 or not norm.elementwise_affine:
        raise ValueError(f"{where} must be an nn.LayerNorm with eps=1e-5 and its gain and bias · {where} 必须是 eps=1e-5 的 nn.LayerNorm")
    return {"gain": _values(norm.weight), "bias": _values(norm.bias)}


def _activation(layer, where):
    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU):
        return "relu"
    if act is F.gelu or (isinstance(act, nn.GELU) and act.approximate == "none"):
        return "gelu"
    raise ValueError(f"{where}.activation must be relu or gelu (exact) · {where}.activation 必须是 relu 或 gelu")


def _layer(layer, where):
    """One nn.TransformerEncoderLayer(norm_first=True) as a layer of the engine's format."""
    if not isinstance(layer, nn.TransformerEncoderLayer):
        raise TypeError(f"{where} must be an nn.TransformerEncoderLayer, got {type(layer).__name__} · {where} 必须是 nn.TransformerEncoderLayer")
    if not layer.norm_first:
        raise ValueError(f"{where}: norm_first must be True (the engine's layers are pre-norm) · {where}：norm_first 必须为 True")
    if layer.training and (layer.dropout.p > 0 or layer.dropout1.p > 0 or layer.dropout2.p > 0):
        raise ValueError(f"{where} is in training mode with dropout: call module.eval() · {where} 处于训练模式，请先调用 module.eval()")
    attn = layer.self_attn
    E, h = attn.embed_dim, attn.num_heads
    d = E // h
    wq, wk, wv = attn.in_proj_weight.chunk(3)
    bq, bk, bv = attn.in_proj_bias.chunk(3) if attn.in_proj_bias is not None else (None, None, None)
    heads = []
    for i in range(h):
        rows = slice(i * d, (i + 1) * d)
        head = {"wq": _values(wq[rows].T), "wk": _values(wk[rows].T), "wv": _values(wv[rows].T)}
        if bq is not None:
            head.update(bq=_values(bq[rows]), bk=_values(bk[rows]), bv=_values(bv[rows]))
        heads.append(head)
    out = {"norm1": _norm(layer.norm1, f"{where}.norm1"), "heads": heads, "wo": _values(attn.out_proj.weight.T)}
    if attn.out_proj.bias is not None:
        out["bo"] = _values(attn.out_proj.bias)
    out["norm2"] = _norm(layer.norm2, f"{where}.norm2")
    mlp = {"w1": _values(layer.linear1.weight.T), "w2": _values(layer.linear2.weight.T), "activation": _activation(layer, where)}
    if layer.linear1.bias is not None:
        mlp["b1"] = _values(layer.linear1.bias)
    if layer.linear2.bias is not None:
        mlp["b2"] = _values(layer.linear2.bias)
    out["mlp"] = mlp
    return out


def from_torch(module, x=None, tokens=None, vocab=None, causal=None):
    """The engine's model JSON (a dict) for
    - a TinyGPT (or any module with its attributes: embed, positions, layers, norm, unembed, causal):
      vocab names its tokens (default "0", "1", …); runModel(model, ids).logits = module(ids);
    - an nn.TransformerEncoderLayer(norm_first=True), an nn.TransformerEncoder of them (its norm
      becomes finalNorm) or a list of them, with x (n, d), the stack's input: it has no embedding,
      so each row of x is a token of its own (vocab = tokens, default "0" … "n−1"; embed = x;
      positions zero; unembedding tied, its logits meaningless), and
      runModel(model, range(n)).residual[-1] = module(x) (finalInput with a final norm).
    causal: the layers' mask (the stack's src_mask); TinyGPT's own by default."""
    if all(hasattr(module, a) for a in ("embed", "positions", "layers", "norm", "unembed")):
        if x is not None or tokens is not None:
            raise TypeError("x and tokens are for an encoder stack; a GPT-style module takes vocab · GPT 式模块只接受 vocab")
        vocab_size, d_model = module.embed.weight.shape
        names = [str(i) for i in range(vocab_size)] if vocab is None else [str(t) for t in vocab]
        if len(names) != vocab_size:
            raise ValueError(f"vocab has {len(names)} tokens but the module's embed has {vocab_size} · vocab 的长度不对")
        model = {
            "vocab": names, "dModel": d_model, "maxTokens": module.positions.weight.shape[0],
            "causal": bool(module.causal if causal is None else causal),
            "embed": _values(module.embed.weight), "positions": _values(module.positions.weight),
            "layers": [_layer(layer, f"module.layers[{i}]") for i, layer in enumerate(module.layers)],
        }
        if module.norm is not None:
            model["finalNorm"] = _norm(module.norm, "module.norm")
        if module.unembed is None:
            model["unembed"] = "tied"
        else:
            model["unembed"] = _values(module.unembed.weight.T)
            if module.unembed.bias is not None:
                model["unembedBias"] = _values(module.unembed.bias)
        return model
    if vocab is not None:
        raise TypeError("vocab is for a GPT-style module; an encoder stack takes x and tokens · 编码器堆叠接受 x 与 tokens")
    final = None
    if isinstance(module, nn.TransformerEncoderLayer):
        layers = [module]
    elif isinstance(module, nn.TransformerEncoder):
        layers, final = list(module.layers), module.norm
    elif isinstance(module, (list, tuple, nn.ModuleList, nn.Sequential)):
        layers = list(module)
    else:
        raise TypeError(
            f"module must be an nn.TransformerEncoderLayer(norm_first=True), an nn.TransformerEncoder or a list of them, "
            f"or a TinyGPT-style module; got {type(module).__name__} · module 的类型不受支持：{type(module).__name__}"
        )
    if not layers:
        raise ValueError("module has no layers · module 没有层")
    converted = [_layer(layer, f"module.layers[{i}]" if len(layers) > 1 or final is not None else "module") for i, layer in enumerate(layers)]
    if x is None:
        raise TypeError("x: an encoder stack has no embedding; give its input x, (n, d) · 编码器堆叠需要输入 x")
    d_model = layers[0].self_attn.embed_dim
    seq = _sequence("x", x, layers[0].self_attn.batch_first, d_model, "d_model")
    n = seq.shape[0]
    names = [str(i) for i in range(n)] if tokens is None else [str(t) for t in tokens]
    if len(names) != n:
        raise ValueError(f"tokens has {len(names)} entries but x has {n} rows · tokens 的个数与 x 的行数不同")
    model = {
        "vocab": names, "dModel": d_model, "maxTokens": n, "causal": bool(causal),
        "embed": _values(seq), "positions": [[0.0] * d_model for _ in range(n)],
        "layers": converted, "unembed": "tied",
    }
    if final is not None:
        model["finalNorm"] = _norm(final, "module.norm")
    return model
