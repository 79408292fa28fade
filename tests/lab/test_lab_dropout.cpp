// The lab's --dropout: residual dropout in training only, from a stream of its own (the same init, data and
// batches as the run without it), reproducible, in the run id and config.json only when set.

#include <thread>

#include "lab/lab_helpers.hpp"
#include "helpers.hpp"
#include "tapegrad/lab/depth_model.hpp"
#include "tapegrad/lab/depth_run.hpp"
#include "tapegrad/lab/lm_training.hpp"
#include "tapegrad/lab/run_fields.hpp"

using namespace tapegrad;
using namespace tapegrad::lab;

using testing::tiny_run;

TEST_CASE("lab dropout: the same init, a different training, the same bits twice", "[lab][dropout]") {
  for (Arch arch : {Arch::ffn, Arch::transformer}) {
    DYNAMIC_SECTION("arch " << to_string(arch)) {
      RunConfig plain = tiny_run(nn::Placement::post, 3);
      plain.arch = arch;
      RunConfig dropped = plain;
      dropped.dropout = 0.3;
      CHECK(init_seed(dropped) == init_seed(plain));
      CHECK(data_seed(dropped) == data_seed(plain));
      CHECK(batch_seed(dropped) == batch_seed(plain));
      CHECK(dropout_seed(dropped) != init_seed(dropped));
      const RunResult a = run_experiment(plain), b = run_experiment(dropped);
      RunResult c;
      std::thread([&] { c = run_experiment(dropped); }).join();
      REQUIRE(a.log.evals.size() >= 2);
      // Step 0's evaluation runs the initial model in eval() mode, where dropout is the identity.
      CHECK(b.log.evals.front().loss == a.log.evals.front().loss);
      // Training drops: the first step's loss already differs.
      CHECK(b.log.curve.front().loss != a.log.curve.front().loss);
      for (std::size_t i = 0; i < b.log.curve.size(); ++i) CHECK(b.log.curve[i].loss == c.log.curve[i].loss);
      CHECK(b.eval_loss == c.eval_loss);
    }
  }
}

TEST_CASE("lab dropout: in the id and config.json only when set, refused outside 0 to 1 (1 excluded)", "[lab][dropout]") {
  RunConfig c = tiny_run(nn::Placement::pre, 2);
  CHECK(run_id(c).find("drop") == std::string::npos);
  CHECK(to_json(c).find("dropout") == std::string::npos);
  c.dropout = 0.1;
  CHECK_THAT(run_id(c), Catch::EndsWith("_drop0.1"));
  CHECK(run_config_from_json(to_json(c)) == c);
  const Field& f = run_field("dropout");
  CHECK(f.problem(0.0).empty());
  CHECK(f.problem(0.5).empty());
  CHECK(f.problem(1.0) == "a dropout probability must be a number in [0, 1), got 1");
  CHECK(f.problem(-0.1) == "a dropout probability must be a number in [0, 1), got -0.1");
  CHECK(f.problem(std::nan("")) == "a dropout probability must be a number in [0, 1), got nan");
  // The learning rate keeps its own rule.
  CHECK(run_field("lr").problem(0.0) == "a learning rate must be a finite number > 0, got 0");
}

TEST_CASE("lab dropout: refused without the model's Generator, and by the text tasks", "[lab][dropout]") {
  RunConfig c = tiny_run(nn::Placement::pre, 2);
  c.dropout = 0.1;
  // A block built without the Generator would draw its masks from nowhere: the helpers refuse, naming --dropout.
  CHECK_THROWS_WITH(residual_options(c), Catch::Contains("residual_options: --dropout 0.1") &&
                                             Catch::Contains("needs the model's own dropout Generator"));
  CHECK_THROWS_WITH(transformer_block_options(c), Catch::Contains("needs the model's own dropout Generator"));
  Generator gen(7);
  CHECK(residual_options(c, &gen).dropout_generator == &gen);
  CHECK(transformer_block_options(c, &gen).residual.dropout == 0.1);
  c.dropout = 0.0;  // no dropout: no Generator needed
  CHECK(residual_options(c).dropout == 0.0);
  // The text tasks' model has no residual dropout: --dropout is refused, not ignored.
  c.dropout = 0.1;
  CHECK_THROWS_WITH(lm_options(c, 40), Catch::Contains("tapegrad-depth poems: --dropout 0.1") &&
                                           Catch::Contains("is not taken by the text tasks"));
}
