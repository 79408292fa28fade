#pragma once
// tapegrad-depth's exit statuses (--help lists them).

namespace tapegrad::lab::cli {

constexpr int kExitDone = 0;
constexpr int kExitError = 1;         // failed while running, or merge found runs missing or twice
constexpr int kExitBadArguments = 2;  // refused before any work; nothing written
constexpr int kExitInterrupted = 130; // SIGINT/SIGTERM; finished runs kept, rerun with --resume

}  // namespace tapegrad::lab::cli
