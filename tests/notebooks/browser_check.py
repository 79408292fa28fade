#!/usr/bin/python3
"""Browser test: the classic Jupyter Notebook page runs notebooks 01, 06 and 07 through the
kernel, in headless Chromium, as a learner would click "Run All".

  browser_check.py --kernelspecs BUILD/share/jupyter --lib-dir BUILD --out DIR NB.ipynb [...]

For each notebook (a copy, in a temporary folder: autosave writes outputs into it), with
the server and the browser bound to 127.0.0.1 and the server behind a token:
  * open /notebooks/NB, wait for the kernel, Jupyter.notebook.execute_all_cells(), wait
    until no cell shows In [*];
  * check the page: no error output, and what the notebook must show (--expect NB=selector:
    the Tensor's HTML table in 01, the plot's image in 06, the tables in 07);
  * save a screenshot to DIR/NB.png.
The server and the browser are ended by their process ids. Without chromium (or the
notebook server, or python3-websocket) it prints "SKIP: ..." and exits 0; ctest reports
the test as skipped.
"""

import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, probe, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value:
                return value
        except Exception:  # not up yet
            pass
        time.sleep(0.5)
    raise TimeoutError("timed out after %d s waiting for %s" % (timeout, what))


class DevTools:
    """The Chrome DevTools protocol over one page's websocket (python3-websocket)."""

    def __init__(self, ws_url):
        import websocket
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})

    def js(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


def end(proc):
    """Ends a process we started (and its process group: Chromium's helpers) by its pid."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def copy_notebook(src, dest_dir, include_dir, lib_dir):
    """A copy whose pragmas point at absolute paths (the copy lives elsewhere)."""
    with open(src, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r'(add_include_path\(\\")[^"\\]*(\\")', lambda m: m.group(1) + include_dir + m.group(2), text)
    text = re.sub(r'(add_library_path\(\\")[^"\\]*(\\")', lambda m: m.group(1) + lib_dir + m.group(2), text)
    dest = os.path.join(dest_dir, os.path.basename(src))
    with open(dest, "w", encoding="utf-8") as f:
        f.write(text)
    return dest


def check_notebook(page, base, token, name, expect, out_dir, timeout):
    problems = []
    page.call("Page.enable")
    page.call("Page.navigate", url="%s/notebooks/%s?token=%s" % (base, name, token))
    wait_for("the notebook's kernel", lambda: page.js(
        "typeof Jupyter !== 'undefined' && Jupyter.notebook && Jupyter.notebook.kernel &&"
        " Jupyter.notebook.kernel.is_connected() && Jupyter.notebook.kernel.info_reply &&"
        " Jupyter.notebook.kernel.info_reply.implementation === 'tapegrad-xcpp'"), 120)
    start = time.monotonic()
    page.js("Jupyter.notebook.execute_all_cells(); true")
    code_cells = page.js("Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code').length")
    wait_for("all cells to run", lambda: page.js(
        "Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code' &&"
        " (c.input_prompt_number === '*' || c.input_prompt_number === undefined || c.input_prompt_number === null)"
        ").length === 0"), timeout)
    seconds = time.monotonic() - start
    errors = page.js("Array.from(document.querySelectorAll('.output_error')).map(e => e.innerText.slice(0, 300))")
    if errors:
        problems.append("%s: %d error output(s): %s" % (name, len(errors), errors))
    for selector in expect:
        count = page.js("document.querySelectorAll(%s).length" % json.dumps(selector))
        if not count:
            problems.append("%s: nothing on the page matches %s" % (name, selector))
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    png = os.path.join(out_dir, os.path.splitext(name)[0] + ".png")
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("%s: %d code cells ran in %.1f s in the browser; screenshot %s" % (name, code_cells, seconds, png))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--include-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                          "include"))
    ap.add_argument("--out", required=True, help="where the screenshots go")
    ap.add_argument("--expect", action="append", default=[], help="NB=css selector that must match")
    ap.add_argument("--timeout", type=float, default=300, help="seconds to run one notebook's cells")
    args = ap.parse_args()

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [what for what, ok in (("chromium (package chromium)", chromium),
                                     ("the notebook server (package jupyter-notebook)", _has_module("notebook")),
                                     ("python3-websocket", _has_module("websocket"))) if not ok]
    if missing:
        print("SKIP: the browser test needs " + ", ".join(missing))
        return 0

    os.makedirs(args.out, exist_ok=True)
    expect = {}
    for e in args.expect:
        nb, selector = e.split("=", 1)
        expect.setdefault(nb, []).append(selector)
    workdir = tempfile.mkdtemp(prefix="tapegrad-browser-")
    token = base64.b32encode(os.urandom(15)).decode().lower()
    server = browser = None
    problems = []
    env = dict(os.environ, JUPYTER_PATH=os.path.abspath(args.kernelspecs), OPENBLAS_NUM_THREADS="1",
               JUPYTER_CONFIG_DIR=os.path.join(workdir, "config"), JUPYTER_RUNTIME_DIR=os.path.join(workdir, "runtime"))
    try:
        nb_dir = os.path.join(workdir, "notebooks")
        os.makedirs(nb_dir)
        names = [os.path.basename(copy_notebook(nb, nb_dir, os.path.abspath(args.include_dir),
                                                os.path.abspath(args.lib_dir))) for nb in args.notebooks]
        port = free_port()
        with open(os.path.join(args.out, "notebook-server.log"), "w") as log:
            server = subprocess.Popen([sys.executable, "-m", "notebook", "--no-browser", "--allow-root",
                                       "--ip=127.0.0.1", "--port=%d" % port, "--port-retries=0",
                                       "--NotebookApp.token=" + token, "--notebook-dir=" + nb_dir],
                                      stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        base = "http://127.0.0.1:%d" % port
        wait_for("the notebook server", lambda: urllib.request.urlopen("%s/api/status?token=%s" % (base, token),
                                                                      timeout=5).status == 200, 60)
        debug_port = free_port()
        browser = subprocess.Popen([chromium] + CHROMIUM_FLAGS + [
            "--user-data-dir=" + os.path.join(workdir, "chromium"), "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=%d" % debug_port, "--window-size=1280,2000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        targets = wait_for("Chromium's DevTools", lambda: [t for t in json.load(urllib.request.urlopen(
            "http://127.0.0.1:%d/json" % debug_port, timeout=5)) if t.get("type") == "page"], 60)
        page = DevTools(targets[0]["webSocketDebuggerUrl"])
        for name in names:
            problems += check_notebook(page, base, token, name, expect.get(name, []), args.out, args.timeout)
            page.js("Jupyter.notebook.session.delete(); true")  # shut its kernel down
    except Exception as e:
        problems.append("%s: %s" % (type(e).__name__, e))
    finally:
        end(browser)
        end(server)
        shutil.rmtree(workdir, ignore_errors=True)
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print("browser check passed")
    return 1 if problems else 0


def _has_module(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    sys.exit(main())
