// backward_steps(): the backward walk as frames over one picture of the graph, with a slider.
#include <chrono>
#include <map>
#include <sstream>

#include "draw_graph.hpp"
#include "tapegrad/autograd/hooks.hpp"

namespace tapegrad {

namespace {

std::string js_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '<': out += "\\u003c"; break;  // never "</script>" inside the script
      default: out += c;
    }
  }
  return out + "\"";
}

// What the caption says about a frame.
std::string caption(const BackwardFrame& f, const Tape& t, std::size_t k, std::size_t count) {
  std::ostringstream out;
  out << "frame " << k << " of " << count - 1 << ": ";
  if (f.entry < 0) {
    out << "the seed, dL/dL = 1 on the root; run_backward starts at the root's entry and walks the tape in reverse";
  } else {
    out << "#" << f.entry << " " << t[static_cast<std::size_t>(f.entry)].op
        << "'s backward ran: gradient arrived at " << f.nodes.size() << (f.nodes.size() == 1 ? " tensor" : " tensors");
  }
  return out.str();
}

// The page's script: frame k shows the gradients of frames 0..k and highlights frame k's entry.
const char* const kScript = R"JS(
(function () {
  var root = document.getElementById(ID);
  var frames = FRAMES, nodes = NODES;
  var slider = root.querySelector(".tg-slider"), button = root.querySelector(".tg-play");
  var caption = root.querySelector(".tg-caption"), timer = null;
  function group(id) { return root.querySelector("svg g[id='" + id + "']"); }
  function gradText(id) { var g = group(id); if (!g) return null; var t = g.querySelectorAll("text"); return t[t.length - 1]; }
  function shape(g) { return g ? g.querySelector("ellipse, polygon, path") : null; }
  function mark(g, on, fill) {
    var s = shape(g); if (!s) return;
    if (!s.hasAttribute("data-fill")) { s.setAttribute("data-fill", s.getAttribute("fill")); s.setAttribute("data-stroke-width", s.getAttribute("stroke-width") || "1"); }
    s.setAttribute("fill", on && fill ? fill : s.getAttribute("data-fill"));
    s.setAttribute("stroke-width", on ? "3" : s.getAttribute("data-stroke-width"));
  }
  function show(k) {
    k = Number(k);
    var i, j, g;
    for (i = 0; i < nodes.length; ++i) {
      var t = gradText(nodes[i]); if (t) t.textContent = "grad \u2014";
      g = group(nodes[i]); if (g) { g.classList.remove("tg-arrived"); mark(g, false); }
    }
    for (i = 0; i <= k; ++i)
      for (j = 0; j < frames[i].nodes.length; ++j) { var u = gradText(frames[i].nodes[j]); if (u) u.textContent = frames[i].grads[j]; }
    root.querySelectorAll("svg g.tg-current").forEach(function (c) { c.classList.remove("tg-current"); mark(c, false); });
    if (frames[k].entry >= 0) { g = group("e" + frames[k].entry); if (g) { g.classList.add("tg-current"); mark(g, true, "orange"); } }
    for (j = 0; j < frames[k].nodes.length; ++j) { g = group(frames[k].nodes[j]); if (g) { g.classList.add("tg-arrived"); mark(g, true, "palegreen"); } }
    caption.textContent = frames[k].caption;
    slider.value = k;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; button.textContent = "\u25b6 play"; } }
  slider.addEventListener("input", function () { stop(); show(slider.value); });
  button.addEventListener("click", function () {
    if (timer) { stop(); return; }
    if (Number(slider.value) >= frames.length - 1) show(0);
    button.textContent = "\u275a\u275a pause";
    timer = setInterval(function () {
      var k = Number(slider.value) + 1;
      if (k >= frames.length) { stop(); return; }
      show(k);
    }, 800);
  });
  show(0);
})();
)JS";

std::string replace(std::string s, const std::string& what, const std::string& with) {
  const std::size_t at = s.find(what);
  return at == std::string::npos ? s : s.replace(at, what.size(), with);
}

// Sets the backward watcher while it lives and puts the previous one back however the scope
// ends (backward() may throw: anomaly mode, a released graph).
class WatchingBackward {
 public:
  explicit WatchingBackward(BackwardWatcher watcher) : previous_(set_backward_watcher(std::move(watcher))) {}
  ~WatchingBackward() { set_backward_watcher(previous_); }
  WatchingBackward(const WatchingBackward&) = delete;
  WatchingBackward& operator=(const WatchingBackward&) = delete;

 private:
  BackwardWatcher previous_;
};

// The entries up to `last`, without their backward functions (only the walk needs those):
// backward() may release the tape, so the picture is drawn from this copy.
Tape copy_for_drawing(const Tape& live, std::size_t last) {
  Tape copy;
  copy.generation = live.generation;
  for (std::size_t i = 0; i <= last; ++i) {
    TapeEntry e;
    e.op = live[i].op;
    e.inputs = live[i].inputs;
    e.output = live[i].output;
    copy.entries.push_back(std::move(e));
  }
  return copy;
}

// Each frame is one entry, with gradient lines and no fixed highlight (the page moves it).
DrawOptions frame_options(DrawOptions o) {
  o.depth = 0;
  o.highlight_entry = -1;
  o.grads = true;
  return o;
}

// The frames of one backward walk, and each node's gradient line so far (node id -> line).
struct Walk {
  std::vector<BackwardFrame> frames;
  std::map<std::string, std::string> latest;
};

