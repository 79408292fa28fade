# lldb data formatters for tapegrad: tensors, the tape, xtensor arrays and nn modules,
# shown as tools/gdb/tapegrad_printers.py shows them in gdb. Load with one command:
#
#   (lldb) command script import /path/to/tapegrad/tools/lldb/tapegrad_lldb.py
#
# What you get (tools/lldb/README.md has a session):
#   p x / frame variable x   Tensor(name='x', shape=(3), value=[3, 4, 5], requires_grad, grad=none)
#   p dy                     xarray (3) [1, 2, 4]
#   p e                      TapeEntry #0 layer_norm  'x' (3), 'gamma' (3), 'beta' (3) -> (3)
#   p ffn                    FFN(d=4, hidden=8, activation=gelu) training, 4 parameters
#   tapegrad-tape            this thread's tape, one line per op (read from memory)
#   tapegrad-graph out.svg   the tape as a graph, as tapegrad::draw() draws it (out.dot: the source);
#                            inside a backward, the entry being differentiated is orange
# Like the gdb printers, these only read memory: nothing runs in the program.

import math
import os
import shlex
import struct
import sys

import lldb

# The graph writer, shared with gdb's printers (plain Python, no debugger module).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gdb"))
from tapegrad_graph import graph_dot, write_graph  # noqa: E402

MAX_VALUES = 8


def _raw(v):
    """The value without lldb's own synthetic children (libstdc++ formatters)."""
    return v.GetNonSyntheticValue() if v.IsSynthetic() else v


def _member(v, *path):
    for name in path:
        v = _raw(v).GetChildMemberWithName(name)
        if not v.IsValid():
            raise ValueError("no member " + name)
    return _raw(v)


def _read(v, address, size):
    error = lldb.SBError()
    data = v.GetProcess().ReadMemory(address, size, error)
    if not error.Success():
        raise ValueError(error.GetCString())
    return data


def _std_string(v, limit=200):
    n = _member(v, "_M_string_length").GetValueAsUnsigned()
    if n == 0:
        return ""
    p = _member(v, "_M_dataplus", "_M_p").GetValueAsUnsigned()
    return _read(v, p, min(n, limit)).decode("utf-8", "replace")


def _std_vector(v):
    start = _member(v, "_M_impl", "_M_start")
    finish = _member(v, "_M_impl", "_M_finish").GetValueAsUnsigned()
    elem = start.GetType().GetPointeeType()
    n = (finish - start.GetValueAsUnsigned()) // max(elem.GetByteSize(), 1)
    if n < 0 or n > 1000000:
        raise ValueError("std::vector looks uninitialized")
    return [start.CreateValueFromAddress("[%d]" % i, start.GetValueAsUnsigned() + i * elem.GetByteSize(), elem)
            for i in range(n)]


def _pointee(shared_ptr):
    """The object a std::shared_ptr points to, or None."""
    p = _member(shared_ptr, "_M_ptr")
    return None if p.GetValueAsUnsigned() == 0 else _raw(p.Dereference())


def _xt_shape(arr):
    shape = _member(arr, "m_shape")
    begin = _member(shape, "m_begin").GetValueAsUnsigned()
    n = (_member(shape, "m_end").GetValueAsUnsigned() - begin) // 8
    if n < 0 or n > 32:
        raise ValueError("shape looks uninitialized")
    return struct.unpack("%dQ" % n, _read(arr, begin, 8 * n)) if n else ()


def _xt_values(arr, count):
    begin = _member(arr, "m_storage", "p_begin").GetValueAsUnsigned()
    size = (_member(arr, "m_storage", "p_end").GetValueAsUnsigned() - begin) // 8
    count = min(count, size)
    return size, list(struct.unpack("%dd" % count, _read(arr, begin, 8 * count))) if count > 0 else []


