#!/usr/bin/python3
"""Writes dist/python/attention_visualizer-<version>-py3-none-any.whl (PEP 427) with the standard
library alone, no network: the package hosts/python/attention_visualizer/ and the built element
script dist/attention-visualizer.js beside it, a METADATA, WHEEL and RECORD written here. The
bytes depend only on the inputs (fixed timestamps and order). Run by scripts/build.mjs:
    /usr/bin/python3 scripts/build_wheel.py
"""

import base64
import hashlib
import json
import os
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "hosts", "python", "attention_visualizer")
NAME = "attention_visualizer"


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main():
    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as f:
        pkg = json.load(f)
    version = pkg["version"]
    info = f"{NAME}-{version}.dist-info"
    files = []  # (path in the wheel, bytes)
    for name in sorted(os.listdir(PACKAGE)):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE, name), "rb") as f:
                files.append((f"{NAME}/{name}", f.read()))
    with open(os.path.join(ROOT, "dist", "attention-visualizer.js"), "rb") as f:
        files.append((f"{NAME}/attention-visualizer.js", f.read()))
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        files.append((f"{info}/LICENSE", f.read()))
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: attention-visualizer",
        f"Version: {version}",
        f"Summary: {pkg['description']}",
        f"License: {pkg['license']}",
        "Requires-Python: >=3.8",
        "Provides-Extra: torch",
        'Requires-Dist: torch; extra == "torch"',
        "",
        "The <attention-visualizer> element in Jupyter notebooks: show(), show_torch(), from_torch().",
        "See docs/authoring.md (Jupyter) in the repository.",
        "",
    ])
    files.append((f"{info}/METADATA", metadata.encode()))
    wheel = "Wheel-Version: 1.0\nGenerator: scripts/build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files.append((f"{info}/WHEEL", wheel.encode()))
    files.append((f"{info}/top_level.txt", f"{NAME}\n".encode()))
    record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out_dir = os.path.join(ROOT, "dist", "python")
    os.makedirs(out_dir, exist_ok=True)
    for old in os.listdir(out_dir):
        if old.endswith(".whl"):
            os.remove(os.path.join(out_dir, old))
    out = os.path.join(out_dir, f"{NAME}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as wheel_zip:
        for path, data in files:
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel_zip.writestr(entry, data)
    print(f"build: {os.path.relpath(out, ROOT)} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
