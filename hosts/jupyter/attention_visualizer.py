"""<attention-visualizer> in Jupyter notebooks (docs/authoring.md, "Jupyter").

    from attention_visualizer import show
    show(sentence="我爱你", x=[[1, 0], [0.5, 0.5], [0, 1]], step="softmax", lang="zh")

show() returns an object Jupyter displays as HTML (classic Notebook, JupyterLab, VS Code,
nbconvert --to html). The first one shown in a kernel inlines attention-visualizer.js (the element
and the engine, wasm included) into its output, so a notebook exported to HTML works offline;
later ones add only the element (after re-running cells out of order, use Restart & Run
All before saving, so that the first output holds the script again). The script always defines its global, also next to the
classic Notebook's RequireJS. Every keyword is the element's attribute of the same name, with
"_" for "-" (key_padding → key-padding); matrices may be lists of rows or numpy arrays.

The script is found at SCRIPT: by default attention-visualizer.js next to this file, else the
package's dist/ folder when this file is node_modules/attention-visualizer/hosts/jupyter/.
"""

import html
import json
import math
import os
import re

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = [
    os.path.join(_HERE, "attention-visualizer.js"),
    os.path.join(_HERE, "..", "..", "dist", "attention-visualizer.js"),
]
SCRIPT = next((p for p in _CANDIDATES if os.path.exists(p)), _CANDIDATES[0])

_MATRICES = {"x", "wq", "wk", "wv", "wo", "context"}
_JSON = {"tokens", "heads", "context_tokens"}
_LISTS = {"steps", "panels", "key_padding"}
_BOOLEANS = {"causal", "scale_by_sqrt_dk", "positional_encoding", "editable"}
_TEXTS = {"state", "sentence", "tokenize", "lang", "step", "head", "decimals", "temperature", "heading_level", "theme"}
_KNOWN = _MATRICES | _JSON | _LISTS | _BOOLEANS | _TEXTS

_script_shown = False  # once per kernel: the first output carries the script


class Visualizer:
    """One element's markup; Jupyter shows it through _repr_html_, the script before the first one shown."""

    def __init__(self, markup):
        self.markup = markup

    def _repr_html_(self):
        global _script_shown
        if _script_shown:
            return self.markup
        script = _inline_script()
        _script_shown = True
        return script + self.markup


def _plain(value):
    """numpy arrays and scalars as plain lists and floats."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _json_default(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{value!r} cannot be written as JSON · 无法写成 JSON")


def _matrix(name, value):
    rows = _plain(value)
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, (list, tuple)) and r for r in rows):
        raise ValueError(f"{name} must be a matrix: a non-empty list of rows of numbers · {name} 必须是由数字行组成的矩阵")
    for i, row in enumerate(rows):
        for j, v in enumerate(_plain(row)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name}[{i}][{j}] is {v!r}: every value must be a finite number · {name}[{i}][{j}] 必须是有限的数")
    return json.dumps([[float(v) for v in _plain(row)] for row in rows])


def _attribute(name, value):
    """(attribute name, text) for one keyword."""
    attr = name.replace("_", "-")
    value = _plain(value)
    if name in _MATRICES:
        return attr, _matrix(name, value)
    if name in _JSON:
        return attr, json.dumps(value, ensure_ascii=False, allow_nan=False, default=_json_default)
    if name in _BOOLEANS:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r} · {name} 必须是 True 或 False")
        return attr, "true" if value else "false"
    if name in _LISTS and isinstance(value, (list, tuple)):
        return attr, ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in value)
    return attr, str(value)


def _inline_script():
    try:
        with open(SCRIPT, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise FileNotFoundError(
            f"attention-visualizer.js not found at {SCRIPT}: copy it next to attention_visualizer.py, "
            f"or set attention_visualizer.SCRIPT · 找不到 attention-visualizer.js，请把它放在 attention_visualizer.py 旁边，"
            f"或设置 attention_visualizer.SCRIPT"
        ) from error
    # nothing in the script may end or comment out the <script> element it sits in
    text = re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")
    return f"<script>\n{text}\n</script>\n"


def show(**attributes):
    """The element with these attributes (None leaves one out)."""
    unknown = sorted(set(attributes) - _KNOWN)
    if unknown:
        raise TypeError(f"unknown attribute {unknown[0]!r}; known: {', '.join(sorted(_KNOWN))} · 未知属性 {unknown[0]!r}")
    pairs = [_attribute(name, value) for name, value in attributes.items() if value is not None]
    return Visualizer("<attention-visualizer" + "".join(f' {name}="{html.escape(text, quote=True)}"' for name, text in pairs) + "></attention-visualizer>")
