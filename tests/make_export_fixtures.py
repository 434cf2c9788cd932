#!/usr/bin/python3
"""Writes tests/fixtures/exports/: a masked state (causal and key padding, one
query that sees no key at all, tokens that are markup, Markdown, LaTeX,
spreadsheet formulas, control characters and a lone surrogate) and, computed
here with numpy, what every export of it must be. tests/browser/export.test.mjs
clicks the real export buttons of the full page and of the element and
compares what they save with these files.

Run with Debian's numpy:   /usr/bin/python3 tests/make_export_fixtures.py [--out DIR]
The seed is fixed, so the output is reproducible; the files are committed.

Files (M is a matrix the tools export: X, W_Q, W_K, W_V, Q, K, V, Scores,
Scaled, Weights, Output):
    state.json       the state (share.js format), JSON with \\u escapes only
    M.csv, M.json    every number, as JavaScript prints it (String(v)); the
                     test compares numbers to 1e-12 and everything else exactly
    M.tex, M.md      at the state's decimals, exactly as they must be saved
    M.svg.json       the heatmap SVG's texts in document order (title, column
                     labels, then each row's label and cells) and its masked
                     cells, for Scores, Scaled, Weights and Output
    lines.svg.json   the lines view's texts and its number of lines
The text rules (export.js): a lone surrogate and U+FFFE/U+FFFF become U+FFFD;
C0 controls and DEL become Control Pictures (U+2400 + code, U+2421); Markdown
writes < > & as character references and backslash-escapes every other ASCII
punctuation character.
"""

import decimal
import json
import os
import re

import numpy_pinned

import numpy as np  # noqa: E402  (after pinning its code paths)

OUT = numpy_pinned.out_folder(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "exports"))
DECIMALS = 3
TOKENS = [
    "<img src=x onerror=alert(1)>",
    "</text><script>alert(1)</script>",
    "a|b\n# H *e* [l](javascript:alert(1)) `c` _u_ &amp; \\",
    '=HYPERLINK("http://x")\u0001\u007f\t@',
    "\ud800$\\frac{a}{b}#^_%~&",
]
CAUSAL = True
KEY_PADDING = [True, False, False, True, False]  # query 0 sees no key: causal leaves it key 0 only


