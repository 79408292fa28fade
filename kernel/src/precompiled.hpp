// Precompiled for the interpreter at build time (kernel/CMakeLists.txt): the headers every
// rich display parses, so that the first Tensor shown does not wait for them.
#include <nlohmann/json.hpp>
