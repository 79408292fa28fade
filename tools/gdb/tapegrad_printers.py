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
#   p tapegrad::tape()     the recorded ops, one line each: #1 relu  #0 (2, 4) -> (2, 4)
#   p e                    a TapeEntry (in a backward function): its op, inputs and output
#   p x.impl_->value       an xt::xarray / xt::xtensor: shape and values, not xtensor internals
#   tapegrad-table         prints tapegrad::tape_table(): norms of values and grads per op
#   set tapegrad-max-values 32   show more values (default 8); /r prints raw members
#
# The printers only read memory (no calls into the program), so they also
# work on core files.

import struct

import gdb
import gdb.printing


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


def xarray_str(arr, kind):
    """xt::xarray<double> / xt::xtensor<double, N>: "xarray (2, 3) [[...]]"."""
    return "%s %s %s" % (kind, shape_str(_xt_shape(arr)), array_str(arr))


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
    ]
    for name, regexp, fmt in printers:
        # Default arguments bind this iteration's fmt and name.
        pp.add_printer(name, regexp, lambda v, fmt=fmt, name=name: Printer(v, fmt, "tapegrad " + name))
    return pp


class TapeTableCommand(gdb.Command):
    """Print tapegrad::tape_table() of this thread's tape (calls into the program).

Usage: tapegrad-table"""

    def __init__(self):
        super().__init__("tapegrad-table", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        # Evaluated in two steps: gdb's parser rejects tape_table(tape()) written out.
        tape = gdb.parse_and_eval("tapegrad::tape()")
        text = gdb.parse_and_eval("tapegrad::tape_table")(tape)
        gdb.write(_std_string(text, limit=10000000))


# Parameters and commands are global: define them once even if this script is
# loaded twice (from libtapegrad.so and by `source`).
if not getattr(gdb, "_tapegrad_commands_defined", False):
    MaxValues()
    TapeTableCommand()
    gdb._tapegrad_commands_defined = True

gdb.printing.register_pretty_printer(gdb.current_objfile(), build_printer(), replace=True)
