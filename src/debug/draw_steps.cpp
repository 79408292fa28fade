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

}  // namespace

BackwardSteps backward_steps(const Tensor& loss, bool retain_graph, const DrawOptions& options) {
  const Tape& live = tape();
  const std::vector<std::size_t> entries = detail::entries_behind(live, loss, "backward_steps");
  if (entries.empty())
    throw AutogradError("backward_steps: " + loss.label() + " is a leaf: there is no backward to step through");
  // backward() may release the tape: the picture is drawn from a copy of its entries (without their
  // backward functions, which only the walk needs).
  Tape copy;
  copy.generation = live.generation;
  for (std::size_t i = 0; i <= entries.back(); ++i) {
    TapeEntry e;
    e.op = live[i].op;
    e.inputs = live[i].inputs;
    e.output = live[i].output;
    copy.entries.push_back(std::move(e));
  }
  DrawOptions o = options;
  o.depth = 0;  // each frame is one entry
  o.highlight_entry = -1;
  o.grads = true;
  const detail::TapeGraph graph(copy, entries, o, &loss);

  BackwardSteps steps;
  std::map<std::string, std::string> latest;  // node id -> its gradient line so far
  BackwardFrame seed;
  seed.nodes.push_back(graph.tensor_id(loss));
  seed.grads.push_back("grad " + detail::values_str(xt::ones<double>(loss.value().shape()), o.max_values));
  latest[seed.nodes[0]] = seed.grads[0];
  steps.frames.push_back(seed);
  BackwardWatcher watch = [&](const TapeEntry& e, std::size_t index) {
    BackwardFrame f;
    f.entry = static_cast<long>(index);
    std::vector<Tensor> touched = e.inputs;
    touched.push_back(e.output);
    for (const Tensor& x : touched) {
      const std::string id = graph.tensor_id(x);
      if (id.empty() || !x.has_grad()) continue;
      const std::string line = "grad " + detail::values_str(x.grad(), o.max_values);
      if (latest[id] == line) continue;
      latest[id] = line;
      f.nodes.push_back(id);
      f.grads.push_back(line);
    }
    steps.frames.push_back(f);
  };
  BackwardWatcher previous = set_backward_watcher(watch);
  try {
    loss.backward(retain_graph);
  } catch (...) {
    set_backward_watcher(previous);
    throw;
  }
  set_backward_watcher(previous);

  // Laid out once with every node's final gradient line, so that no frame moves a node.
  std::function<std::string(const Tensor&)> final_line = [&](const Tensor& x) {
    auto it = latest.find(graph.tensor_id(x));
    return it == latest.end() || it->second.empty() ? std::string("grad \xe2\x80\x94") : it->second;
  };
  steps.svg = render_svg(graph.dot(&final_line));

  static unsigned long counter = 0;
  const std::string id = "tapegrad-steps-" + std::to_string(++counter) + "-" +
                         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000007);
  std::ostringstream frames, nodes;
  frames << '[';
  for (std::size_t k = 0; k < steps.frames.size(); ++k) {
    const BackwardFrame& f = steps.frames[k];
    frames << (k ? "," : "") << "{\"entry\":" << f.entry << ",\"caption\":"
           << js_string(caption(f, copy, k, steps.frames.size())) << ",\"nodes\":[";
    for (std::size_t j = 0; j < f.nodes.size(); ++j) frames << (j ? "," : "") << js_string(f.nodes[j]);
    frames << "],\"grads\":[";
    for (std::size_t j = 0; j < f.grads.size(); ++j) frames << (j ? "," : "") << js_string(f.grads[j]);
    frames << "]}";
  }
  frames << ']';
  nodes << '[';
  for (std::size_t j = 0; j < graph.shown_tensors().size(); ++j)
    nodes << (j ? "," : "") << js_string(graph.tensor_id(graph.shown_tensors()[j]));
  nodes << ']';
  std::string script = replace(kScript, "ID", js_string(id));
  script = replace(script, "NODES", nodes.str());
  script = replace(script, "FRAMES", frames.str());

  std::ostringstream html;
  html << "<div class=\"tapegrad-steps\" id=\"" << id << "\">\n"
       << "<div style=\"font-family:monospace;margin:4px 0\"><button class=\"tg-play\" type=\"button\">\xe2\x96\xb6 play</button> "
       << "<input class=\"tg-slider\" type=\"range\" min=\"0\" max=\"" << steps.frames.size() - 1
       << "\" value=\"0\" step=\"1\" style=\"width:50%;vertical-align:middle\"> "
       << "<span class=\"tg-caption\"></span></div>\n"
       << "<div class=\"tg-graph\">" << steps.svg << "</div>\n"
       << "<script>" << script << "</script>\n</div>\n";
  steps.html = html.str();
  return steps;
}

}  // namespace tapegrad
