#!/usr/bin/env python3
"""The install of docs/using-tapegrad.md, done into a temporary prefix, and what it installed started there.

    install_test.py BUILD_DIR WORK_DIR [--kernel]

`cmake --install BUILD_DIR --prefix WORK_DIR/prefix`, then:
  - the installed tapegrad-depth runs (`--help`): it finds the installed libtapegrad.so.0 (RPATH $ORIGIN/../lib),
    with the build folder out of the way (LD_LIBRARY_PATH cleared);
  - with --kernel: the installed kernelspec names the installed kernel and its headers, and that kernel,
    started through jupyter_client from the installed kernelspec alone, runs one cell.
Prints PASS: install, or FAIL: and why.
"""
import json
import os
import shutil
import subprocess
import sys


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def main():
    build, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    kernel = "--kernel" in sys.argv[3:]
    shutil.rmtree(work, ignore_errors=True)
    prefix = os.path.join(work, "prefix")
    os.makedirs(work)
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    done = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
    if done.returncode != 0:
        fail("cmake --install failed: " + done.stdout + done.stderr)

    depth = os.path.join(prefix, "bin", "tapegrad-depth")
    done = subprocess.run([depth, "--help"], capture_output=True, text=True, env=env, cwd=work)
    if done.returncode != 0 or "tapegrad-depth: the depth-stability lab" not in done.stdout:
        fail("the installed %s --help exited %d: %s" % (depth, done.returncode, done.stderr.strip()))
    ldd = subprocess.run(["ldd", depth], capture_output=True, text=True, env=env).stdout
    loaded = [line.split("=>")[1].split()[0] for line in ldd.splitlines() if "libtapegrad.so" in line and "=>" in line]
    if not loaded or not os.path.realpath(loaded[0]).startswith(prefix + os.sep):
        fail("the installed tapegrad-depth does not load the installed libtapegrad:\n" + ldd)

    if kernel:
        check_kernel(prefix, work, env)
    print("PASS: install")


def check_kernel(prefix, work, env):
    spec_dir = os.path.join(prefix, "share", "jupyter", "kernels", "xcpp17")
    with open(os.path.join(spec_dir, "kernel.json")) as f:
        spec = json.load(f)
    want = os.path.join(prefix, "bin", "tapegrad-xcpp")
    if spec["argv"][0] != want:
        fail("the installed kernel.json starts %s, not the installed kernel %s" % (spec["argv"][0], want))
    for arg in spec["argv"]:
        if arg.startswith("/") and not arg.startswith(prefix):
            fail("the installed kernel.json names %s, outside the prefix %s" % (arg, prefix))
    # Jupyter's own files in the scratch folder, not in the home folder.
    os.environ.update({"JUPYTER_RUNTIME_DIR": os.path.join(work, "runtime"), "JUPYTER_DATA_DIR": os.path.join(work, "data"),
                       "JUPYTER_CONFIG_DIR": os.path.join(work, "config"), "JUPYTER_PATH": ""})
    os.environ.pop("LD_LIBRARY_PATH", None)
    import jupyter_client
    from jupyter_client.kernelspec import KernelSpecManager
    km = jupyter_client.KernelManager(kernel_name="xcpp17",
                                      kernel_spec_manager=KernelSpecManager(kernel_dirs=[os.path.dirname(spec_dir)]))
    if km.kernel_spec.argv[0] != want:
        fail("jupyter_client found another xcpp17 kernelspec: " + str(km.kernel_spec.argv))
    km.start_kernel(cwd=work)
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        reply = kc.execute_interactive('#include <cstdio>\nstd::printf("%d\\n", 6 * 7);', timeout=120,
                                       output_hook=lambda msg: outputs.append(msg))
        text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
        if reply["content"]["status"] != "ok" or text.strip() != "42":
            fail("the installed kernel's cell gave %s, output %r" % (reply["content"]["status"], text))
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=True)


outputs = []
if __name__ == "__main__":
    main()
