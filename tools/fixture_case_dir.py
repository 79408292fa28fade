"""One PyTorch fixture case on disk, shared by tools/llm_*_fixtures.py: a fresh directory of float64 .npy
files and a README saying which script wrote them and how to regenerate them."""
import os
import shutil

import numpy as np
import torch


def write_case_dir(root, name, arrays, what, script, note=""):
    """Replaces root/name with one <stem>.npy per entry of arrays (torch tensors, saved as float64) and
    a README.md: "# <name>: PyTorch reference for <what>", the regeneration command, then `note`."""
    out = os.path.join(root, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for stem, t in arrays.items():
        np.save(os.path.join(out, stem + ".npy"), t.numpy().astype(np.float64))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("# %s: PyTorch reference for %s\n\n" % (name, what))
        f.write("Written by `tools/%s` (its docstring says what each file holds). Regenerate,\n"
                "from the repository root, with Debian's python3-torch (torch %s, numpy %s):\n\n"
                "    /usr/bin/python3 tools/%s\n\n"
                "Deterministic (fixed seed, float64, CPU): rerunning reproduces these files.\n%s"
                % (script, torch.__version__, np.__version__, script, note))