def shape_str(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _num(x):
    return "%.6g" % x


def _nested(values, shape):
    if not shape:
        return _num(values[0])
    step = len(values) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def array_str(arr):
    shape = _xt_shape(arr)
    size, values = _xt_values(arr, MAX_VALUES)
    if size != math.prod(shape):
        return "<shape %s does not match %d stored values: uninitialized?>" % (shape_str(shape), size)
    if size == 0:
        return "[]"
    if size <= MAX_VALUES:
        return _nested(values, shape)
    return "[" + ", ".join(_num(x) for x in values) + ", ... (%d values, first %d shown)]" % (size, len(values))


def norm_str(arr):
    size, values = _xt_values(arr, 50000000)
    return "%.4g" % math.sqrt(sum(x * x for x in values))


def _flag(impl, name):
    return _member(impl, name).GetValueAsUnsigned() != 0


def _impl_label(impl):
    name = _std_string(_member(impl, "name"))
    shape = shape_str(_xt_shape(_member(impl, "value")))
    return "'%s' %s" % (name, shape) if name else shape


def impl_str(impl):
    parts = []
    name = _std_string(_member(impl, "name"))
    if name:
        parts.append("name='%s'" % name)
    parts.append("shape=" + shape_str(_xt_shape(_member(impl, "value"))))
    parts.append("value=" + array_str(_member(impl, "value")))
    made_by = _std_string(_member(impl, "made_by"))
    if made_by:
        where = "tape #%d" % _member(impl, "tape_index").GetValueAsSigned()
        if _flag(impl, "graph_released"):
            where += ", released"
        parts.append("made_by=%s (%s)" % (made_by, where))
    if _flag(impl, "requires_grad"):
        parts.append("requires_grad")
    if _flag(impl, "has_grad"):
        parts.append("grad=" + array_str(_member(impl, "grad")))
    elif _flag(impl, "requires_grad"):
        parts.append("grad=none")
    if _member(impl, "version").GetValueAsUnsigned():
        parts.append("version=%d" % _member(impl, "version").GetValueAsUnsigned())
    return "Tensor(" + ", ".join(parts) + ")"


def tensor_str(tensor):
    impl = _pointee(_member(tensor, "impl_"))
    return "Tensor(<undefined>)" if impl is None else impl_str(impl)


def entry_line(entry, generation=None):
    refs = []
    for t in _std_vector(_member(entry, "inputs")):
        impl = _pointee(_member(t, "impl_"))
        if impl is None:
            refs.append("<undefined>")
            continue
        index = _member(impl, "tape_index").GetValueAsSigned()
        same = generation is not None and _member(impl, "tape_generation").GetValueAsUnsigned() == generation
        refs.append(("#%d %s" % (index, _impl_label(impl))) if index >= 0 and same else _impl_label(impl))
    out = _pointee(_member(entry, "output", "impl_"))
    return "%-12s %s -> %s" % (_std_string(_member(entry, "op")), ", ".join(refs),
                               _impl_label(out) if out is not None else "<undefined>")


def entry_str(entry):
    out = _pointee(_member(entry, "output", "impl_"))
    index = _member(out, "tape_index").GetValueAsSigned() if out is not None else -1
    generation = _member(out, "tape_generation").GetValueAsUnsigned() if out is not None else None
    return "TapeEntry #%d %s" % (index, entry_line(entry, generation))


def tape_lines(tape):
    entries = _std_vector(_member(tape, "entries"))
    generation = _member(tape, "generation").GetValueAsUnsigned()
    lines = ["Tape with %d %s (generation %d)" % (len(entries), "entry" if len(entries) == 1 else "entries",
                                                   generation)]
    lines += ["  #%-3d %s" % (i, entry_line(e, generation)) for i, e in enumerate(entries)]
    return lines


_MODULE_SETTINGS = ("in_features", "out_features", "num_features", "d", "hidden", "activation", "placement",
                    "eps", "momentum", "num_heads", "num_kv_heads", "head_dim")


def module_str(module):
    module = _raw(module.GetDynamicValue(lldb.eDynamicCanRunTarget))
    base = module
    while base.GetTypeName() != "tapegrad::nn::Module" and base.GetNumChildren() > 0:
        first = _raw(base.GetChildAtIndex(0))
        if not first.GetType().IsValid() or first.GetName() == base.GetName():
            break
        base = first
    settings = []
    for name in _MODULE_SETTINGS:
        v = _raw(module).GetChildMemberWithName(name)
        if v.IsValid() and v.GetValue() is not None:
            text = v.GetValue()
            settings.append("%s=%s" % (name, text.split("::")[-1]))
    n_params = len(_std_vector(_member(base, "params_")))
    return "%s(%s) %s, %d parameters" % (_std_string(_member(base, "type_name_")), ", ".join(settings),
                                         "training" if _flag(base, "training_") else "eval", n_params)


def _summary(fmt):
    def provider(valobj, internal_dict):
        try:
            return fmt(_raw(valobj))
        except (ValueError, RuntimeError) as err:
            return "<tapegrad: %s>" % err
    return provider


tensor_summary = _summary(tensor_str)
impl_summary = _summary(impl_str)
entry_summary = _summary(entry_str)
tape_summary = _summary(lambda t: tape_lines(t)[0])
xarray_summary = _summary(lambda a: "xarray %s %s" % (shape_str(_xt_shape(a)), array_str(a)))
module_summary = _summary(module_str)


def tape_command(debugger, command, result, internal_dict):
    """tapegrad-tape: this thread's tape, one line per op (read from memory, like gdb's $tape())."""
    frame = debugger.GetSelectedTarget().GetProcess().GetSelectedThread().GetSelectedFrame()
    # Looked up from the frame, lldb resolves the thread_local for this thread.
    tape = frame.GetValueForVariablePath("this_thread_tape") if frame.IsValid() else lldb.SBValue()
    if not tape.IsValid():
        result.SetError("tapegrad-tape: no this_thread_tape here (run the program; the library needs debug info)")
        return
    result.AppendMessage("\n".join(tape_lines(_raw(tape))))


def _graph_tensor(impl, made_here):
    """A tensor as tapegrad_graph.py wants it, read from memory."""
    return {"addr": impl.GetLoadAddress(), "name": _std_string(_member(impl, "name")),
            "shape": _xt_shape(_member(impl, "value")), "values": _xt_values(_member(impl, "value"), 50000000)[1],
            "grad": _xt_values(_member(impl, "grad"), 50000000)[1] if _flag(impl, "has_grad") else None,
            "requires_grad": _flag(impl, "requires_grad"), "made_here": made_here}


def _running_entry(thread):
    """The tape index of the entry whose backward runs on this thread (a TapeEntry argument of a
    frame), or -1."""
    for frame in thread:
        for arg in frame.GetVariables(True, False, False, True):
            if "tapegrad::TapeEntry" not in arg.GetType().GetCanonicalType().GetName():
                continue
            entry = _raw(arg.Dereference()) if arg.GetType().IsPointerType() or arg.GetType().IsReferenceType() \
                else _raw(arg)
            try:
                out = _pointee(_member(entry, "output", "impl_"))
                return _member(out, "tape_index").GetValueAsSigned() if out is not None else -1
            except ValueError:
                continue
    return -1


def graph_command(debugger, command, result, internal_dict):
    """tapegrad-graph FILE [LR]: this thread's tape as a graph (FILE.svg/.png: laid out by dot;
    FILE.dot: the source), the entry being differentiated in orange. Reads memory only."""
    args = shlex.split(command)
    if not args:
        result.SetError("usage: tapegrad-graph FILE.svg [LR]")
        return
    thread = debugger.GetSelectedTarget().GetProcess().GetSelectedThread()
    frame = thread.GetSelectedFrame()
    tape = frame.GetValueForVariablePath("this_thread_tape") if frame.IsValid() else lldb.SBValue()
    if not tape.IsValid():
        result.SetError("tapegrad-graph: no this_thread_tape here (run the program; the library needs debug info)")
        return
    tape = _raw(tape)
    generation = _member(tape, "generation").GetValueAsUnsigned()
    raw_entries = _std_vector(_member(tape, "entries"))
    outputs = [_member(e, "output", "impl_", "_M_ptr").GetValueAsUnsigned() for e in raw_entries]
    entries = []
    for e in raw_entries:
        inputs = []
        for t in _std_vector(_member(e, "inputs")):
            impl = _pointee(_member(t, "impl_"))
            index = _member(impl, "tape_index").GetValueAsSigned()
            made_here = (0 <= index < len(outputs) and outputs[index] == impl.GetLoadAddress() and
                         _member(impl, "tape_generation").GetValueAsUnsigned() == generation)
            inputs.append(_graph_tensor(impl, made_here))
        entries.append({"op": _std_string(_member(e, "op")), "inputs": inputs,
                        "output": _graph_tensor(_pointee(_member(e, "output", "impl_")), True)})
    highlight = _running_entry(thread)
    try:
        message = write_graph(graph_dot(entries, highlight, "LR" if "LR" in args[1:] else "TB"),
                              os.path.expanduser(args[0]))
    except RuntimeError as e:
        result.SetError(str(e))
        return
    result.AppendMessage(message + " (%d entries%s)" % (len(entries),
                                                        ", #%d highlighted" % highlight if highlight >= 0 else ""))


_SUMMARIES = [
    ("tensor_summary", "^tapegrad::Tensor$"),
    ("impl_summary", "^tapegrad::TensorImpl$"),
    ("entry_summary", "^tapegrad::TapeEntry$"),
    ("tape_summary", "^tapegrad::Tape$"),
    ("xarray_summary", "^xt::xarray_container<"),
    ("module_summary", "^tapegrad::nn::(Module|Linear|LayerNorm|RMSNorm|BatchNorm1d|FFN|ResidualBlock|Sequential"
                       "|MultiheadAttention|TransformerLM)$"),
]


def __lldb_init_module(debugger, internal_dict):
    for function, regex in _SUMMARIES:
        # -x: a regex; the members stay reachable by path (p x.impl_->value), and p -R shows them raw.
        debugger.HandleCommand('type summary add -w tapegrad -x "%s" -F %s.%s' % (regex, __name__, function))
    debugger.HandleCommand("type category enable tapegrad")
    debugger.HandleCommand("command script add -o -f %s.tape_command tapegrad-tape" % __name__)
    debugger.HandleCommand("command script add -o -f %s.graph_command tapegrad-graph" % __name__)
