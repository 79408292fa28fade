#!/usr/bin/python3
"""Prints how fast the notebooks' kernel (tapegrad-xcpp) is, on this machine.

  /usr/bin/python3 scripts/notebook_speed.py [--build build] [--build other-build] [--repeat 3] [notebooks/*.ipynb]

Through jupyter_client, as Jupyter drives it (the kernelspec from <build>/share/jupyter):
  kernel ready    start the kernel process -> its first kernel_info reply (median of --repeat)
  first cell      notebook 01's pragma cell + its #include cell (xtensor, tapegrad): the
                  first cells a learner runs, sent as soon as the kernel is ready (median of
                  --repeat, each in a fresh kernel); and the #include cell alone
  --build twice   two builds side by side (e.g. before and after a change): every figure is
                  measured for each build in turn, in the same run, so the load is shared
  whole notebook  every code cell of each notebook, in one fresh kernel, kernel start included
  kernel memory   the kernel's peak resident memory (VmHWM) at the end of each notebook
  --headers       also: where the first cells' CPU time goes, one header group per cell
  CPU time        the kernel's own CPU seconds for the same work: close to the wall time on
                  an idle machine, and much less sensitive to other load than the wall time
Needs the library and the kernel built (scripts/build.sh). Numbers depend on the machine's
load: notebooks/README.md gives the figures measured with it and how.
"""

import argparse
import glob
import json
import os
import queue
import statistics
import sys
import time

import jupyter_client


def start(nb_dir):
    km = jupyter_client.KernelManager(kernel_name="xcpp17")
    t0 = time.monotonic()
    km.start_kernel(cwd=nb_dir)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    return km, kc, time.monotonic() - t0


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def run(kc, code):
    msg_id = kc.execute(code)
    deadline = time.monotonic() + 600
    while True:
        # Read the output messages as they come (and drop them): left unread, a cell with much
        # output (notebook 01's rich displays) never got its reply here.
        while True:
            try:
                kc.get_iopub_msg(timeout=0)
            except queue.Empty:
                break
        if time.monotonic() > deadline:
            raise RuntimeError("a cell gave no reply within 600 s")
        try:
            reply = kc.get_shell_msg(timeout=0.05)
        except queue.Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    if reply["content"]["status"] != "ok":
        raise RuntimeError("a cell failed: %s: %s" % (reply["content"].get("ename"), reply["content"].get("evalue")))


def code_cells(path, lib_dir):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cells.append(src.replace('add_library_path("../build")', 'add_library_path("%s")' % lib_dir))
    return cells


def kernel_pid(km):
    return km.provisioner.process.pid if getattr(km, "provisioner", None) else km.kernel.pid


def cpu_seconds(km):
    """The kernel's CPU time so far (user + system, its check-pass children included): what a cell
    costs on an idle machine."""
    with open("/proc/%d/stat" % kernel_pid(km)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(km):
    with open("/proc/%d/status" % kernel_pid(km)) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebooks", nargs="*")
    ap.add_argument("--build", action="append", help="a build folder (twice: side by side); default build/")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--headers", action="store_true", help="also time the first cells' header groups")
    args = ap.parse_args()
    builds = [os.path.abspath(b) for b in (args.build or [os.path.join(root, "build")])]
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    notebooks = args.notebooks or sorted(glob.glob(os.path.join(root, "notebooks", "*.ipynb")))
    nb_dir = os.path.join(root, "notebooks")

    def use(build):
        os.environ["JUPYTER_PATH"] = os.path.join(build, "share", "jupyter")

    figures = {b: {"ready": [], "first": [], "first_cpu": [], "include": [], "include_cpu": []} for b in builds}
    for _ in range(args.repeat):
        for build in builds:
            use(build)
            f = figures[build]
            first_cells = code_cells(os.path.join(nb_dir, "01_tensors_and_tape.ipynb"), build)[:2]
            km, kc, seconds = start(nb_dir)
            f["ready"].append(seconds)
            t0, c0 = time.monotonic(), cpu_seconds(km)
            run(kc, first_cells[0])
            t1, c1 = time.monotonic(), cpu_seconds(km)
            run(kc, first_cells[1])
            f["first"].append(time.monotonic() - t0)
            f["first_cpu"].append(cpu_seconds(km) - c0)
            f["include"].append(time.monotonic() - t1)
            f["include_cpu"].append(cpu_seconds(km) - c1)
            stop(km, kc)
    print("machine: %d cores, load average %s" % (os.cpu_count(), " ".join("%.1f" % l for l in os.getloadavg())))
    for build in builds:
        f = figures[build]
        print("build %s" % build)
        print("  kernel ready:                       %.2f s (median of %d: %s)"
              % (statistics.median(f["ready"]), len(f["ready"]), ", ".join("%.2f" % s for s in f["ready"])))
        print("  first cells (pragmas + #includes):  %.2f s (median of %d: %s); kernel CPU time %.2f s"
              % (statistics.median(f["first"]), len(f["first"]), ", ".join("%.2f" % s for s in f["first"]),
                 statistics.median(f["first_cpu"])))
        print("  the #include cell alone:            %.2f s (median of %d: %s); kernel CPU time %.2f s"
              % (statistics.median(f["include"]), len(f["include"]), ", ".join("%.2f" % s for s in f["include"]),
                 statistics.median(f["include_cpu"])))
    if args.headers:
        for build in builds:
            use(build)
            first_cells = code_cells(os.path.join(nb_dir, "01_tensors_and_tape.ipynb"), build)[:2]
            print("where the first cells' CPU time goes, build %s" % build)
            km, kc, _ = start(nb_dir)
            steps = [("pragmas", first_cells[0]),
                     ("standard headers", "#include <cmath>\n#include <iostream>\n#include <vector>"),
                     ("nlohmann/json", "#include <nlohmann/json.hpp>"),
                     ("xtensor", "#include <xtensor/xarray.hpp>\n#include <xtensor/xio.hpp>"),
                     ("xtensor-blas", "#include <xtensor-blas/xlinalg.hpp>"),
                     ("tapegrad", "#include <tapegrad/tapegrad.hpp>\nnamespace tg = tapegrad;"),
                     ("a Tensor", 'tg::Tensor x = tg::tensor({1.0, 2.0}, true, "x");'),
                     ("first rich display", "x"), ("second rich display", "x")]
            for label, code in steps:
                c0 = cpu_seconds(km)
                run(kc, code)
                print("  %-22s kernel CPU time %.2f s" % (label, cpu_seconds(km) - c0))
            stop(km, kc)
    for path in notebooks:
        for build in builds:
            use(build)
            t0 = time.monotonic()
            km, kc, _ = start(os.path.dirname(os.path.abspath(path)))
            for code in code_cells(path, build):
                run(kc, code)
            seconds = time.monotonic() - t0
            rss, cpu = peak_rss_mb(km), cpu_seconds(km)
            stop(km, kc)
            print("whole notebook %-34s %5.1f s (kernel CPU time %4.1f s), kernel peak memory %4.0f MB%s"
                  % (os.path.basename(path) + ":", seconds, cpu, rss, "  [%s]" % build if len(builds) > 1 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