def js_number(x):
    """ECMAScript Number::toString: the shortest round-trip digits (as repr), laid out as JS does."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    _, digits, exponent = decimal.Decimal(repr(float(x))).normalize().as_tuple()
    s = "".join(map(str, digits))
    k, n = len(s), exponent + len(s)  # value = 0.s × 10^n
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + s
    e = n - 1
    return s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def fixed(x):
    """format.js formatNumber: −∞, else toFixed(DECIMALS) of the exact value (ties away from 0), no sign on 0."""
    if x == -np.inf:
        return "\u2212\u221e"
    assert abs(x) < 1e6, "exponent form not expected here"
    step = decimal.Decimal(1).scaleb(-DECIMALS)
    q = decimal.Decimal(float(x)).copy_abs().quantize(step, rounding=decimal.ROUND_HALF_UP)
    # no value within 1e-9 of a rounding tie, so the last digit cannot depend on the engine's last bit
    assert abs(abs(decimal.Decimal(float(x))) / step % 1 - decimal.Decimal("0.5")) > decimal.Decimal("1e-6"), x
    return ("-" if x < 0 and q != 0 else "") + format(q, "f")


def plain_text(text):
    text = re.sub("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]", "\ufffd", text)
    return "".join(chr(0x2421) if c == "\x7f" else chr(0x2400 + ord(c)) if ord(c) < 0x20 else c for c in text)


def markdown_text(text):
    entities = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
    out = []
    for c in plain_text(text):
        is_punct = 0x21 <= ord(c) <= 0x7E and not c.isalnum()
        out.append(entities.get(c, "\\" + c) if is_punct else c)
    return "".join(out)


def attention(x, wq, wk, wv):
    """Masked scaled dot-product attention; a query whose keys are all masked gets weights 0."""
    n = x.shape[0]
    masked = np.triu(np.ones((n, n), dtype=bool), k=1) if CAUSAL else np.zeros((n, n), dtype=bool)
    masked |= np.array(KEY_PADDING)[np.newaxis, :]
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T
    scaled = np.where(masked, -np.inf, scores / np.sqrt(wq.shape[1]))
    weights = np.zeros_like(scores)
    for i in range(n):
        keep = ~masked[i]
        if keep.any():
            e = np.exp(scaled[i, keep] - scaled[i, keep].max())
            weights[i, keep] = e / e.sum()
    return masked, dict(Q=q, K=k, V=v, Scores=scores, Scaled=scaled, Weights=weights, Output=weights @ v)


def write(name, text):
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    rng = np.random.default_rng(20261213)
    n, d_model, d_k, d_v = len(TOKENS), 3, 2, 3
    x, wq, wk, wv = (rng.standard_normal(shape) for shape in [(n, d_model), (d_model, d_k), (d_model, d_k), (d_model, d_v)])
    masked, results = attention(x, wq, wk, wv)
    os.makedirs(OUT, exist_ok=True)
    state = {
        "version": 1, "tokens": TOKENS, "x": x.tolist(), "heads": [{"wq": wq.tolist(), "wk": wk.tolist(), "wv": wv.tolist()}],
        "causal": CAUSAL, "keyPadding": KEY_PADDING, "scaleBySqrtDk": True, "temperature": 1, "positionalEncoding": False,
        "view": {"step": "softmax", "head": 0, "lang": "en", "decimals": DECIMALS},
    }
    write("state.json", json.dumps(state, indent=2) + "\n")

    dims = lambda count: [f"d{c + 1}" for c in range(count)]  # noqa: E731
    matrices = {"X": (x, TOKENS), "W_Q": (wq, dims(d_model)), "W_K": (wk, dims(d_model)), "W_V": (wv, dims(d_model))}
    for name in ["Q", "K", "V", "Scores", "Scaled", "Weights", "Output"]:
        matrices[name] = (results[name], TOKENS)
    square = {"Scores", "Scaled", "Weights"}
    for name, (m, row_labels) in matrices.items():
        col_labels = TOKENS if name in square else dims(m.shape[1])
        write(f"{name}.csv", "".join(",".join("-inf" if v == -np.inf else js_number(v) for v in row) + "\n" for row in m))
        write(f"{name}.json", "[" + ",".join("[" + ",".join("null" if v == -np.inf else js_number(v) for v in row) + "]" for row in m) + "]\n")
        write(f"{name}.tex", "\\begin{bmatrix}\n"
              + " \\\\\n".join("  " + " & ".join("-\\infty" if v == -np.inf else fixed(v) for v in row) for row in m)
              + "\n\\end{bmatrix}\n")
        corner = "query \\ key" if name in square else ""
        lines = ["| " + " | ".join(markdown_text(t) for t in [corner, *col_labels]) + " |",
                 "|" + "|".join(" --- " if i == 0 else " ---: " for i in range(len(col_labels) + 1)) + "|"]
        lines += ["| " + " | ".join([markdown_text(row_labels[r]), *(fixed(v) for v in row)]) + " |" for r, row in enumerate(m)]
        write(f"{name}.md", "\n".join(lines) + "\n")
        if name in square or name == "Output":
            cell_masked = masked if name in square else np.zeros(m.shape, dtype=bool)
            texts = [name, *(plain_text(t) for t in col_labels)]
            for r, row in enumerate(m):
                texts.append(plain_text(row_labels[r]))
                texts += ["0" if cell_masked[r, c] and name == "Weights" else fixed(v) for c, v in enumerate(row)]
            svg = {"texts": texts, "masked": [[r, c] for r, c in zip(*np.nonzero(cell_masked))]}
            write(f"{name}.svg.json", json.dumps(svg, indent=1, default=int) + "\n")
    lines_view = {"texts": ["Lines view", *(plain_text(t) for t in TOKENS), *(plain_text(t) for t in TOKENS)], "lines": n * n}
    write("lines.svg.json", json.dumps(lines_view, indent=1) + "\n")


if __name__ == "__main__":
    main()
