// tapegrad-xcpp: a Jupyter kernel for C++17 (kernelspec name "xcpp17"), built from
// Debian's xeus 2.4.1 (the Jupyter protocol over ZeroMQ) and clang 22's incremental
// interpreter. Jupyter starts it as
//
//     tapegrad-xcpp -f <connection file> [-I <dir>]... [--pch <file>] [--resource-dir <dir>] [-- <clang args>]
//
// -I adds include directories for the cells (the kernelspec passes the kernel's xcpp/
// headers); --pch is the precompiled header the build made (clang_start.cpp); --resource-dir
// is clang's own header directory (default: the one of the clang this kernel was built
// against). `tapegrad-xcpp --probe-pch <file> [-I <dir>]...` checks a precompiled header
// (the build runs it once) and exits.

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <xeus/xeus_context.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver_zmq.hpp>

#include "interpreter.hpp"

#ifndef TAPEGRAD_XCPP_RESOURCE_DIR
#error "TAPEGRAD_XCPP_RESOURCE_DIR (clang -print-resource-dir) must be defined by the build"
#endif

namespace {

int usage(const std::string& problem) {
  std::cerr << "tapegrad-xcpp: " << problem << "\n"
            << "usage: tapegrad-xcpp -f <connection file> [-I <dir>]... [--pch <file>] [--resource-dir <dir>] "
               "[-- <clang args>]\n"
            << "       tapegrad-xcpp --probe-pch <file> [-I <dir>]...\n"
            << "(Jupyter starts it through its kernelspec, share/jupyter/kernels/xcpp17/kernel.json)\n";
  return 2;
}

}  // namespace

int main(int argc, char* argv[]) {
  std::string connection_file;
  tapegrad_xcpp::KernelOptions options;
  bool probe = false;
  options.resource_dir = TAPEGRAD_XCPP_RESOURCE_DIR;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "-f") connection_file = value();
    else if (arg == "-I") options.include_dirs.push_back(value());
    else if (arg.rfind("-I", 0) == 0) options.include_dirs.push_back(arg.substr(2));
    else if (arg == "--resource-dir") options.resource_dir = value();
    else if (arg == "--pch") options.precompiled_header = value();
    else if (arg == "--probe-pch") options.precompiled_header = value(), probe = true;
    else if (arg == "--") {
      for (++i; i < argc; ++i) options.compiler_args.push_back(argv[i]);
    } else return usage("unknown argument " + arg);
  }
  if (probe) return tapegrad_xcpp::probe_precompiled_header(options);
  if (connection_file.empty()) return usage("no connection file (-f)");

  xeus::xconfiguration config;
  try {
    config = xeus::load_configuration(connection_file);
    if (config.m_transport.empty() || config.m_ip.empty() || config.m_shell_port.empty())
      throw std::runtime_error("it has no transport, ip or shell_port");
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-xcpp: cannot read the connection file " << connection_file << ": " << e.what() << "\n";
    return 1;
  }

  std::unique_ptr<tapegrad_xcpp::CppInterpreter> interpreter;
  try {
    interpreter = std::make_unique<tapegrad_xcpp::CppInterpreter>(options);
  } catch (const std::exception& e) {
    std::cerr << "tapegrad-xcpp: " << e.what() << "\n";
    return 1;
  }
  xeus::xkernel kernel(config, xeus::get_user_name(), xeus::make_context<zmq::context_t>(), std::move(interpreter),
                       xeus::make_xserver_zmq);
  kernel.start();
  // Shut down: code the cells JIT-compiled may have thread_local or static destructors
  // that would run after the JIT's memory is gone, so leave without running them.
  std::fflush(nullptr);
  std::_Exit(0);
}
