#!/usr/bin/python3
"""PyTorch's own float64 -> float32 / bfloat16 / float16 conversions, for tests/autograd/test_precision.cpp.

Run by hand with Debian's python3-torch (1.13), from anywhere:
    /usr/bin/python3 tools/precision_fixtures.py
It rewrites tests/fixtures/precision/*.npy (and nothing else); the tests only read them.
Deterministic: fixed seed, CPU.

    inputs.npy          float64 values x: every boundary case of the three formats (zeros of both
                        signs, NaN, infinities, the largest finite number and the overflow threshold,
                        the subnormals and the smallest normal, ties between neighbours and values
                        one float64 step either side of them) and random values over their range
    torch_fp32.npy      torch.tensor(x).to(torch.float32), widened back to float64 (exactly)
    torch_bf16.npy      ... .to(torch.bfloat16)
    torch_fp16.npy      ... .to(torch.float16)

torch converts a float64 to bfloat16 and float16 *through float32* (c10::Half and c10::BFloat16 are
built from a float), so it rounds twice; the test checks that, too.
"""
import os

import numpy as np
import torch

OUT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "precision"))
rng = np.random.default_rng(20261201)

# (significand bits p incl. the implicit one, min normal exponent, max exponent)
FORMATS = {"fp16": (11, -14, 15), "bf16": (8, -126, 127), "fp32": (24, -126, 127)}


def boundary_values(p, emin, emax):
    """Format numbers, ties between neighbours and their float64 neighbours, at every edge of the format."""
    ulp = lambda e: 2.0 ** (e - p + 1)
    max_finite = (2.0 - 2.0 ** (1 - p)) * 2.0 ** emax
    tiny = 2.0 ** (emin - p + 1)  # smallest subnormal
    v = [0.0, max_finite, max_finite + ulp(emax) / 2, max_finite + ulp(emax) / 4, max_finite + ulp(emax),
         2.0 ** (emax + 1), tiny, tiny / 2, tiny / 4, 3 * tiny / 2, 5 * tiny / 2, tiny * 3, 2.0 ** emin,
         2.0 ** emin - tiny, 2.0 ** emin - tiny / 2, 2.0 ** emin + tiny / 2, 2.0 ** emin + 3 * tiny / 2,
         1.0, 1.0 + 2.0 ** -p, 1.0 + 3 * 2.0 ** -p, 1.0 - 2.0 ** -(p + 1), 1.0 - 2.0 ** -p / 2 * 3,
         2.0 - 2.0 ** -p, 1e4, 1e4 + 1, 1e4 + 2, 65504.0, 65519.0, 65520.0, 65536.0, 1e8, 1e-8, 1e-30, 1e-40,
         1e-45, 3.4e38, 3.4028235e38, 3.4028236e38, 1e300, 5e-324]
    # ties between consecutive format numbers and their float64 neighbours
    for e in list(range(emin, emin + 3)) + list(range(-3, 3)) + list(range(emax - 2, emax + 1)):
        for k in (0, 1, 2, 3, 2 ** (p - 1) - 1, 2 ** (p - 1) - 2):
            for base in ((2 ** (p - 1) + k) * ulp(e), k * ulp(emin)):
                mid = base + ulp(e if base >= 2.0 ** emin else emin) / 2
                v += [base, mid, np.nextafter(mid, 0.0), np.nextafter(mid, np.inf)]
    return v


values = [float("nan"), float("inf"), float("-inf"), -0.0]
for p, emin, emax in FORMATS.values():
    values += boundary_values(p, emin, emax)
# random float64 over every format's range (log-uniform), with random low bits
values += list(np.exp2(rng.uniform(-160, 130, 400)) * rng.uniform(1, 2, 400))
values += list(np.exp2(rng.uniform(-26, 17, 400)) * rng.uniform(1, 2, 400))
# random float32 numbers (no double rounding through float32 for these)
values += list(np.exp2(rng.uniform(-26, 17, 200)).astype(np.float32).astype(np.float64))
# random fp16 and bf16 ties (the double rounding through float32 cannot change an exact tie) and
# ties nudged by a few float64 ulps (where it can: x rounds to the tie in float32 first)
for p, emin, emax in (FORMATS["fp16"], FORMATS["bf16"]):
    e = rng.integers(emin, min(emax, 20), 100)
    k = rng.integers(2 ** (p - 1), 2 ** p, 100)
    mids = (k + 0.5) * np.exp2(e - p + 1.0)
    values += list(mids) + list(mids * (1 + 2.0 ** -40)) + list(mids * (1 - 2.0 ** -40))

x = np.array(values, dtype=np.float64)
x = np.concatenate([x, -x])  # both signs of every case

os.makedirs(OUT, exist_ok=True)
t = torch.tensor(x, dtype=torch.float64)
np.save(os.path.join(OUT, "inputs.npy"), x)
for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16), ("fp16", torch.float16)):
    np.save(os.path.join(OUT, "torch_%s.npy" % name), t.to(dtype).to(torch.float64).numpy())
print("wrote %d values to %s" % (x.size, OUT))
