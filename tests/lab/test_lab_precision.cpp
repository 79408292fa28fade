// The lab in low precision (RunConfig::precision, lab/include/tapegrad/lab/run_numerics.hpp): fp64 leaves every
// file as it was, the formats round what the run stores, mixed precision scales the loss and divides it out.

#include <cmath>

#include "lab/lab_helpers.hpp"
#include "tapegrad/autograd/precision.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/paper_diagnostics.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/run_numerics.hpp"
#include "tapegrad/lab/sweep.hpp"
#include "tapegrad/ops/elementwise.hpp"
#include "tapegrad/ops/reduce.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

namespace {

bool in_format(double v, Precision p) { return std::isnan(v) || round_to(v, p) == v; }

bool all_in_format(const Array& values, Precision p) {
  for (double v : values)
    if (!in_format(v, p)) return false;
  return true;
}

RunConfig tiny_in(RunPrecision p, nn::Placement placement = nn::Placement::pre) {
  RunConfig c = testing::tiny_run(placement);
  c.precision = p;
  return c;
}

}  // namespace

TEST_CASE("precision fp64 is not written: config.json, sweep.json, the run id and the seeds as before it existed",
          "[lab]") {
  const RunConfig c = testing::tiny_run(nn::Placement::pre);
  CHECK(to_json(c).find("precision") == std::string::npos);
  CHECK(to_json(testing::tiny_grid()).find("precision") == std::string::npos);
  CHECK(run_id(c) == "pre_L2_d4_lr0.01_w0_T6_b8_s0");
  CHECK(run_config_from_json(to_json(c)) == c);

  const RunConfig half = tiny_in(RunPrecision::fp16_mixed);
  CHECK(run_id(half) == "pre_L2_d4_lr0.01_w0_T6_b8_s0_fp16-mixed");
  CHECK(to_json(half).find("\"precision\": \"fp16-mixed\"") != std::string::npos);
  CHECK(run_config_from_json(to_json(half)) == half);
  // Every format starts from the same float64 draw (rounded to it), with the same data and batches.
  CHECK(init_seed(half) == init_seed(c));
  CHECK(data_seed(half) == data_seed(c));

  SweepGrid g = testing::tiny_grid();
  run_field("precision").set_grid_values(g, {FieldValue(std::string("fp64")), FieldValue(std::string("bf16"))});
  const auto runs = expand(g);
  REQUIRE(runs.size() == 8);
  CHECK(runs[0].precision == RunPrecision::fp64);
  CHECK(runs[1].precision == RunPrecision::bf16);  // innermost
  CHECK(run_id(runs[1]) == run_id(runs[0]) + "_bf16");
  CHECK(to_json(g).find("\"precision\": [\n    \"fp64\",\n    \"bf16\"\n  ]") != std::string::npos);
  CHECK(sweep_grid_from_json(to_json(g)) == g);
  CHECK_THROWS_WITH(parse_choice<RunPrecision>("fp8"),
                    "expected one of fp64, fp32, bf16, fp16, bf16-mixed, fp16-mixed, bf16-mixed-noscale, "
                    "fp16-mixed-noscale, got 'fp8'");
}

TEST_CASE("a run in a format stores only numbers of the format: data, parameters, losses", "[lab]") {
  for (RunPrecision p : {RunPrecision::fp32, RunPrecision::bf16, RunPrecision::fp16}) {
    const RunConfig c = tiny_in(p);
    const Precision working = numerics_of(p).working;
    INFO("precision " << to_string(p));
    const TaskData task = make_task(c);
    CHECK(all_in_format(task.train.x, working));
    CHECK_FALSE(all_in_format(make_task(testing::tiny_run(nn::Placement::pre)).train.x, working));
    Generator gen(init_seed(c));
    DepthModel model(c, gen);
    const TrainLog log = train(model, task.train, &task.eval, sample_batches(c), c);
    for (const Tensor& w : model.parameters()) CHECK(all_in_format(w.value(), working));
    for (const CurvePoint& pt : log.curve) CHECK(in_format(pt.loss, working));
    for (const EvalPoint& e : log.evals) CHECK(in_format(e.loss, working));
  }
}

