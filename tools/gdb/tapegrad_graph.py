# The tape as a Graphviz graph, for the debuggers' `tapegrad-graph out.svg` command (gdb:
# tapegrad_printers.py, lldb: tools/lldb/tapegrad_lldb.py). No debugger module here: each
# debugger reads the tape from memory into plain dicts and this file draws them, in the
# style of tapegrad::draw_dot (src/debug/draw_graph.cpp: the same ids t<k> and e<index>,
# shapes and colours), so a picture from a stopped program looks like draw()'s.
#
#   entries: [{"op": "mul", "inputs": [tensor, ...], "output": tensor}, ...]
#   tensor:  {"addr": int, "name": str, "shape": (2, 3), "values": [...], "grad": [...] or None,
#             "requires_grad": bool, "made_here": bool (the output of an entry of this tape)}

import os
import subprocess
import tempfile

FUSED = {"layer_norm", "rms_norm", "batch_norm", "linear", "feed_forward", "softmax", "log_softmax",
         "cross_entropy", "mse_loss", "scaled_dot_product_attention", "gelu", "gelu_tanh", "silu", "swiglu",
         "embedding", "rotary_embedding"}
MAX_VALUES = 6  # DrawOptions::max_values


def _num(x):
    return "%.4g" % x


def _nested(values, shape):
    if not shape:
        return _num(values[0])
    step = len(values) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def values_str(values, shape):
    """As detail::values_str: all values of a small array, else min, max and the L2 norm."""
    if not values:
        return "[]"
    if len(values) <= MAX_VALUES:
        return _nested(values, tuple(shape))
    norm = sum(v * v for v in values) ** 0.5
    return "min %s max %s |x| %s" % (_num(min(values)), _num(max(values)), _num(norm))


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def graph_dot(entries, highlight=-1, direction="TB"):
    """The Graphviz source; entry `highlight` (the one whose backward is running) in orange."""
    out = ["digraph tape {", "  rankdir=%s;" % direction,
           '  node [fontname="monospace", fontsize=10];', '  edge [fontname="monospace", fontsize=9];']
    ids = {}
    root = entries[-1]["output"]["addr"] if entries else None

    def node(t):
        if t["addr"] in ids:
            return ids[t["addr"]]
        ids[t["addr"]] = "t%d" % len(ids)
        lines = ([t["name"]] if t["name"] else []) + ["(" + ", ".join(str(d) for d in t["shape"]) + ")",
                                                     values_str(t["values"], t["shape"])]
        if t["grad"] is not None:
            lines.append("grad " + values_str(t["grad"], t["shape"]))
        if t["addr"] == root:
            style = "shape=ellipse, style=filled, fillcolor=gold, peripheries=2"
        elif t["made_here"]:
            style = "shape=ellipse, style=filled, fillcolor=lightyellow"
        elif t["requires_grad"]:
            style = 'shape=box, style="rounded,filled", fillcolor=lightblue'
        else:
            style = "shape=note, style=filled, fillcolor=white"
        out.append('  %s [id="%s", class="tensor", %s, label=%s];' % (ids[t["addr"]], ids[t["addr"]], style,
                                                                      _quote("\n".join(lines))))
        return ids[t["addr"]]

    for i, e in enumerate(entries):
        ins = [node(t) for t in e["inputs"]]
        result = node(e["output"])
        fused = e["op"] in FUSED
        current = i == highlight
        out.append('  e%d [id="e%d", class="op %s%s", shape=box, style="%s", fillcolor=%s%s, label=%s];' % (
            i, i, "fused" if fused else "primitive", " current" if current else "",
            "filled,bold" if fused else "filled", "orange" if current else "thistle" if fused else "lightgrey",
            ", penwidth=3" if current else "",
            _quote("#%d %s\n%s" % (i, e["op"], "fused" if fused else "primitive"))))
        for k, t in enumerate(ins):
            out.append("  %s -> e%d%s;" % (t, i, ' [label="%d"]' % k if len(ins) > 1 else ""))
        out.append("  e%d -> %s;" % (i, result))
    out.append("}")
    return "\n".join(out) + "\n"


def write_graph(dot, path):
    """Writes the source (path.dot / .gv) or lays it out with Graphviz's `dot` (.svg, .png, .pdf).
    Returns a line saying what was written."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext in ("dot", "gv", ""):
        with open(path, "w") as f:
            f.write(dot)
        return "tapegrad-graph: wrote the Graphviz source to %s" % path
    with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as f:
        f.write(dot)
        source = f.name
    try:
        done = subprocess.run(["dot", "-T" + ext, source, "-o", path], capture_output=True, text=True)
    except FileNotFoundError:
        raise RuntimeError("tapegrad-graph: Graphviz's `dot` is not installed (sudo apt-get install graphviz); "
                           "write the source instead: tapegrad-graph out.dot")
    finally:
        os.unlink(source)
    if done.returncode != 0:
        raise RuntimeError("tapegrad-graph: dot -T%s failed: %s" % (ext, done.stderr.strip()))
    return "tapegrad-graph: wrote %s" % path
