"""Imported before numpy by every fixture script in tests/: pins the code numpy runs, so that
the committed fixtures regenerate byte for byte on any x86-64 machine (re-executes the script
with the pinned environment when it differs), and reads --out, the folder to write to."""

import argparse
import os
import sys

# numpy's last bits depend on the code it runs, so both are pinned before it is imported:
# - its sums depend on the BLAS behind it: Debian's reference BLAS wrote the committed files.
#   When libblas.so.3 points at OpenBLAS (another alternative), use the reference one.
# - on a CPU with AVX-512, numpy 1.24's exp has its own code path whose results differ from
#   the others' in the last bit (weights and outputs moved by an ulp); turned off, every
#   x86-64 machine runs the same (AVX2 or plain) exp. On a CPU without AVX-512 numpy warns
#   that it cannot turn off what is not there, and computes the same.
PINNED_ENV = {"NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"}
REFERENCE_BLAS = "/usr/lib/x86_64-linux-gnu/blas"
if os.path.isdir(REFERENCE_BLAS):
    PINNED_ENV["LD_LIBRARY_PATH"] = REFERENCE_BLAS
if any(os.environ.get(key) != value for key, value in PINNED_ENV.items()):
    os.environ.update(PINNED_ENV)
    os.execv(sys.executable, [sys.executable] + sys.argv)


def out_folder(default):
    """The --out folder of the script's command line, else `default`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=default, help=f"folder to write to (default: {default})")
    return parser.parse_args().out
