# gdb pretty-printers for tapegrad: tensors, the tape, and xtensor arrays.
#
# Loaded automatically from the .debug_gdb_scripts section of libtapegrad.so
# (allow it with `add-auto-load-safe-path /path/to/build` or
# `set auto-load safe-path /`), or by hand:
#
#   (gdb) source /path/to/tapegrad/tools/gdb/tapegrad_printers.py
#
# What you get (see tools/gdb/README.md for a session):
#   p x                    Tensor(name='x', shape=(2, 3), value=[[...]], requires_grad, grad=[[...]])
#   p *x.impl_             the same for the TensorImpl
#   p $tape()              this thread's tape, one line per op: #1 relu  #0 (2, 4) -> (2, 4)
#   p e                    a TapeEntry (in a backward function): its op, inputs and output
#   p x.impl_->value       an xt::xarray / xt::xtensor: shape and values, not xtensor internals
#   p x.impl_->grad        `none (...)` while the tensor has no gradient (never a fake 0)
#   p x.grad()             the gradient, or tapegrad's own message when there is none (an xmethod)
#   p *ffn                 an nn module: type, settings, parameters with shapes and norms, children
#   tapegrad-table         the tape as tapegrad::tape_table() prints it: norms of values and grads
#   tapegrad-graph out.svg the tape as a graph, as tapegrad::draw() draws it (out.dot: the source);
#                          inside a backward, the entry being differentiated is orange
#   set tapegrad-max-values 32   show more values (default 8); /r prints raw members
#
# Everything here only reads memory, never calls into the program (`p tapegrad::tape()`
# would, and that fails on core files and where ptrace cannot run code in the inferior).

import math
import struct

import gdb
import gdb.printing
import gdb.xmethod
from gdb.FrameDecorator import FrameDecorator

# The graph writer (tapegrad_graph.py, shared with lldb): cmake/gdb.cmake embeds it in front of
# this file in libtapegrad.so; a `source`d copy of this file imports it from beside itself.
if "graph_dot" not in globals():
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from tapegrad_graph import graph_dot, write_graph


class MaxValues(gdb.Parameter):
    """How many values the tapegrad printers show per array (default 8)."""

    set_doc = "Set how many values tapegrad printers show per array."
    show_doc = "Show how many values tapegrad printers show per array."

    def __init__(self):
        super().__init__("tapegrad-max-values", gdb.COMMAND_DATA, gdb.PARAM_ZUINTEGER)
        self.value = 8

    def get_show_string(self, svalue):
        return "tapegrad printers show up to %s values per array" % svalue


def _max_values():
    try:
        return int(gdb.parameter("tapegrad-max-values"))
    except (gdb.error, RuntimeError):
        return 8


# ---- reading libstdc++ and xtensor members ----

def _std_string(v, limit=200):
    """A std::string as a Python str (libstdc++ layout), at most `limit` characters."""
    try:
        n = int(v["_M_string_length"])
        if n == 0:
            return ""
        if n < 0 or n > 100000000:
            raise gdb.error("std::string looks uninitialized")
        return v["_M_dataplus"]["_M_p"].string(length=min(n, limit))
    except gdb.error:
        return str(v)


def _std_vector(v):
    """The elements of a std::vector as a list of gdb.Values."""
    start = v["_M_impl"]["_M_start"]
    n = int(v["_M_impl"]["_M_finish"] - start)
    if n < 0 or n > 1000000:
        raise gdb.error("std::vector looks uninitialized")
    return [(start + i).dereference() for i in range(n)]


def _shared_ptr(v):
    """The raw pointer a std::shared_ptr holds."""
    return v["_M_ptr"]


def _xt_shape(arr):
    """The shape of an xarray (svector m_shape) or xtensor (std::array m_shape)."""
    shape = arr["m_shape"]
    fields = [f.name for f in shape.type.strip_typedefs().fields()]
    if "m_begin" in fields:  # xt::svector
        begin = shape["m_begin"]
        n = int(shape["m_end"] - begin)
        if n < 0 or n > 32:
            raise gdb.error("shape looks uninitialized")
        return tuple(int((begin + i).dereference()) for i in range(n))
    elems = shape["_M_elems"]  # std::array<std::size_t, N>
    n = elems.type.strip_typedefs().range()[1] + 1
    return tuple(int(elems[i]) for i in range(n))


