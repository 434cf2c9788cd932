"""<attention-visualizer> in Jupyter notebooks and from PyTorch (docs/authoring.md, "Jupyter").

    pip install attention_visualizer-<version>-py3-none-any.whl      # npm run build writes it to dist/python/

    from attention_visualizer import show, show_torch, from_torch, TinyGPT
    show(sentence="我爱你", x=[[1, 0], [0.5, 0.5], [0, 1]], step="softmax", lang="zh")
    show_torch(nn.MultiheadAttention(4, 2, bias=False), x, tokens=["I", "love", "you"])
    model = from_torch(TinyGPT(...))  # the engine's model JSON (docs/api.md, "Models")

show() returns an object Jupyter displays as HTML (classic Notebook, JupyterLab, VS Code,
nbconvert --to html); .save(path) writes it as a standalone page that works offline; in the
classic Notebook, .state and .on_change(callback) give the reader's edits back. Every
keyword is the element's attribute of the same name, with "_" for "-" (key_padding → key-padding);
matrices may be lists of rows, numpy arrays or torch tensors.

The element's script (attention-visualizer.js: the element and the engine, wasm included, about
1 MB) is on the page once: the first output shown in a kernel carries it, and so does the
output of that same cell when it runs again (its cell id, else its code, names it). Every output
holds only its element and a note, shown by CSS alone while the element is undefined, that says
the script is missing and what to run: init() puts the script in the output of the cell that
calls it.

The script is found at SCRIPT: attention-visualizer.js next to this file (in the wheel), else
the repository's or the npm package's dist/ (this file is hosts/python/attention_visualizer/).
"""

import base64
import html
import json
import math
import os
import re
import uuid
import weakref

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = [
    os.path.join(_HERE, "attention-visualizer.js"),
    os.path.join(_HERE, "..", "..", "..", "dist", "attention-visualizer.js"),
]
SCRIPT = next((p for p in _CANDIDATES if os.path.exists(p)), _CANDIDATES[0])

_MATRICES = {"x", "wq", "wk", "wv", "wo", "context"}
_JSON = {"tokens", "heads", "context_tokens", "bo"}
_LISTS = {"steps", "panels", "key_padding"}
_BOOLEANS = {"causal", "scale_by_sqrt_dk", "positional_encoding", "alibi", "editable"}
_TEXTS = {"state", "sentence", "tokenize", "model", "layer", "lang", "step", "head", "decimals", "temperature", "exercise", "heading_level", "theme"}
_KNOWN = _MATRICES | _JSON | _LISTS | _BOOLEANS | _TEXTS


def _version():
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("attention-visualizer")
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    try:  # from the repository or the npm package: its package.json
        with open(os.path.join(_HERE, "..", "..", "..", "package.json"), encoding="utf-8") as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "0+unknown"


__version__ = _version()

# (cell, execution) whose output carries the script in this kernel; None until one does
_carrier = None

# Shown in place of an element whose script is not on the page (CSS :defined; no script
# needed, so an untrusted notebook shows it too).
_MISSING = {
    "en": "The script of <attention-visualizer> is not on this page: the output that carried it was cleared or "
    "deleted, or the notebook is not trusted. Run attention_visualizer.init() in a cell (or Restart & Run All), then save.",
    "zh": "此页面上没有 <attention-visualizer> 的脚本：携带它的输出已被清除或删除，或笔记本未被信任。"
    "请在一个单元格里运行 attention_visualizer.init()（或“重启并全部运行”），然后保存。",
}
_STYLE = (
    "<style>.av-missing{display:none}attention-visualizer:not(:defined)+.av-missing{display:block;"
    "border:1px solid #b45309;border-radius:4px;padding:.5em .75em;color:inherit;font:14px/1.5 system-ui,sans-serif}"
    ".av-caption{font:13px/1.5 system-ui,sans-serif;margin:.25em 0 .5em;opacity:.85}</style>"
)


def _texts(table, lang):
    """The text in the element's language; both (English · 中文) when it is not set."""
    if lang in table:
        return table[lang]
    return f"{table['en']} · {table['zh']}"


def _cell():
    """What names the running cell: its id (JupyterLab, Notebook 7, VS Code send it), else its code; None outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return None
    parent = kernel.get_parent() or {}
    header = parent.get("header") or {}
    cell = (parent.get("metadata") or {}).get("cellId") or (parent.get("content") or {}).get("code")
    return (cell, header.get("msg_id")) if cell is not None else None


def _carries():
    """Whether the output being made now carries the script: the first in a kernel, and the first of each later run of that cell."""
    global _carrier
    cell = _cell()
    if _carrier is not None and (cell is None or cell[0] != _carrier[0] or cell[1] == _carrier[1]):
        return False
    _carrier = cell if cell is not None else ("", "")
    return True


# The views shown in this kernel, by the id their output reports edits with (_edited).
_views = weakref.WeakValueDictionary()

# In the classic Notebook (the only front end here whose outputs reach the kernel: the global
# IPython.notebook.kernel), each edit of the element runs _edited(id, base64 of the state's JSON)
# silently in the kernel; nothing the page sends is code. Elsewhere it does nothing. The output
# may be put in the page before its script runs: setTimeout finds it once it is there.
_REPORT = (
    "<script>setTimeout(function () {{"
    "var out = document.getElementById('av-{key}'), nb = window.IPython && window.IPython.notebook;"
    "if (!out || !nb || !nb.kernel) return;"
    "out.addEventListener('change', function (event) {{"
    "var state = event.detail && event.detail.state; if (!state) return;"
    "var bytes = new TextEncoder().encode(JSON.stringify(state)), text = '';"
    "for (var i = 0; i < bytes.length; i += 1) text += String.fromCharCode(bytes[i]);"
    "nb.kernel.execute(\"__import__('attention_visualizer')._edited('{key}', '\" + btoa(text) + \"')\","
    " {{}}, {{ silent: true, store_history: false }});"
    "}});"
    "}}, 0);</script>"
)


def _edited(key, data):
    """An edit reported by the page: the view's state, and its callbacks called with it."""
    view = _views.get(key)
    if view is None:
        return  # an output of an earlier kernel
    view._state = json.loads(base64.b64decode(data).decode("utf-8"))
    for callback in list(view._callbacks):
        callback(view._state)


