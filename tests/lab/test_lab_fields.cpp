// The lab's one field table (run_fields.hpp) and the papers' diagnostics (paper_diagnostics.hpp).

#include <cmath>
#include <set>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/paper_diagnostics.hpp"
#include "tapegrad/lab/run_fields.hpp"
#include "tapegrad/lab/sweep.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

TEST_CASE("the field table: every RunConfig field once, the orders a permutation", "[lab]") {
  const auto& fields = run_fields();
  REQUIRE(fields.size() == 28);
  std::set<std::string> keys, options;
  std::set<int> axis_ranks, id_ranks;
  for (const Field& f : fields) {
    CHECK(keys.insert(f.key).second);
    if (!f.option.empty()) CHECK(options.insert(f.option).second);
    if (f.is_axis()) CHECK(axis_ranks.insert(f.axis_rank).second);
    if (f.id_shown != Field::Shown::never) CHECK(id_ranks.insert(f.id_rank).second);
    // Each field is read and written through its row: a changed value is seen by == and survives config.json.
    RunConfig a = testing::tiny_run(nn::Placement::pre), b = a;
    FieldValue other = f.get(a);
    if (f.kind == Field::Kind::choice) other = f.choices.back() == Field::text(other) ? f.choices.front() : f.choices.back();
    else if (f.kind == Field::Kind::real) other = std::get<double>(other) == 0.0 ? 0.25 : std::get<double>(other) * 2;  // dropout's 0
    else other = std::get<long long>(other) + (f.key == "d" ? 4 : 1);
    INFO("field " << f.key);
    REQUIRE(f.problem(other).empty());
    f.set(b, other);
    CHECK(a != b);
    if (f.key != "batch" && f.key != "classes") CHECK(run_config_from_json(to_json(b)) == b);
  }
  CHECK(axis_ranks == std::set<int>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(*id_ranks.begin() == 1);
  CHECK(*id_ranks.rbegin() == static_cast<int>(id_ranks.size()));
}

TEST_CASE("one check per field: the same message from the table, the JSON and validate", "[lab]") {
  const Field& depth = run_field("depth");
  CHECK(depth.problem(FieldValue(0LL)) == "a depth (number of blocks) must be between 1 and 1024, got 0");
  CHECK(depth.problem(FieldValue(2.5)) == "a depth (number of blocks) must be a whole number, got 2.5");
  CHECK_THROWS_WITH(depth.parse("two"), "RunConfig: depth: 'two' is not a whole number");
  CHECK(std::get<long long>(depth.parse("-4")) == -4);  // seen as -4, so refused, not wrapped around
  CHECK(run_field("lr").problem(FieldValue(std::nan(""))) == "a learning rate must be a finite number > 0, got nan");
  CHECK(run_field("init").problem(FieldValue(std::string("he"))) == "expected one of pytorch, xavier, got 'he'");
  std::string json = to_json(testing::tiny_run(nn::Placement::post));
  json.replace(json.find("\"depth\": 2"), 10, "\"depth\": 0");
  CHECK_THROWS_WITH(run_config_from_json(json), "RunConfig: depth: a depth (number of blocks) must be between 1 and 1024, got 0");
  json.replace(json.find("\"depth\": 0"), 10, "\"depth\": \"x\"");
  CHECK_THROWS_WITH(run_config_from_json(json), Catch::Contains("depth: has the wrong type"));
}

TEST_CASE("sweepable settings: --inits pytorch,xavier gives both runs, innermost — one value reads as before", "[lab]") {
  SweepGrid g = testing::tiny_grid();
  const std::string one_value = to_json(g);
  g.inits = {Init::pytorch};  // one value: base's, and the same sweep.json
  g.inits.clear();
  run_field("init").set_grid_values(g, {FieldValue(std::string("xavier"))});
  CHECK(g.inits.empty());
  CHECK(g.base.init == Init::xavier);
  g = testing::tiny_grid();
  run_field("init").set_grid_values(g, {FieldValue(std::string("pytorch")), FieldValue(std::string("xavier"))});
  const auto runs = expand(g);
  REQUIRE(runs.size() == 8);
  CHECK(runs[0].init == Init::pytorch);
  CHECK(runs[1].init == Init::xavier);  // innermost
  CHECK(run_id(runs[1]) == run_id(runs[0]) + "_xavier");
  CHECK(to_json(g).find("\"init\": [\n    \"pytorch\",\n    \"xavier\"\n  ]") != std::string::npos);
  CHECK(sweep_grid_from_json(to_json(g)) == g);
  CHECK(sweep_grid_from_json(one_value) == testing::tiny_grid());
}

TEST_CASE("Lemma 2's bounds", "[lab]") {
  CHECK(lemma2_bounds(nn::Placement::post, 7, 32) == std::pair<double, double>{48.0, 48.0});
  CHECK(lemma2_bounds(nn::Placement::pre, 4, 32) == std::pair<double, double>{96.0, 224.0});
  CHECK(std::isnan(lemma2_bounds(nn::Placement::rezero, 1, 32).first));
}

TEST_CASE("paper_diagnostics: the expected gradient is the norm of the mean, the first update is the run's", "[lab]") {
  RunConfig c = testing::tiny_run(nn::Placement::post, 3);
  c.train_size = 64;
  const PaperDiagnostics p = paper_diagnostics(c, 16, 4);
  REQUIRE(p.gradients.size() == 3);
  REQUIRE(p.hidden.size() == 3);
  REQUIRE(p.updates.size() == 4);
  // The first batch's norm is the sweep's init_grads figure of the same run.
  const RunResult r = run_experiment(c);
  for (std::size_t l = 0; l < 3; ++l) {
    CHECK(p.gradients[l].first_batch_norm == r.log.init[l].weight_grad_norm);
    // ‖mean‖ <= mean of ‖·‖ (the triangle inequality), and strictly here: the batches' gradients differ.
    CHECK(p.gradients[l].expected_norm < p.gradients[l].mean_batch_norm);
    CHECK(p.gradients[l].expected_norm > 0);
  }
  // ||dF|| of update 1 is the run's first-step output change; training is the run's.
  CHECK(p.updates[0].output_change == r.log.first_step.output_change);
  CHECK(p.first_step.output_change == r.log.first_step.output_change);
  // Post-Norm's block output is normalised (γ = 1): E‖x_l‖² = d up to eps; its residual sum is not normalised.
  for (const HiddenNorm& h : p.hidden) {
    CHECK(h.output_sq_norm == Approx(4.0).epsilon(1e-3));
    CHECK(h.residual_sq_norm > 0);
    CHECK(h.compared == h.residual_sq_norm);
    CHECK(h.lower == 6.0);
  }
  // The expected gradient by hand for block 2: the mean of the 16 batches' gradients.
  Generator gen(init_seed(c));
  DepthModel model(c, gen);
  const TaskData task = make_task(c);
  RunConfig k16 = c;
  k16.steps = 16;
  Array sum;
  for (const auto& batch_indices : sample_batches(k16)) {
    model.zero_grad();
    const Dataset batch = gather(task.train, batch_indices);
    cross_entropy(model(Tensor(batch.x)), batch.y).backward();
    const Array g = model.fc2_weight(2).grad();
    sum = sum.dimension() == 0 ? g : Array(sum + g);
  }
  CHECK(p.gradients[2].expected_norm == Approx(std::sqrt(xt::sum(sum * sum)()) / 16).epsilon(1e-12));
}