def _xt_values(arr, count):
    """The first `count` doubles of an xarray/xtensor's storage (an xt::uvector)."""
    storage = arr["m_storage"]
    begin = storage["p_begin"]
    size = int(storage["p_end"] - begin)
    count = min(count, size)
    if count <= 0:
        return size, []
    elem = begin.dereference().type.strip_typedefs()
    raw = gdb.selected_inferior().read_memory(int(begin), count * elem.sizeof)
    if elem.code == gdb.TYPE_CODE_FLT and elem.sizeof == 8:
        return size, list(struct.unpack("%dd" % count, bytes(raw)))
    if elem.code == gdb.TYPE_CODE_FLT and elem.sizeof == 4:
        return size, list(struct.unpack("%df" % count, bytes(raw)))
    return size, [int((begin + i).dereference()) for i in range(count)]


def _all_values(arr, limit=50000000):
    """Every value of an xarray/xtensor (for norms), as a list of Python numbers."""
    storage = arr["m_storage"]
    size = int(storage["p_end"] - storage["p_begin"])
    if size < 0 or size > limit:
        raise gdb.error("array of %d values looks uninitialized" % size)
    return _xt_values(arr, size)[1]


def norm_str(arr):
    """The L2 norm as tape_table() prints it (4 significant digits)."""
    return "%.4g" % math.sqrt(sum(x * x for x in _all_values(arr)))


def _num(x):
    if isinstance(x, float):
        return "%.6g" % x  # nan, inf and -inf print as such
    return str(x)