TEST_CASE("mixed precision: fp16 weights, float32 masters, the loss scale divided out of what is logged",
          "[lab]") {
  const RunConfig scaled = tiny_in(RunPrecision::fp16_mixed), unscaled = tiny_in(RunPrecision::fp16_mixed_noscale);
  const RunResult a = run_experiment(scaled), b = run_experiment(unscaled);
  REQUIRE(a.log.curve.size() == b.log.curve.size());
  // The same gradients up to fp16's rounding of the scaled and the unscaled values: not 65536 times larger.
  CHECK(a.log.curve[0].grad_norm == Approx(b.log.curve[0].grad_norm).epsilon(0.01));
  REQUIRE(a.log.init.size() == b.log.init.size());
  for (std::size_t i = 0; i < a.log.init.size(); ++i)
    CHECK(a.log.init[i].weight_grad_norm == Approx(b.log.init[i].weight_grad_norm).epsilon(0.01));
  CHECK(a.log.first_step.output_change == Approx(b.log.first_step.output_change).epsilon(0.05));
  CHECK(a.log.nonfinite_step == -1);
}

TEST_CASE("RunOptimizer: an overflowing scaled gradient skips the step and halves the scale, pure fp16 keeps it",
          "[lab]") {
  precision_scope fp16(Precision::fp16);
  optim::AdamOptions options;
  options.lr = 0.1;  // so that the fp16 weight moves too (its spacing at 100 is 1/16)
  // d(scale · w²)/dw = 2 · 100 · 2^16 ≈ 1.3e7: beyond fp16 (65504) until the scale is 2^8.
  Tensor w(Array{100.0}, true, "w");
  RunOptimizer amp({w}, numerics_of(RunPrecision::fp16_mixed), options);
  int skipped = 0;
  for (int step = 0; step < 12; ++step) {
    amp.zero_grad();
    amp.backward(sum(mul(w, w)));
    if (!amp.step()) ++skipped;
  }
  CHECK(skipped == 8);  // 2^16 ... 2^9 overflow; 2^8 · 200 = 51200 fits
  CHECK(amp.grad_scale() == 256.0);
  CHECK(w.value()(0) < 100.0);  // the four steps taken moved it
  CHECK(all_in_format(w.value(), Precision::fp16));

  Tensor v(Array{100.0}, true, "v");
  RunOptimizer pure({v}, numerics_of(RunPrecision::fp16), options);
  pure.zero_grad();
  pure.backward(sum(mul(v, v)));
  CHECK(pure.grad_scale() == 1.0);
  CHECK(v.grad()(0) == 200.0);
  CHECK(pure.step());
}

TEST_CASE("pure fp16 breaks Adam: v = (1 - beta2) g^2 underflows to 0, and m / (sqrt(v) + eps) explodes", "[lab]") {
  // What the lab's fp16 runs show (docs/lab.md): with PyTorch's eps = 1e-8, a gradient of 1e-4 gives
  // v = 1e-11, below fp16's smallest subnormal, so the update is lr · g / eps = 1e4 · lr; fp16-mixed keeps v in
  // float32.
  const RunResult pure = run_experiment(tiny_in(RunPrecision::fp16));
  const RunResult mixed = run_experiment(tiny_in(RunPrecision::fp16_mixed));
  CHECK(pure.failure.failed);
  CHECK(pure.failure.reason == "nonfinite");
  CHECK(mixed.log.nonfinite_step == -1);
}

TEST_CASE("paper_diagnostics refuses a low precision, naming it", "[lab]") {
  CHECK_THROWS_WITH(paper_diagnostics(tiny_in(RunPrecision::bf16), 16, 2),
                    Catch::Contains("measured in fp64 only, got --precision bf16"));
}
