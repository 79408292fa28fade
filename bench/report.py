#!/usr/bin/env python3
"""Reads the raw results of bench/run.sh (a directory) and prints the table of ratios (Markdown).

Within a round each side reports its fastest repetition (noise only ever adds time).
Every figure is the median over the rounds; a ratio is computed per round (tapegrad and
torch ran back to back) and then its median taken, so slow spells of a shared machine
cancel as far as they can.
"""
import glob
import json
import os
import statistics
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load_rounds(folder, prefix=""):
    """[(tapegrad results by benchmark name, torch results)] for each round (prefix "pair_": the paired rounds)."""
    rounds = []
    for path in sorted(glob.glob(os.path.join(folder, prefix + "tapegrad_*.json"))):
        i = path.rsplit("_", 1)[1]
        with open(path) as f:
            # "BM_X/16/64/process_time" -> "BM_X/16/64"; of its repetitions, the fastest.
            tg = {}
            for b in json.load(f)["benchmarks"]:
                if b.get("run_type") == "aggregate":
                    continue
                name = b["name"].replace("/process_time", "")
                if name not in tg or seconds(b) < seconds(tg[name]):
                    tg[name] = b
        with open(os.path.join(folder, f"{prefix}torch_{i}")) as f:
            rounds.append((tg, json.load(f)))
    return rounds


def seconds(b):
    """CPU seconds per iteration of one Google Benchmark result."""
    return b["cpu_time"] * UNIT[b["time_unit"]]


def median(values):
    return statistics.median(values)


