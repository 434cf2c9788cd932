#!/usr/bin/python3
"""Executes docs/examples/torch-layer.ipynb as nbconvert --execute does (nbclient, the python3
kernel, the package from PYTHONPATH) and writes into <out>/, for tests/browser/python-notebook.test.mjs:
  executed.html  the executed notebook as nbconvert --to html writes it (RequireJS and MathJax
                 from local files: require.js, mathjax.js)
  rerun.html     then: the first show_torch cell's output cleared and that cell run again
  cleared.html   then: that output cleared again and only a later show_torch cell run again
  init.html      then: a cell calling attention_visualizer.init() added at the end and run
  torch-layer.html  the notebook's own view.save()
  torch.json     torch's attn_weights and attn_output, and those with the notebook's causal mask,
                 read from the kernel after the run
Usage: /usr/bin/python3 tests/python/run_notebook.py <notebook> <out>
"""

import os
import sys

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter


def main(notebook, out):
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": out}})
    exporter = HTMLExporter(require_js_url="require.js", mathjax_url="mathjax.js")

    def export(name):
        body, _ = exporter.from_notebook_node(nb)
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(body)

    shows = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and "show_torch(mha" in cell.source]
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        export("executed.html")
        probe = nbformat.v4.new_code_cell(
            "import json\n"
            "with torch.no_grad():\n"
            "    causal_output, causal_weights = mha(x, x, x, attn_mask=causal, average_attn_weights=False)\n"
            "print(json.dumps({'weights': attn_weights.tolist(), 'output': attn_output.tolist(),\n"
            "                  'causal': {'weights': causal_weights.tolist(), 'output': causal_output.tolist()}}))"
        )
        nb.cells.append(probe)
        client.execute_cell(probe, len(nb.cells) - 1)
        nb.cells.pop()
        with open(os.path.join(out, "torch.json"), "w", encoding="utf-8") as f:
            f.write(probe.outputs[0]["text"])
        first, later = nb.cells[shows[0]], nb.cells[shows[1]]
        first.outputs = []
        client.execute_cell(first, shows[0])
        export("rerun.html")
        first.outputs = []
        client.execute_cell(later, shows[1])
        export("cleared.html")
        remedy = nbformat.v4.new_code_cell("import attention_visualizer\nattention_visualizer.init()")
        nb.cells.append(remedy)
        client.execute_cell(remedy, len(nb.cells) - 1)
        export("init.html")


if __name__ == "__main__":
    main(*sys.argv[1:3])