class Visualizer:
    """One element's markup; Jupyter shows it through _repr_html_ (with the script when this output carries it)."""

    def __init__(self, markup, caption=None, lang=None):
        self.markup = markup
        self.caption = caption  # text above the element (show_torch's notes), or None
        self.lang = lang
        self._key = uuid.uuid4().hex[:16]
        self._state = None
        self._callbacks = []

    @property
    def state(self):
        """The state the reader last made in the element (a dict as the element's state property), or None:
        before any edit, and always outside the classic Notebook (its outputs alone reach the kernel)."""
        return self._state

    def on_change(self, callback):
        """Calls callback(state) after each edit in the element (classic Notebook only, as state)."""
        self._callbacks.append(callback)
        return self

    def _body(self):
        caption = f'<p class="av-caption">{html.escape(self.caption)}</p>' if self.caption else ""
        missing = f'<p class="av-missing" role="status">{html.escape(_texts(_MISSING, self.lang))}</p>'
        return f"{_STYLE}{caption}{self.markup}{missing}"

    def _repr_html_(self):
        _views[self._key] = self
        body = f'<div class="attention-visualizer-output" id="av-{self._key}">{self._body()}{_REPORT.format(key=self._key)}</div>'
        return _inline_script() + body if _carries() else body

    def save(self, path):
        """Writes a standalone HTML page (the script inline) that works offline, from file:// too."""
        lang = self.lang if self.lang in _MISSING else "en"
        page = (
            f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<link rel="icon" href="data:,">\n<title>attention-visualizer</title>\n'
            f"{_inline_script()}</head>\n<body>\n{self._body()}\n</body>\n</html>\n"
        )
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        return path


class _Script:
    """init()'s output: the script, and a line saying which version is on the page."""

    def _repr_html_(self):
        global _carrier
        _carrier = _cell() or ("", "")
        return _inline_script() + f'<p class="av-caption">attention-visualizer {html.escape(__version__)}</p>'


def init():
    """Puts the element's script in this cell's output (after the output that carried it was cleared or deleted)."""
    return _Script()


def _plain(value):
    """numpy arrays, torch tensors and scalars as plain lists and floats."""
    if hasattr(value, "detach"):
        value = value.detach().cpu()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _json_default(value):
    if hasattr(value, "tolist"):
        return _plain(value)
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
            f"attention-visualizer.js not found at {SCRIPT}: install the wheel (npm run build writes it to dist/python/), "
            f"or set attention_visualizer.SCRIPT · 找不到 attention-visualizer.js：请安装 wheel（npm run build 生成于 dist/python/），"
            f"或设置 attention_visualizer.SCRIPT"
        ) from error
    # nothing in the script may end or comment out the <script> element it sits in
    text = re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")
    return f"<script>\n{text}\n</script>\n"


def _element(attributes, caption=None):
    unknown = sorted(set(attributes) - _KNOWN)
    if unknown:
        raise TypeError(f"unknown attribute {unknown[0]!r}; known: {', '.join(sorted(_KNOWN))} · 未知属性 {unknown[0]!r}")
    pairs = [_attribute(name, value) for name, value in attributes.items() if value is not None]
    markup = "<attention-visualizer" + "".join(f' {name}="{html.escape(text, quote=True)}"' for name, text in pairs) + "></attention-visualizer>"
    lang = attributes.get("lang")
    return Visualizer(markup, caption=caption, lang=lang if isinstance(lang, str) else None)


def show(**attributes):
    """The element with these attributes (None leaves one out)."""
    return _element(attributes)


def show_torch(module, x, tokens=None, **attributes):
    """An nn.MultiheadAttention's heads, step by step, on x: see attention_visualizer._torch."""
    from ._torch import show_torch as shown

    return shown(module, x, tokens=tokens, **attributes)


def from_torch(module, **options):
    """A torch transformer as the engine's model JSON: see attention_visualizer._torch."""
    from ._torch import from_torch as model

    return model(module, **options)


def __getattr__(name):
    """TinyGPT, the GPT-style module from_torch takes, without importing torch before it is asked for."""
    if name == "TinyGPT":
        from ._torch import TinyGPT

        return TinyGPT
    raise AttributeError(f"module 'attention_visualizer' has no attribute {name!r}")


__all__ = ["show", "show_torch", "from_torch", "init", "Visualizer", "TinyGPT", "SCRIPT", "__version__"]
