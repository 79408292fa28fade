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
  * --svg NB: every draw() output (image/svg+xml, div.output_svg) is an <svg> the browser laid
    out (a box of non-zero size) with the graph's nodes in it;
  * --steps NB: backward_steps()'s output: moving its slider moves the highlighted entry (the
    first frame after the seed highlights the last entry, the last frame entry #0), and the
    play button steps through the frames by itself;
  * save a screenshot to DIR/NB.png.
With --sweep-page TAPEGRAD_DEPTH it also runs a tiny sweep and opens its index.html from the file
system (file://, no server): the summary table is there and every image on it has loaded.
With --sweep-page-lang zh the sweep is run with --lang zh, and the page must draw its Chinese: the
fonts Chromium used for the headings and a summary cell (DevTools' CSS.getPlatformFontsForNode) must
include a CJK font (Noto Sans CJK, Debian's fonts-noto-cjk) that drew at least as many glyphs as the
text has Chinese characters; without one they would be boxes ("tofu") or another font's fallback.
The screenshot is DIR/sweep_index.png (DIR/sweep_index_zh.png in Chinese). Without notebooks given,
only the sweep page is checked (no notebook server).
--cjk NB=selector: the same font check on a notebook's page (a Chinese lesson of notebooks/zh/: its rendered
Markdown must be drawn by a CJK font). --cell-shot NB=selector: also DIR/NB.cell.png, the cell holding the
first element that matches (with the Markdown cell above it), e.g. a plot and the text that explains it.
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


def check_svgs(page, name):
    """Each draw() output is an SVG laid out by the browser, with its nodes."""
    svgs = page.js("Array.from(document.querySelectorAll('.output_svg svg')).map(s => {"
                   " const r = s.getBoundingClientRect();"
                   " return [r.width, r.height, s.querySelectorAll('g.node').length]; })")
    if not svgs:
        return ["%s: no draw() output (.output_svg svg) on the page" % name]
    bad = [s for s in svgs if s[0] <= 0 or s[1] <= 0 or s[2] == 0]
    print("%s: %d SVG graphs rendered (width x height, nodes): %s" % (name, len(svgs), svgs))
    return ["%s: SVGs not rendered (empty box or no nodes): %s" % (name, bad)] if bad else []


def check_steps(page, name):
    """backward_steps(): the slider moves the highlight; play steps on its own."""
    problems = []
    root = "document.querySelector('.tapegrad-steps')"
    if not page.js("!!" + root):
        return ["%s: no backward_steps() output (.tapegrad-steps) on the page" % name]

    def at(k):
        return page.js("(() => { const r = %s, s = r.querySelector('.tg-slider'); s.value = %d;"
                       " s.dispatchEvent(new Event('input')); const c = r.querySelector('svg g.tg-current');"
                       " return [c ? c.id : null, r.querySelector('.tg-caption').textContent,"
                       " r.querySelectorAll('svg g.tg-arrived').length]; })()" % (root, k))
    last = int(page.js(root + ".querySelector('.tg-slider').max"))
    seed, first, final = at(0), at(1), at(last)
    entries = last  # one frame per entry after the seed
    print("%s: backward_steps frames 0, 1, %d highlight %s, %s, %s" % (name, last, seed[0], first[0], final[0]))
    if seed[0] is not None:
        problems.append("%s: the seed frame highlights %s (it should highlight no entry)" % (name, seed[0]))
    if first[0] != "e%d" % (entries - 1) or final[0] != "e0":
        problems.append("%s: the slider does not move the highlight through the tape in reverse: frame 1 -> %s "
                        "(want e%d), frame %d -> %s (want e0)" % (name, first[0], entries - 1, last, final[0]))
    if not first[2]:
        problems.append("%s: frame 1 shows no tensor receiving a gradient" % name)
    at(0)
    page.js(root + ".querySelector('.tg-play').click(); true")
    try:
        wait_for("play to step", lambda: page.js(root + ".querySelector('.tg-slider').value !== '0'"), 10)
    except TimeoutError as e:
        problems.append("%s: the play button does not step: %s" % (name, e))
    page.js("(() => { const b = %s.querySelector('.tg-play'); if (b.textContent.indexOf('pause') >= 0) b.click();"
            " return true; })()" % root)
    return problems


def cjk_characters(text):
    """How many CJK characters (ideographs and full-width punctuation) text has."""
    return sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")


def check_cjk_fonts(page, selector, page_name="sweep index.html"):
    """Problems if the element's Chinese characters were not drawn by a CJK font (DevTools' platform fonts)."""
    page.call("DOM.enable")
    page.call("CSS.enable")
    root = page.call("DOM.getDocument", depth=-1)["root"]["nodeId"]
    node = page.call("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
    if not node:
        return ["%s: no %s" % (page_name, selector)]
    text = page.js("document.querySelector(%s).textContent" % json.dumps(selector))
    fonts = page.call("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]
    wanted = cjk_characters(text)
    drawn = sum(f["glyphCount"] for f in fonts if "CJK" in f["familyName"])
    print("%s %s %r: %d Chinese characters, fonts %s"
          % (page_name, selector, text[:40], wanted, [(f["familyName"], f["glyphCount"]) for f in fonts]))
    if wanted == 0:
        return ["%s: %s has no Chinese text: %r" % (page_name, selector, text)]
    if drawn < wanted:
        return ["%s: %s's %d Chinese characters: only %d glyphs from a CJK font (fonts used: %s); "
                "install fonts-noto-cjk" % (page_name, selector, wanted, drawn, fonts)]
    return []


def cell_screenshot(page, selector, path):
    """DIR/NB.cell.png: the cell of the first element matching selector, with the cell above it."""
    # The notebook page scrolls inside its own element (#site), so the two cells are scrolled to the top of the
    # window (2000 px tall) and cut from what the window shows.
    rect = page.js("(() => { const e = document.querySelector(%s); if (!e) return null;"
                   " const cell = e.closest('.cell'); const above = cell.previousElementSibling || cell;"
                   " above.scrollIntoView(); const a = above.getBoundingClientRect(), b = cell.getBoundingClientRect();"
                   " return [a.left, a.top, Math.max(a.right, b.right) - a.left, b.bottom - a.top]; })()"
                   % json.dumps(selector))
    if not rect:
        return ["no %s for the cell screenshot" % selector]
    x, y, width, height = rect
    time.sleep(0.5)  # let the page repaint after the scroll
    shot = page.call("Page.captureScreenshot", format="png",
                     clip={"x": x, "y": y, "width": width, "height": min(height, 2000 - y), "scale": 1})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("cell screenshot %s (%dx%d)" % (path, width, height))
    return []


def check_sweep_page(page, depth_bin, workdir, out_dir, lang="en"):
    """A tiny sweep's index.html, opened from the file system (in lang: en or zh)."""
    out = os.path.join(workdir, "sweep-" + lang)
    subprocess.run([depth_bin, "--placements", "post,pre", "--depths", "1,2", "--lrs", "0.01", "--warmups", "0",
                    "--widths", "4", "--steps", "8", "--batch", "8", "--seeds", "0", "-j1", "--out", out,
                    "--lang", lang],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    page.call("Page.navigate", url="file://" + os.path.join(out, "index.html"))
    wait_for("the sweep page", lambda: page.js("document.readyState === 'complete' &&"
                                                " document.querySelectorAll('table.summary').length === 1"), 60)
    images = page.js("Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])")
    cells = page.js("document.querySelectorAll('table.summary td.trained, table.summary td.failed,"
                    " table.summary td.between').length")
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    with open(os.path.join(out_dir, "sweep_index%s.png" % ("" if lang == "en" else "_" + lang)), "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("sweep index.html: %d images %s, %d summary cells" % (len(images), images, cells))
    problems = []
    if not images or any(not complete or width <= 0 for _, complete, width in images):
        problems.append("sweep index.html: images that did not load: %s" % images)
    if cells != 4:
        problems.append("sweep index.html: %d coloured summary cells, want 4 (2 placements x 2 depths)" % cells)
    if lang == "zh":
        for selector in ("h1", "h2", "table.summary td.trained, table.summary td.failed, table.summary td.between"):
            problems += check_cjk_fonts(page, selector)
    return problems


def check_notebook(page, base, token, name, expect, out_dir, timeout, svg=False, steps=False, cjk=(), cell_shot=None):
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
    if svg:
        problems += check_svgs(page, name)
    if steps:
        problems += check_steps(page, name)
    for selector in cjk:
        problems += check_cjk_fonts(page, selector, name)
    if cell_shot:
        problems += cell_screenshot(page, cell_shot, os.path.join(out_dir, os.path.splitext(name)[0] + ".cell.png"))
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    png = os.path.join(out_dir, os.path.splitext(name)[0] + ".png")
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("%s: %d code cells ran in %.1f s in the browser; screenshot %s" % (name, code_cells, seconds, png))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="*")
    ap.add_argument("--kernelspecs", help="required with notebooks")
    ap.add_argument("--lib-dir", help="required with notebooks")
    ap.add_argument("--include-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                          "include"))
    ap.add_argument("--out", required=True, help="where the screenshots go")
    ap.add_argument("--expect", action="append", default=[], help="NB=css selector that must match")
    ap.add_argument("--svg", action="append", default=[], help="NB whose draw() SVGs must render")
    ap.add_argument("--steps", action="append", default=[], help="NB whose backward_steps() slider is checked")
    ap.add_argument("--cjk", action="append", default=[], help="NB=css selector whose Chinese a CJK font must draw")
    ap.add_argument("--cell-shot", action="append", default=[], help="NB=css selector: screenshot of its cell")
    ap.add_argument("--sweep-page", help="tapegrad-depth: run a tiny sweep and check its index.html")
    ap.add_argument("--sweep-page-lang", choices=["en", "zh"], default="en",
                    help="the sweep page's language (zh: its Chinese must be drawn by a CJK font)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds to run one notebook's cells")
    args = ap.parse_args()
    if args.notebooks and not (args.kernelspecs and args.lib_dir):
        ap.error("notebooks need --kernelspecs and --lib-dir")
    if not args.notebooks and not args.sweep_page:
        ap.error("nothing to check: give notebooks, --sweep-page or both")

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = [what for what, ok in (("chromium (package chromium)", chromium),
                                     ("the notebook server (package jupyter-notebook)",
                                      _has_module("notebook") or not args.notebooks),
                                     ("python3-websocket", _has_module("websocket"))) if not ok]
    if missing:
        print("SKIP: the browser test needs " + ", ".join(missing))
        return 0

    os.makedirs(args.out, exist_ok=True)
    expect, cjk = {}, {}
    for option, table in ((args.expect, expect), (args.cjk, cjk)):
        for e in option:
            nb, selector = e.split("=", 1)
            table.setdefault(nb, []).append(selector)
    cell_shots = dict(e.split("=", 1) for e in args.cell_shot)
    workdir = tempfile.mkdtemp(prefix="tapegrad-browser-")
    token = base64.b32encode(os.urandom(15)).decode().lower()
    server = browser = None
    problems = []
    env = dict(os.environ, JUPYTER_PATH=os.path.abspath(args.kernelspecs or workdir), OPENBLAS_NUM_THREADS="1",
               JUPYTER_CONFIG_DIR=os.path.join(workdir, "config"), JUPYTER_RUNTIME_DIR=os.path.join(workdir, "runtime"))
    try:
        nb_dir = os.path.join(workdir, "notebooks")
        os.makedirs(nb_dir)
        names = [os.path.basename(copy_notebook(nb, nb_dir, os.path.abspath(args.include_dir),
                                                os.path.abspath(args.lib_dir))) for nb in args.notebooks]
        port = free_port()
        base = "http://127.0.0.1:%d" % port
        if names:  # the sweep page alone needs no server
            with open(os.path.join(args.out, "notebook-server.log"), "w") as log:
                server = subprocess.Popen([sys.executable, "-m", "notebook", "--no-browser", "--allow-root",
                                           "--ip=127.0.0.1", "--port=%d" % port, "--port-retries=0",
                                           "--NotebookApp.token=" + token, "--notebook-dir=" + nb_dir],
                                          stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
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
            problems += check_notebook(page, base, token, name, expect.get(name, []), args.out, args.timeout,
                                       svg=name in args.svg, steps=name in args.steps, cjk=cjk.get(name, []),
                                       cell_shot=cell_shots.get(name))
            page.js("Jupyter.notebook.session.delete(); true")  # shut its kernel down
        if args.sweep_page:
            problems += check_sweep_page(page, args.sweep_page, workdir, args.out, args.sweep_page_lang)
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