def _nested(values, shape):
    """Row-major values as nested brackets, like NumPy: [[1, 2], [3, 4]]."""
    if not shape:
        return _num(values[0])
    step = len(values) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def shape_str(shape):
    """(2, 3) like tapegrad::shape_str; () for a scalar."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def array_str(arr):
    """The values of an xarray/xtensor: nested if they all fit, else the first few."""
    shape = _xt_shape(arr)
    limit = _max_values()
    size, values = _xt_values(arr, limit)
    expected = 1
    for d in shape:
        expected *= d
    if size != expected:
        return "<shape %s does not match %d stored values: uninitialized?>" % (shape_str(shape), size)
    if size == 0:
        return "[]"
    if size <= limit:
        return _nested(values, shape)
    return "[" + ", ".join(_num(x) for x in values) + ", ... (%d values, first %d shown)]" % (size, len(values))


# ---- tapegrad types ----

def _impl_label(impl):
    """"'w' (3, 4)" or "(3, 4)", as Tensor::label()."""
    name = _std_string(impl["name"])
    shape = shape_str(_xt_shape(impl["value"]))
    return "'%s' %s" % (name, shape) if name else shape


def impl_str(impl):
    """A TensorImpl in the style of Tensor::to_string(), on one line."""
    parts = []
    name = _std_string(impl["name"])
    if name:
        parts.append("name='%s'" % name)
    parts.append("shape=" + shape_str(_xt_shape(impl["value"])))
    parts.append("value=" + array_str(impl["value"]))
    made_by = _std_string(impl["made_by"])
    if made_by:
        where = "tape #%d" % int(impl["tape_index"])
        if bool(impl["graph_released"]):
            where += ", released"
        parts.append("made_by=%s (%s)" % (made_by, where))
    if bool(impl["requires_grad"]):
        parts.append("requires_grad")
    if bool(impl["has_grad"]):
        parts.append("grad=" + array_str(impl["grad"]))
    elif bool(impl["requires_grad"]):
        parts.append("grad=none")
    if int(impl["version"]):
        parts.append("version=%d" % int(impl["version"]))
    return "Tensor(" + ", ".join(parts) + ")"


def tensor_str(tensor):
    """A tapegrad::Tensor: the TensorImpl its shared_ptr impl_ points to."""
    impl = _shared_ptr(tensor["impl_"])
    if int(impl) == 0:
        return "Tensor(<undefined>)"
    return impl_str(impl.dereference())


def _input_ref(impl_ptr, generation):
    """"#3 (2, 4)" for the output of entry 3 of this tape, else the label."""
    if int(impl_ptr) == 0:
        return "<undefined>"
    impl = impl_ptr.dereference()
    index = int(impl["tape_index"])
    if index >= 0 and generation is not None and int(impl["tape_generation"]) == generation:
        return "#%d %s" % (index, _impl_label(impl))
    return _impl_label(impl)


def entry_line(entry, generation=None):
    """"relu  #0 (2, 4) -> (2, 4)" for one TapeEntry."""
    inputs = ", ".join(_input_ref(_shared_ptr(t["impl_"]), generation) for t in _std_vector(entry["inputs"]))
    out = _shared_ptr(entry["output"]["impl_"])
    out_label = _impl_label(out.dereference()) if int(out) else "<undefined>"
    return "%-12s %s -> %s" % (_std_string(entry["op"]), inputs, out_label)


def entry_str(entry):
    """A TapeEntry: its line, then each input and the output in full."""
    out = _shared_ptr(entry["output"]["impl_"])
    index = int(out.dereference()["tape_index"]) if int(out) else -1
    # Inputs made on the output's tape generation are earlier entries: "#k".
    generation = int(out.dereference()["tape_generation"]) if int(out) else None
    lines = ["TapeEntry #%d %s" % (index, entry_line(entry, generation))]
    for k, t in enumerate(_std_vector(entry["inputs"])):
        lines.append("  input %d: %s" % (k, tensor_str(t)))
    lines.append("  output:  %s" % tensor_str(entry["output"]))
    return "\n".join(lines)


def tape_str(tape):
    """The Tape: one line per entry, like Tape::to_string()."""
    entries = _std_vector(tape["entries"])
    generation = int(tape["generation"])
    noun = "entry" if len(entries) == 1 else "entries"
    lines = ["Tape with %d %s (generation %d)" % (len(entries), noun, generation)]
    for i, e in enumerate(entries):
        lines.append("  #%-3d %s" % (i, entry_line(e, generation)))
    return "\n".join(lines)


def _impl_whose_grad_is(arr):
    """The TensorImpl whose unset `grad` member `arr` is, or None. An unset gradient is a
    0-d placeholder array (`xarray () 0`), which would look like a real zero."""
    if arr.address is None or _xt_shape(arr) != ():
        return None
    try:
        impl_type = gdb.lookup_type("tapegrad::TensorImpl")
    except gdb.error:
        return None
    offset = next(f.bitpos // 8 for f in impl_type.fields() if f.name == "grad")
    impl = gdb.Value(int(arr.address) - offset).cast(impl_type.pointer()).dereference()
    try:
        flags = bytes(gdb.selected_inferior().read_memory(impl["has_grad"].address, 3))
        shape = _xt_shape(impl["value"])  # the value beside it must be a real array
        expected = 1
        for d in shape:
            expected *= d
        sane = (len(shape) <= 8 and all(b in (0, 1) for b in flags) and
                int(impl["value"]["m_storage"]["p_end"] - impl["value"]["m_storage"]["p_begin"]) == expected)
    except (gdb.error, gdb.MemoryError):
        return None
    return impl if sane and flags[0] == 0 else None


def xarray_str(arr, kind):
    """xt::xarray<double> / xt::xtensor<double, N>: "xarray (2, 3) [[...]]"."""
    if kind == "xarray" and _impl_whose_grad_is(arr) is not None:
        return "none (TensorImpl::has_grad is false: no gradient yet; this 0-d array is a placeholder)"
    return "%s %s %s" % (kind, shape_str(_xt_shape(arr)), array_str(arr))


# ---- nn modules ----

# Settings shown after the type, as the module's extra_repr() does (those it has).
_MODULE_SETTINGS = ("in_features", "out_features", "num_features", "d", "hidden", "activation", "placement",
                    "eps", "momentum", "num_heads", "num_kv_heads", "head_dim")


def _enum_name(v):
    """"pre" for tapegrad::nn::Placement::pre."""
    return str(v).split("::")[-1]


def _module_settings(module):
    fields = {f.name for f in module.type.strip_typedefs().fields()}
    shown = []
    for name in _MODULE_SETTINGS:
        if name not in fields:
            continue
        v = module[name]
        code = v.type.strip_typedefs().code
        if code == gdb.TYPE_CODE_ENUM:
            shown.append("%s=%s" % (name, _enum_name(v)))
        elif code == gdb.TYPE_CODE_FLT:
            shown.append("%s=%g" % (name, float(v)))
        elif code == gdb.TYPE_CODE_INT:
            shown.append("%s=%d" % (name, int(v)))
    return ", ".join(shown)


def _tensor_summary(tensor):
    """"(3, 4) |value| 2.1, grad none" for a parameter or buffer (|.|: the L2 norm)."""
    impl = _shared_ptr(tensor["impl_"])
    if int(impl) == 0:
        return "undefined"
    impl = impl.dereference()
    text = "%s |value| %s" % (shape_str(_xt_shape(impl["value"])), norm_str(impl["value"]))
    if bool(impl["has_grad"]):
        return text + ", |grad| " + norm_str(impl["grad"])
    return text + (", grad none" if bool(impl["requires_grad"]) else "")


def _as_dynamic(module):
    try:
        return module.cast(module.dynamic_type)
    except gdb.error:
        return module


def module_lines(module, indent=""):
    module = _as_dynamic(module)
    base = module.cast(gdb.lookup_type("tapegrad::nn::Module"))
    head = "%s(%s) %s" % (_std_string(base["type_name_"]), _module_settings(module),
                          "training" if bool(base["training_"]) else "eval")
    if bool(base["composed_"]):
        head += ", composed"
    lines = [head]
    for member, kind in (("params_", ""), ("buffers_", " (buffer)")):
        for pair in _std_vector(base[member]):
            lines.append("%s  %s %s%s" % (indent, _std_string(pair["first"]), _tensor_summary(pair["second"]), kind))
    for pair in _std_vector(base["children_"]):
        child = _shared_ptr(pair["second"])
        sub = module_lines(child.dereference(), indent + "  ") if int(child) else ["undefined"]
        lines.append("%s  (%s): %s" % (indent, _std_string(pair["first"]), sub[0]))
        lines.extend(sub[1:])
    return lines


def module_str(module):
    """An nn module: type(settings) mode, then its parameters, buffers and children."""
    return "\n".join(module_lines(module))


def kv_cache_str(cache):
    """nn::KVCache: the positions it holds and the shape of its keys and values (B, Hkv, T, Dh)."""
    shape = _xt_shape(cache["keys_"])
    if len(shape) != 4:
        return "KVCache(empty, length 0)"
    return "KVCache(length %d, keys and values %s)" % (shape[2], shape_str(shape))


# ---- the tape without calling tapegrad::tape() ----

def this_thread_tape():
    """This thread's Tape, read from the thread_local in tape.cpp (gdb reads thread-local
    storage through libthread_db), so no function runs in the program."""
    name = "tapegrad::(anonymous namespace)::this_thread_tape"
    for expr in ("'%s'" % name, name):
        try:
            return gdb.parse_and_eval(expr)
        except gdb.error:
            pass
    symbol = gdb.lookup_static_symbol(name)
    if symbol is None:
        raise gdb.GdbError("tapegrad: no symbol %s (is libtapegrad.so loaded, with debug info? `start` first)" % name)
    return symbol.value()


class TapeFunction(gdb.Function):
    """$tape(): this thread's tape (tapegrad::tape() without running code in the program).
