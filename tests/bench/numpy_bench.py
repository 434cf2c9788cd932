#!/usr/bin/python3
"""Times the tutorial's numpy attention (float64) with the same inputs as the C++ bench, and
its five matrix products alone (X·W_Q, X·W_K, X·W_V, Q·Kᵀ, weights·V), as the C++ bench does.

Usage: numpy_bench.py d n1 [n2 ...]; prints one JSON line per n. Which BLAS numpy uses is
chosen by the caller (scripts/bench.mjs) through LD_LIBRARY_PATH; the line says which.
"""
import json
import statistics
import sys
import time

import numpy as np


def filled(rows, cols, seed):
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    return np.sin(seed + 0.37 * i + 1.91 * j) / np.sqrt(cols)


def attention(x, wq, wk, wv):
    """The output, and the operands of the products (q, k, v, weights) for products()."""
    q, k, v = x @ wq, x @ wk, x @ wv
    scaled = (q @ k.T) / np.sqrt(wq.shape[1])
    e = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, (q, k, v, weights)


def products(x, wq, wk, wv, q, k, weights, v):
    return x @ wq, x @ wk, x @ wv, q @ k.T, weights @ v


def median_ms(f):
    """Median ms per call of f: 2 warm-up calls, then at least 5 calls or about a second."""
    for _ in range(2):
        f()
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < 1.0 and len(times) < 200):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def blas_name():
    """Which libblas.so.3 the dynamic loader gave numpy: OpenBLAS or the reference BLAS."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/libblas.so" in line}
    return "openblas" if any("openblas" in p for p in paths) else "reference"


def main():
    d = int(sys.argv[1])
    for n in map(int, sys.argv[2:]):
        x, wq, wk, wv = filled(n, d, 1.0), filled(d, d, 2.0), filled(d, d, 3.0), filled(d, d, 4.0)
        out, (q, k, v, weights) = attention(x, wq, wk, wv)
        all_ms = median_ms(lambda: attention(x, wq, wk, wv))
        products_ms = median_ms(lambda: products(x, wq, wk, wv, q, k, weights, v))
        print(json.dumps({"n": n, "d": d, "median_ms": all_ms, "products_ms": products_ms,
                          "check": float(out[n - 1, d - 1]), "blas": blas_name()}), flush=True)


if __name__ == "__main__":
    main()