def main(folder):
    rounds = load_rounds(folder)
    print(f"Medians over {len(rounds)} alternating rounds of each side's fastest repetition; process CPU time; "
          "one thread; float64.\n")
    print("| workload | tapegrad | PyTorch | tapegrad vs PyTorch (median of per-round time ratios) |")
    print("|---|---|---|---|")

    def row(label, tg_key, torch_of, unit, per=1.0, speed=False, of=rounds, show_range=False):
        tg = [seconds(t[tg_key]) / per for t, _ in of]
        th = [torch_of(p) for _, p in of]
        scale, name = unit
        ratios = [b / a for a, b in zip(tg, th)]  # torch's time over tapegrad's, per round
        ratio = median(ratios)
        verdict = (f"{ratio:.2f}× ({min(ratios):.2f}–{max(ratios):.2f})" if show_range
                   else f"{ratio:.2f}× {'faster' if ratio >= 1 else 'slower'}")
        if speed:  # show rates (1 / time)
            print(f"| {label} | {median([1 / s for s in tg]):.1f} {name} | {median([1 / s for s in th]):.1f} {name} "
                  f"| {verdict} |")
        else:
            print(f"| {label} | {median(tg) * scale:.3g} {name} | {median(th) * scale:.3g} {name} | {verdict} |")

    def training_step_rows(of=rounds, show_range=False):
        for p in ("pre", "post"):
            row(f"training step, {p}-norm, d 64, batch 64, L 16 (steps/s)", "BM_TrainStep_" + p.capitalize() + "/16/64",
                lambda t, p=p: t["train_step_s"][f"{p}/16/64"], (1, "steps/s"), speed=True, of=of,
                show_range=show_range)

    training_step_rows()
    row("layer_norm fwd+bwd 4096×1024", "BM_LayerNorm_FwdBwd", lambda t: t["layer_norm_fwd_bwd_s"], (1e3, "ms"))
    row("small op (add, 4 elements): forward + record", "BM_SmallOp_Forward",
        lambda t: t["small_op_forward_s"], (1e9, "ns"), per=100)
    row("small op: forward + backward", "BM_SmallOp_ForwardBackward",
        lambda t: t["small_op_forward_backward_s"], (1e9, "ns"), per=100)
    for L in (2, 4, 8, 16, 32, 64):
        key = "BM_TrainStep_Pre/16/64" if L == 16 else f"BM_TrainStep_Pre_Scaling/{L}/64"
        row(f"step time, pre, batch 64, L {L}", key, lambda t, L=L: t["train_step_s"][f"pre/{L}/64"], (1e3, "ms"))
    for B in (16, 64, 256):
        key = "BM_TrainStep_Pre/16/64" if B == 64 else f"BM_TrainStep_Pre_Scaling/16/{B}"
        row(f"step time, pre, L 16, batch {B}", key, lambda t, B=B: t["train_step_s"][f"pre/16/{B}"], (1e3, "ms"))

    if all("BM_FFN_FwdBwd_Fused" in t for t, _ in rounds):  # tapegrad alone: what fusing the FFN buys
        fused = [seconds(t["BM_FFN_FwdBwd_Fused"]) for t, _ in rounds]
        parts = [seconds(t["BM_FFN_FwdBwd_Composed"]) for t, _ in rounds]
        print(f"\nFFN forward+backward (d 64 → 256 → 64, batch 64, operands in cache), tapegrad alone: fused "
              f"feed_forward {median(fused) * 1e6:.0f} µs, composed linear → relu → linear {median(parts) * 1e6:.0f} µs "
              f"({median([b / a for a, b in zip(fused, parts)]):.2f}×).")

    pairs = load_rounds(folder, "pair_")
    if pairs:
        print(f"\nTraining step in {len(pairs)} paired rounds (the two sides seconds apart, alternating who goes first;"
              " each side's fastest repetition):\n")
        print("| workload | tapegrad | PyTorch | ratio: median (lowest–highest) |")
        print("|---|---|---|---|")
        training_step_rows(of=pairs, show_range=True)

    # Bandwidth: the bytes layer_norm must move (see bench_layer_norm.cpp) over its time.
    ln_bytes = 5 * 4096 * 1024 * 8
    ln_tg = median([ln_bytes / seconds(t["BM_LayerNorm_FwdBwd"]) / 1e9 for t, _ in rounds])
    ln_th = median([ln_bytes / p["layer_norm_fwd_bwd_s"] / 1e9 for _, p in rounds])
    copy = median([t["BM_Stream_Copy"]["GB_per_s"] for t, _ in rounds])
    triad = median([t["BM_Stream_Triad"]["GB_per_s"] for t, _ in rounds])
    bound = max(copy, triad)
    print(f"\nMemory bandwidth (STREAM-like, same run): copy {copy:.2f} GB/s, triad {triad:.2f} GB/s.")
    print(f"layer_norm fwd+bwd moves at least 5 × 4096 × 1024 × 8 B = {ln_bytes / 1e6:.0f} MB "
          f"(forward reads x, writes y; backward reads x, dy, writes dx):")
    print(f"tapegrad {ln_tg:.2f} GB/s = {ln_tg / bound:.0%} of the bound ({bound:.2f} GB/s); "
          f"PyTorch {ln_th:.2f} GB/s = {ln_th / bound:.0%}.")

    print("\nPeak RSS (ru_maxrss, one process per configuration, minus the process's RSS before building the model):\n")
    print("| configuration | tapegrad MiB | PyTorch MiB |")
    print("|---|---|---|")
    tg_mem = [json.loads(l) for l in open(os.path.join(folder, "tapegrad_memory.jsonl"))]
    th_mem = [json.loads(l) for l in open(os.path.join(folder, "torch_memory.jsonl"))]
    for a, b in zip(tg_mem, th_mem):
        print(f"| pre, L {a['depth']}, batch {a['batch']} | {a['peak_rss_mib'] - a['baseline_rss_mib']:.1f} "
              f"| {b['peak_rss_mib'] - b['baseline_rss_mib']:.1f} |")
    with open(os.path.join(folder, "growth.json")) as f:
        g = json.load(f)
    print(f"\nMemory growth over 10,000 steps (pre, d 16, L 4, batch 16): RSS {g['rss_step_1000_mib']:.2f} MiB "
          f"after step 1,000, {g['rss_step_10000_mib']:.2f} MiB after step 10,000: "
          f"{'no growth' if g['ok'] else 'GROWTH'}; {g['tape_entries']} tape entries left.")


if __name__ == "__main__":
    main(sys.argv[1])
