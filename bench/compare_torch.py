#!/usr/bin/env python3
"""The workloads of bench/*.cpp in PyTorch (float64, one thread), for bench/run.sh.

    /usr/bin/python3 bench/compare_torch.py [--repetitions 3] > torch.json
    /usr/bin/python3 bench/compare_torch.py --peak-memory pre 16 64 20   # one line, like tapegrad_peak_memory

Prints one JSON object: for each workload the fastest of the repetitions of the
time per iteration (the machine's noise only ever adds time). The model is tools/replay_torch.py's DepthModel, the module-for-module
twin of tapegrad's, so both sides run the same arithmetic.
Needs Debian's python3-torch (run with /usr/bin/python3).
"""
import argparse
import json
import os
import resource
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from replay_torch import DepthModel  # noqa: E402  (float64 by default once imported)

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def best_seconds(fn, repetitions, min_time=0.5):
    """Fastest of `repetitions` of the CPU seconds per call, each repetition running >= min_time.

    The fastest, not the median: other work on the machine only ever adds time (as timeit advises).

    CPU time of the process, not wall time, as the C++ side (MeasureProcessCPUTime): on a
    shared machine wall time counts the other processes too."""
    fn()  # warm-up
    calls = 1
    while True:  # how many calls fill min_time
        start = time.process_time()
        for _ in range(calls):
            fn()
        if time.process_time() - start >= min_time / 4:
            break
        calls *= 2
    calls *= 4
    times = []
    for _ in range(repetitions):
        start = time.process_time()
        for _ in range(calls):
            fn()
        times.append((time.process_time() - start) / calls)
    return min(times)


def train_step(placement, depth, batch, d=64, d_in=16, classes=8):
    """One step of the depth-lab model: forward, cross_entropy, backward, Adam (PyTorch defaults)."""
    torch.manual_seed(0)
    cfg = dict(d=d, d_in=d_in, classes=classes, depth=depth, placement=placement, ffn_hidden=4 * d,
               layer_norm_eps=1e-5, deepnorm_alpha=1.0,
               final_norm=placement in ("pre", "sandwich"))
    model = DepthModel(cfg)
    x = torch.randn(batch, d_in)
    y = torch.randint(0, classes, (batch,))
    return adam_step(model, x, y)


def adam_step(model, x, y):
    """A function doing one step: forward, cross_entropy, backward, Adam (PyTorch's defaults)."""
    adam = torch.optim.Adam(model.parameters())

    def step():
        adam.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        adam.step()
        return loss
    return step


def transformer_step(depth, d=64, batch=64, seq_len=16, heads=4, classes=8, placement="pre", llama=False):
    """One step of the lab's Transformer (bench/workloads.hpp's TransformerStep): embeddings,
    TransformerBlocks (nn.MultiheadAttention, FFN d -> 4d -> d), final LayerNorm for pre, head at every
    position, cross_entropy, Adam. llama: --preset llama's block (tools/replay_torch.py's LlamaAttention with
    RoPE and 2 key/value heads, RMSNorm, LlamaMLP of 2/3 of 4d rounded up to 8), as workloads.hpp's llama_config."""
    torch.manual_seed(0)
    cfg = dict(arch="transformer", d=d, classes=classes, seq_len=seq_len, heads=heads, depth=depth,
               placement=placement, ffn_hidden=4 * d, layer_norm_eps=1e-5, deepnorm_alpha=1.0,
               final_norm=placement in ("pre", "sandwich"))
    if llama:
        cfg.update(norm="rms", activation="swiglu", positions="rope", kv_heads=2,
                   ffn_hidden=(-(-2 * 4 * d // 3) + 7) // 8 * 8)
    model = DepthModel(cfg)
    x = torch.randint(0, classes, (batch, seq_len)).double()
    y = torch.randint(0, classes, (batch * seq_len,))
    return adam_step(model, x, y)


# (depth, d, batch, seq_len) of bench_transformer.cpp: issue 29's sizes, then --preset transformer's.
TRANSFORMER_SIZES = [(8, 64, 64, 16), (24, 64, 64, 16)] + [(L, 32, 16, 8) for L in (2, 6, 12, 24)]


def layer_norm_fwd_bwd(rows=4096, cols=1024):
    x = torch.randn(rows, cols, requires_grad=True)
    w = torch.randn(cols, requires_grad=True)
    b = torch.randn(cols, requires_grad=True)
    dy = torch.randn(rows, cols)

    def run():
        x.grad = w.grad = b.grad = None
        y = torch.nn.functional.layer_norm(x, (cols,), w, b)
        y.backward(dy)
    return run


OPS_PER_ITERATION = 100  # as bench_tape_overhead.cpp


def small_ops(backward):
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = torch.tensor([0.5, 0.5, 0.5, 0.5], requires_grad=True)
    seed = torch.ones(4)

    def run():
        a.grad = b.grad = None
        h = a
        for _ in range(OPS_PER_ITERATION):
            h = h + b
        if backward:
            h.backward(seed)
    return run


def peak_memory(placement, depth, batch, steps):
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    step = train_step(placement, depth, batch)
    step()
    start = time.process_time()
    for _ in range(steps):
        step()
    ms = (time.process_time() - start) / steps * 1e3
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(dict(placement=placement, depth=depth, batch=batch, ms_per_step=ms,
                          peak_rss_mib=peak, baseline_rss_mib=baseline)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--peak-memory", nargs=4, metavar=("PLACEMENT", "DEPTH", "BATCH", "STEPS"))
    parser.add_argument("--transformer-only", action="store_true",
                        help="only the Transformer steps (bench_transformer.cpp's sizes)")
    parser.add_argument("--llama-only", action="store_true",
                        help="only the LLaMA-style steps (bench_transformer.cpp's BM_LlamaStep sizes)")
    parser.add_argument("--train-step-only", action="store_true",
                        help="only the two training steps at d 64, batch 64, L 16 (run.sh's paired rounds)")
    args = parser.parse_args()
    if args.peak_memory:
        p, depth, batch, steps = args.peak_memory
        peak_memory(p, int(depth), int(batch), int(steps))
        return
    r = args.repetitions
    out = {"torch_version": torch.__version__, "threads": torch.get_num_threads()}
    if args.transformer_only or args.llama_only:
        out["transformer_step_s"] = {"/".join(map(str, z)): best_seconds(transformer_step(*z, llama=args.llama_only), r)
                                     for z in TRANSFORMER_SIZES}
        print(json.dumps(out, indent=1))
        return
    steps = [("pre", 16, 64), ("post", 16, 64)]
    if not args.train_step_only:
        steps += [("pre", L, 64) for L in (2, 4, 8, 32, 64)] + [("pre", 16, B) for B in (16, 256)]
    out["train_step_s"] = {f"{p}/{L}/{B}": best_seconds(train_step(p, L, B), r) for p, L, B in steps}
    if args.train_step_only:
        print(json.dumps(out, indent=1))
        return
    out["layer_norm_fwd_bwd_s"] = best_seconds(layer_norm_fwd_bwd(), r)
    out["small_op_forward_s"] = best_seconds(small_ops(False), r) / OPS_PER_ITERATION
    out["small_op_forward_backward_s"] = best_seconds(small_ops(True), r) / OPS_PER_ITERATION
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