Usage: p $tape()   p $tape().entries[2]   p $tape().entries.size()"""

    def __init__(self):
        super().__init__("tape")

    def invoke(self):
        return this_thread_tape()


def _entry_in(frame):
    """The TapeEntry argument of this frame (`e`, or `__args#1` where std::function's
    call into the lambda was inlined), or None."""
    try:
        block = frame.block()
    except RuntimeError:
        return None
    while block is not None and block.function is None:
        block = block.superblock
    if block is None:
        return None
    for symbol in block:
        if not symbol.is_argument:
            continue
        t = symbol.type.strip_typedefs()
        if t.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF, gdb.TYPE_CODE_PTR):
            t = t.target()
        if t.unqualified().strip_typedefs().tag == "tapegrad::TapeEntry":
            try:  # in an optimised frame the argument may be gone: look further up
                value = symbol.value(frame)
                if value.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
                    value = value.dereference()
                value = value.referenced_value() if value.type.code == gdb.TYPE_CODE_REF else value
                value.fetch_lazy()
                return value
            except gdb.error:
                continue
    return None


class EntryFunction(gdb.Function):
    """$entry(): the tape entry whose backward is running, found in the frames above the
selected one (the same in every build, wherever the lambda was inlined).
Usage: p $entry()   p $entry().op"""

    def __init__(self):
        super().__init__("entry")

    def invoke(self):
        frame = gdb.selected_frame()
        while frame is not None:
            entry = _entry_in(frame)
            if entry is not None:
                return entry
            frame = frame.older()
        raise gdb.GdbError("$entry(): no backward is running here (no frame above has a TapeEntry)")


# ---- backtraces without std::function's plumbing ----

_PLUMBING = ("std::function<", "std::_Function_handler<", "std::__invoke")


class HideFunctionPlumbing:
    """A frame filter: `bt` leaves out the std::function frames between the backward
    walk and an op's backward (`bt -no-filters` shows them; `disable frame-filter
    global tapegrad-hide-std-function` turns this off)."""

    def __init__(self):
        self.name = "tapegrad-hide-std-function"
        self.priority = 100
        self.enabled = True

    def filter(self, frames):
        for f in frames:
            name = f.function()
            if not isinstance(name, str):
                yield f
            elif f.inferior_frame().level() == 0 or not name.startswith(_PLUMBING):
                yield _ShortName(f)


def _without_parameters(name):
    """"ns::f(int, char) const" -> "ns::f", as gdb's own backtrace shows C++ names."""
    if name.endswith(" const"):
        name = name[:-len(" const")]
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


class _ShortName(FrameDecorator):
    def function(self):
        name = super().function()
        return _without_parameters(name) if isinstance(name, str) else name


def _table(rows):
    """Columns padded to a common width, as tape_view.cpp's format_rows()."""
    width = [max(len(row[c]) for row in rows if c < len(row)) for c in range(max(len(r) for r in rows))]
    out = []
    for row in rows:
        line = " "
        for c, cell in enumerate(row):
            line += " " + cell
            if c + 1 < len(row):
                line += " " * (width[c] - len(cell)) + " "
        out.append(line)
    return out


def tape_table_str(tape):
    """tapegrad::tape_table(tape), computed from memory."""
    entries = _std_vector(tape["entries"])
    generation = int(tape["generation"])
    lines = ["Tape with %d %s" % (len(entries), "entry" if len(entries) == 1 else "entries")]
    if not entries:
        return "\n".join(lines) + "\n"
    outputs = [int(_shared_ptr(e["output"]["impl_"])) for e in entries]

    def made_on(impl_ptr):
        impl = impl_ptr.dereference()
        index = int(impl["tape_index"])
        return (0 <= index < len(entries) and int(impl["tape_generation"]) == generation and
                outputs[index] == int(impl_ptr))

    def grad_norm(impl):
        return norm_str(impl["grad"]) if bool(impl["has_grad"]) else "-"

    rows = [["#", "op", "inputs", "output", "|value|", "|grad|"]]
    leaves, seen = [], set()
    for i, e in enumerate(entries):
        refs = []
        for t in _std_vector(e["inputs"]):
            p = _shared_ptr(t["impl_"])
            if made_on(p):
                refs.append("#%d %s" % (int(p.dereference()["tape_index"]), _impl_label(p.dereference())))
            else:
                refs.append(_impl_label(p.dereference()))
                if int(p) not in seen:
                    seen.add(int(p))
                    leaves.append(p.dereference())
        out = _shared_ptr(e["output"]["impl_"]).dereference()
        rows.append([str(i), _std_string(e["op"]), ", ".join(refs), _impl_label(out), norm_str(out["value"]),
                     grad_norm(out)])
    lines += _table(rows)
    leaf_rows = [["leaf", "requires_grad", "|value|", "|grad|"]]
    for x in leaves:
        leaf_rows.append([_impl_label(x), "yes" if bool(x["requires_grad"]) else "no", norm_str(x["value"]),
                          grad_norm(x)])
    lines += _table(leaf_rows)
    lines.append("  (|x| is the L2 norm; an op output keeps its grad after backward() only with retain_grad())")
    return "\n".join(lines) + "\n"


# ---- x.grad() and friends without running code: gdb xmethods ----

def grad_message(impl):
    """The message Tensor::grad() throws when there is no gradient (tensor.cpp)."""
    label = _impl_label(impl)
    made_by = _std_string(impl["made_by"])
    if not bool(impl["requires_grad"]):
        return ("grad: " + label + " does not require grad, so it never gets one " +
                "(make it with requires_grad=true or call requires_grad_())")
    if made_by and bool(impl["graph_released"]):
        return ("grad: " + label + " is the output of '" + made_by +
                "', a non-leaf whose graph was released by backward(); its gradient " +
                "was freed with it. Call retain_grad() on it before backward() to keep it")
    if made_by:
        return ("grad: " + label + " is the output of '" + made_by +
                "' and has no gradient; non-leaf tensors keep one only after retain_grad() and backward()")
    return ("grad: " + label + " has no gradient yet: call backward() on a result that depends on it " +
            "(or check has_grad())")


def _impl_of(obj):
    """The TensorImpl of the Tensor an xmethod was called on (obj: the Tensor or `this`)."""
    if obj.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        obj = obj.dereference()
    impl = _shared_ptr(obj["impl_"])
    if int(impl) == 0:
        raise gdb.GdbError("Tensor: the tensor is undefined (default-constructed)")
    return impl.dereference()


class _TensorWorker(gdb.xmethod.XMethodWorker):
    def __init__(self, fn):
        self.fn = fn

    def get_arg_types(self):
        return None

    def __call__(self, obj):
        return self.fn(_impl_of(obj))


def _grad(impl):
    """The gradient, else tapegrad's message as the value: an exception from an xmethod
    would print as "Python Exception ...", which reads like a broken printer."""
    if bool(impl["has_grad"]):
        return impl["grad"]
    return gdb.Value(grad_message(impl))


_TENSOR_METHODS = {
    "grad": _grad,
    "value": lambda impl: impl["value"],
    "has_grad": lambda impl: impl["has_grad"],
    "requires_grad": lambda impl: impl["requires_grad"],
}


class TensorXMethods(gdb.xmethod.XMethodMatcher):
    """x.grad(), x.value(), x.has_grad(), x.requires_grad() read from memory."""

    def __init__(self):
        super().__init__("tapegrad")
        self.methods = [gdb.xmethod.XMethod(name) for name in _TENSOR_METHODS]

    def match(self, class_type, method_name):
        if class_type.strip_typedefs().tag != "tapegrad::Tensor" or method_name not in _TENSOR_METHODS:
            return None
        if not [m for m in self.methods if m.name == method_name][0].enabled:
            return None
        return _TensorWorker(_TENSOR_METHODS[method_name])


class Printer:
    """One gdb printer: a formatter applied to the value. In a frame where the
    object is not built yet (garbage memory), it says so instead of failing."""

    def __init__(self, val, fmt, what):
        self.val, self.fmt, self.what = val, fmt, what

    def to_string(self):
        try:
            return self.fmt(self.val)
        except (gdb.error, gdb.MemoryError, RuntimeError, ValueError) as err:
            return "<%s: %s>" % (self.what, err)


def build_printer():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("tapegrad")
    printers = [
        ("Tensor", "^tapegrad::Tensor$", tensor_str),
        ("TensorImpl", "^tapegrad::TensorImpl$", impl_str),
        ("Tape", "^tapegrad::Tape$", tape_str),
        ("TapeEntry", "^tapegrad::TapeEntry$", entry_str),
        ("xarray", "^xt::xarray_container<", lambda v: xarray_str(v, "xarray")),
        ("xtensor", "^xt::xtensor_container<", lambda v: xarray_str(v, "xtensor")),
        ("Module", "^tapegrad::nn::(Module|Linear|LayerNorm|RMSNorm|BatchNorm1d|FFN|ResidualBlock|Sequential"
                   "|MultiheadAttention|TransformerLM)$", module_str),
        ("KVCache", "^tapegrad::nn::KVCache$", kv_cache_str),
    ]
    for name, regexp, fmt in printers:
        # Default arguments bind this iteration's fmt and name.
        pp.add_printer(name, regexp, lambda v, fmt=fmt, name=name: Printer(v, fmt, "tapegrad " + name))
    return pp


def _graph_tensor(impl_ptr, made_here):
    """A tensor as tapegrad_graph.py wants it, read from memory."""
    impl = impl_ptr.dereference()
    return {"addr": int(impl_ptr), "name": _std_string(impl["name"]), "shape": _xt_shape(impl["value"]),
            "values": _all_values(impl["value"]),
            "grad": _all_values(impl["grad"]) if bool(impl["has_grad"]) else None,
            "requires_grad": bool(impl["requires_grad"]), "made_here": made_here}


def graph_entries(tape):
    """The tape's entries as tapegrad_graph.py wants them."""
    entries = _std_vector(tape["entries"])
    generation = int(tape["generation"])
    outputs = [int(_shared_ptr(e["output"]["impl_"])) for e in entries]

    def made_on(p):
        index = int(p.dereference()["tape_index"])
        return (0 <= index < len(entries) and int(p.dereference()["tape_generation"]) == generation and
                outputs[index] == int(p))

    result = []
    for e in entries:
        inputs = [_shared_ptr(t["impl_"]) for t in _std_vector(e["inputs"])]
        result.append({"op": _std_string(e["op"]), "inputs": [_graph_tensor(p, made_on(p)) for p in inputs],
                       "output": _graph_tensor(_shared_ptr(e["output"]["impl_"]), True)})
    return result


class TapeGraphCommand(gdb.Command):
    """Write this thread's tape as a graph, as tapegrad::draw() draws it. Reads memory only.
Usage: tapegrad-graph FILE [LR]
  FILE.svg / .png / .pdf: laid out by Graphviz's dot; FILE.dot: the Graphviz source.
  LR: left to right (default top-down).
Stopped inside a backward, the entry being differentiated ($entry()) is orange."""

    def __init__(self):
        super().__init__("tapegrad-graph", gdb.COMMAND_DATA, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if not args:
            raise gdb.GdbError("usage: tapegrad-graph FILE.svg [LR]")
        highlight = -1
        try:
            frame = gdb.selected_frame()
        except gdb.error:  # no process: the tape as it is, nothing highlighted
            frame = None
        while frame is not None:
            entry = _entry_in(frame)
            if entry is not None:
                highlight = int(_shared_ptr(entry["output"]["impl_"]).dereference()["tape_index"])
                break
            frame = frame.older()
        entries = graph_entries(this_thread_tape())
        dot = graph_dot(entries, highlight, "LR" if "LR" in args[1:] else "TB")
        try:
            gdb.write(write_graph(dot, os.path.expanduser(args[0])) + " (%d entries%s)\n" % (
                len(entries), ", #%d highlighted" % highlight if highlight >= 0 else ""))
        except RuntimeError as e:
            raise gdb.GdbError(str(e))


class TapeTableCommand(gdb.Command):
    """Print this thread's tape as tapegrad::tape_table() does: one row per op with the
L2 norms of its output's value and gradient, then the leaves. Reads memory only.

Usage: tapegrad-table"""

    def __init__(self):
        super().__init__("tapegrad-table", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        gdb.write(tape_table_str(this_thread_tape()))


# Parameters and commands are global: define them once even if this script is
# loaded twice (from libtapegrad.so and by `source`).
if not getattr(gdb, "_tapegrad_commands_defined", False):
    MaxValues()
    TapeTableCommand()
    TapeGraphCommand()
    TapeFunction()
    EntryFunction()
    gdb.frame_filters["tapegrad-hide-std-function"] = HideFunctionPlumbing()
    gdb._tapegrad_commands_defined = True

gdb.printing.register_pretty_printer(gdb.current_objfile(), build_printer(), replace=True)
gdb.xmethod.register_xmethod_matcher(gdb.current_objfile(), TensorXMethods(), replace=True)
