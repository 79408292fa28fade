#pragma once
// Pictures of the tape: the graph that made a tensor as SVG (laid out by Graphviz), and the
// backward walk as frames with a slider.
//
//   Tensor loss = mse_loss(model(x), y);
//   tapegrad::draw(loss);                      // in a notebook: the graph, inline
//   std::ofstream("graph.svg") << tapegrad::draw(loss).svg;
//   tapegrad::backward_steps(loss);            // runs loss.backward(): the walk, frame by frame
//
// Tensor nodes show name, shape, values (all of them for a small tensor, else min, max and
// the L2 norm) and the gradient once there is one. Parameters (leaves that require grad) are
// blue boxes, constant leaves white notes, op outputs yellow ellipses, the root gold with a
// double border. Op boxes say "fused" (one entry with a hand-written backward for a whole
// formula: layer_norm, linear, ...) or "primitive" (one step of a composed formula).
//
// Gradients: backward() frees the tape (and the intermediates' gradients) when it is done.
// To draw with gradients, call loss.backward(/*retain_graph=*/true) (parameters keep their
// gradients; an intermediate only with retain_grad(), or after retain_grads()) and draw
// afterwards, or use backward_steps(loss), which shows every gradient as it arrives.

#include <cstddef>
#include <string>
#include <vector>

#include "tapegrad/autograd/tape.hpp"
#include "tapegrad/autograd/tensor.hpp"
#include "tapegrad/debug/display.hpp"

namespace tapegrad {

namespace nn {
class Module;
}

struct DrawOptions {
  // Which fields a tensor node shows.
  bool names = true;
  bool shapes = true;
  bool values = true;
  bool grads = true;
  std::size_t max_values = 6;  // a tensor with more elements shows min, max and norm instead
  // "TB" top-down (the default) or "LR" left-to-right.
  std::string direction = "TB";
  // 0: every entry. N > 0: the entries of one module (by their parameters' names, cut to N
  // parts: depth 2 makes "blocks.3.ffn.fc1.weight" belong to "blocks.3") become one box, and
  // a run of identical boxes folds into one, e.g. "blocks.0-31: ResidualBlock ×32".
  std::size_t depth = 0;
  // With a model, folded boxes are named by the module's type ("ResidualBlock").
  const nn::Module* model = nullptr;
  // The entry to highlight (orange), e.g. the one being differentiated; -1: none.
  long highlight_entry = -1;
};

// An SVG picture; in a notebook it shows inline (image/svg+xml).
struct Svg {
  std::string svg;
};

// The graph that produced `root` (the tape's entries it depends on). Throws a clear error if
// its graph was released by backward() or tape().clear(), or Graphviz is missing.
Svg draw(const Tensor& root, const DrawOptions& options = {});
// Every entry of the tape.
Svg draw(const Tape& tape, const DrawOptions& options = {});

// The Graphviz source draw() lays out (no Graphviz needed to make it).
std::string draw_dot(const Tensor& root, const DrawOptions& options = {});
std::string draw_dot(const Tape& tape, const DrawOptions& options = {});

// Lays out Graphviz source as SVG: with libgvc if tapegrad was built with it (libgraphviz-dev),
// else with the `dot` program if it is on PATH, else an Error that says what to install.
std::string render_svg(const std::string& dot);
// Whether render_svg can work here, and how ("libgvc", "dot program", or "" if it cannot).
std::string graphviz_backend();
namespace detail {
// render_svg by a backend named as graphviz_backend() names them ("" throws the message that says what to
// install): so that a test in a libgvc build also runs the fallbacks a build without it takes.
std::string render_svg_with(const std::string& dot, const std::string& backend);
}  // namespace detail

// Calls retain_grad() on every output on the tape: a backward(retain_graph=true) afterwards
// leaves every gradient in place, for draw() or tape_table().
void retain_grads(const Tape& t = tape());

// ---- backward step by step ----
struct BackwardFrame {
  long entry = -1;                 // the tape entry whose backward ran (-1: the seed, before any)
  std::vector<std::string> nodes;  // the tensor nodes (ids in the SVG) whose gradient changed
  std::vector<std::string> grads;  // their gradient as the node shows it, after that entry's backward
};

// One self-contained HTML block (no network, no extension): the graph, a slider, a play button.
struct BackwardSteps {
  std::string svg;                   // the graph, laid out once, with every gradient line in place
  std::vector<BackwardFrame> frames;  // frames[0] is the seed; then one per entry, in the order visited
  std::string html;
};

// Runs loss.backward(retain_graph) and records the walk: which entry ran, in which order, and
// what each one added to its inputs' gradients.
BackwardSteps backward_steps(const Tensor& loss, bool retain_graph = false, const DrawOptions& options = {});

}  // namespace tapegrad

// ---- notebook-only: the mime bundles (see display.hpp) ----
#if defined(TAPEGRAD_XEUS) || defined(TAPEGRAD_WITH_MIME_BUNDLE)
namespace tapegrad {

inline nlohmann::json mime_bundle_repr(const Svg& picture) {
  auto bundle = nlohmann::json::object();
  bundle["image/svg+xml"] = picture.svg;
  bundle["text/plain"] = "<tapegrad::Svg, " + std::to_string(picture.svg.size()) + " bytes>";
  return bundle;
}

inline nlohmann::json mime_bundle_repr(const BackwardSteps& steps) {
  auto bundle = nlohmann::json::object();
  bundle["text/html"] = steps.html;
  bundle["text/plain"] = "<tapegrad::BackwardSteps, " + std::to_string(steps.frames.size()) + " frames>";
  return bundle;
}

}  // namespace tapegrad
#endif