// Frame 0: dL/dL = 1 on the root.
void add_seed_frame(const Tensor& loss, const detail::TapeGraph& graph, std::size_t max_values, Walk& walk) {
  BackwardFrame seed;
  seed.nodes.push_back(graph.tensor_id(loss));
  seed.grads.push_back("grad " + detail::values_str(xt::ones<double>(loss.value().shape()), max_values));
  walk.latest[seed.nodes[0]] = seed.grads[0];
  walk.frames.push_back(seed);
}

// The frame after entry `index`'s backward ran: the shown tensors whose gradient line changed.
void add_entry_frame(const TapeEntry& e, std::size_t index, const detail::TapeGraph& graph, std::size_t max_values,
                     Walk& walk) {
  BackwardFrame f;
  f.entry = static_cast<long>(index);
  std::vector<Tensor> touched = e.inputs;
  touched.push_back(e.output);
  for (const Tensor& x : touched) {
    const std::string id = graph.tensor_id(x);
    if (id.empty() || !x.has_grad()) continue;
    const std::string line = "grad " + detail::values_str(x.grad(), max_values);
    if (walk.latest[id] == line) continue;
    walk.latest[id] = line;
    f.nodes.push_back(id);
    f.grads.push_back(line);
  }
  walk.frames.push_back(f);
}

// Runs loss.backward(retain_graph) with a watcher that records a frame after each entry.
Walk walk_backward(const Tensor& loss, bool retain_graph, const detail::TapeGraph& graph, std::size_t max_values) {
  Walk walk;
  add_seed_frame(loss, graph, max_values, walk);
  const WatchingBackward watching(
      [&](const TapeEntry& e, std::size_t index) { add_entry_frame(e, index, graph, max_values, walk); });
  loss.backward(retain_graph);
  return walk;
}

// Laid out once with every node's final gradient line, so that no frame moves a node.
std::string lay_out(const detail::TapeGraph& graph, const Walk& walk) {
  std::function<std::string(const Tensor&)> final_line = [&](const Tensor& x) {
    auto it = walk.latest.find(graph.tensor_id(x));
    return it == walk.latest.end() || it->second.empty() ? std::string("grad \xe2\x80\x94") : it->second;
  };
  return render_svg(graph.dot(&final_line));
}

// A page-unique id for the block, so that two of them in one notebook do not share a slider.
std::string block_id() {
  static unsigned long counter = 0;
  return "tapegrad-steps-" + std::to_string(++counter) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007);
}

std::string js_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t j = 0; j < items.size(); ++j) out += (j ? "," : "") + js_string(items[j]);
  return out + "]";
}

// [{"entry":..,"caption":..,"nodes":[..],"grads":[..]}, ...] for the page's script.
std::string frames_json(const std::vector<BackwardFrame>& frames, const Tape& t) {
  std::ostringstream out;
  out << '[';
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const BackwardFrame& f = frames[k];
    out << (k ? "," : "") << "{\"entry\":" << f.entry << ",\"caption\":" << js_string(caption(f, t, k, frames.size()))
        << ",\"nodes\":" << js_list(f.nodes) << ",\"grads\":" << js_list(f.grads) << '}';
  }
  out << ']';
  return out.str();
}

// The ids of every tensor node, whose gradient lines the script resets before each frame.
std::string nodes_json(const detail::TapeGraph& graph) {
  std::vector<std::string> ids;
  for (const Tensor& x : graph.shown_tensors()) ids.push_back(graph.tensor_id(x));
  return js_list(ids);
}

// The self-contained block: the controls, the picture and the script.
std::string page(const BackwardSteps& steps, const detail::TapeGraph& graph, const Tape& t) {
  const std::string id = block_id();
  std::string script = replace(kScript, "ID", js_string(id));
  script = replace(script, "NODES", nodes_json(graph));
  script = replace(script, "FRAMES", frames_json(steps.frames, t));
  std::ostringstream html;
  html << "<div class=\"tapegrad-steps\" id=\"" << id << "\">\n"
       << "<div style=\"font-family:monospace;margin:4px 0\"><button class=\"tg-play\" type=\"button\">\xe2\x96\xb6 play</button> "
       << "<input class=\"tg-slider\" type=\"range\" min=\"0\" max=\"" << steps.frames.size() - 1
       << "\" value=\"0\" step=\"1\" style=\"width:50%;vertical-align:middle\"> "
       << "<span class=\"tg-caption\"></span></div>\n"
       << "<div class=\"tg-graph\">" << steps.svg << "</div>\n"
       << "<script>" << script << "</script>\n</div>\n";
  return html.str();
}

}  // namespace

// The passes, in order: which entries; a copy of them to draw (backward may release the tape);
// the graph; the walk, one frame per entry; the layout; the page.
BackwardSteps backward_steps(const Tensor& loss, bool retain_graph, const DrawOptions& options) {
  const std::vector<std::size_t> entries = detail::entries_behind(tape(), loss, "backward_steps");
  if (entries.empty())
    throw AutogradError("backward_steps: " + loss.label() + " is a leaf: there is no backward to step through");
  const Tape copy = copy_for_drawing(tape(), entries.back());
  const detail::TapeGraph graph(copy, entries, frame_options(options), &loss);

  Walk walk = walk_backward(loss, retain_graph, graph, options.max_values);
  BackwardSteps steps;
  steps.frames = std::move(walk.frames);
  steps.svg = lay_out(graph, walk);
  steps.html = page(steps, graph, copy);
  return steps;
}

}  // namespace tapegrad
