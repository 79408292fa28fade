// tapegrad-depth --dump DIR ...: the replay record of one run (see tapegrad/lab/replay.hpp).

#include <iostream>

#include "command.hpp"
#include "exit_status.hpp"
#include "tapegrad/lab/replay.hpp"

namespace tapegrad::lab::cli {

int run_dump(const Command& c) {
  const RunConfig& config = c.runs.at(0);  // check_command_line made sure there is exactly one
  const RunResult r = write_replay(c.out, config);
  std::cout << "Wrote the replay record of " << run_id(config) << " to " << c.out << " (" << r.log.curve.size()
            << " steps, final train loss " << format_double(r.log.curve.back().loss)
            << ")";
  // tools/replay_torch.py replays fp64 runs without dropout only (PyTorch's CPU float16 rounds inside its
  // reductions; the dropout masks come from tapegrad's Generator, not torch's): for the others it would refuse,
  // so it is not offered.
  if (config.precision != RunPrecision::fp64)
    std::cout << ". (tools/replay_torch.py replays fp64 runs only: PyTorch's float formats round otherwise)\n";
  else if (config.dropout != 0.0)
    std::cout << ". (tools/replay_torch.py replays runs without dropout only: the masks are tapegrad's draws)\n";
  else
    std::cout << ". Replay: /usr/bin/python3 tools/replay_torch.py " << c.out << "\n";
  return kExitDone;
}

}  // namespace tapegrad::lab::cli
