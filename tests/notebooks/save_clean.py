#!/usr/bin/python3
"""Opening and saving a notebook through the Jupyter server leaves git clean (issue 38, item 2).

  save_clean.py --kernelspecs BUILD/share/jupyter notebooks/01_tensors_and_tape.ipynb

The notebook is copied into a fresh git repository, the classic Notebook server (as scripts/notebook.sh
starts it) serves it, and the test saves it as the page does on opening it: the page sets the notebook's
kernelspec from the server's kernelspec (name, display_name, language) and PUTs it back. `git status`
must then show nothing: the kernelspec's display name is the one the notebooks hold.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def api(base, path, token, data=None):
    req = urllib.request.Request("%s%s?token=%s" % (base, path, token), method="PUT" if data else "GET",
                                 data=json.dumps(data).encode() if data else None,
                                 headers={"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=10).read().decode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernelspecs", required=True)
    ap.add_argument("notebook")
    args = ap.parse_args()
    work = tempfile.mkdtemp()
    name = os.path.basename(args.notebook)
    shutil.copy(args.notebook, os.path.join(work, name))
    git = lambda *a: subprocess.run(["git", "-C", work] + list(a), capture_output=True, text=True, check=True).stdout
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", name)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "as tracked")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    token = "savecheck"
    env = dict(os.environ, JUPYTER_PATH=args.kernelspecs, JUPYTER_RUNTIME_DIR=os.path.join(work, ".runtime"))
    server = subprocess.Popen([sys.executable, "-m", "notebook", "--no-browser", "--ip=127.0.0.1", "--port=%d" % port,
                               "--port-retries=0", "--NotebookApp.token=" + token, "--notebook-dir=" + work]
                              + (["--allow-root"] if os.getuid() == 0 else []),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    base = "http://127.0.0.1:%d" % port
    try:
        for _ in range(120):
            try:
                specs = api(base, "/api/kernelspecs", token)
                break
            except OSError:
                time.sleep(0.5)
        else:
            print("FAIL  the notebook server did not answer")
            return 1
        spec = specs["kernelspecs"]["xcpp17"]["spec"]
        model = api(base, "/api/contents/" + name, token)
        nb = model["content"]
        # What the page does when it opens the notebook with its kernel, before its autosave.
        nb["metadata"]["kernelspec"] = {"name": "xcpp17", "display_name": spec["display_name"],
                                        "language": spec["language"]}
        api(base, "/api/contents/" + name, token, {"type": "notebook", "format": "json", "content": nb})
    finally:
        server.terminate()
        server.wait(timeout=30)
    status = git("status", "--porcelain", "--", name)
    diff = git("diff", "--", name)
    shutil.rmtree(work, ignore_errors=True)
    if status.strip():
        print("FAIL  saving %s through the Jupyter server changes it (git status %r):\n%s" % (name, status, diff[:2000]))
        return 1
    print("ok    saving %s through the Jupyter server leaves git clean (display name %r)" % (name, spec["display_name"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
