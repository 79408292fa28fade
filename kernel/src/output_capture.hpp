#pragma once
// While a cell runs, what it writes to file descriptors 1 and 2 (std::cout, printf,
// std::cerr, clang's diagnostics, programs started with std::system) goes into pipes
// instead of the kernel's own stdout/stderr. A reader thread sends it on as it comes
// (Jupyter's "stream" messages), so a long cell shows its progress; flush() hands over
// everything written so far, so that output and displays stay in order.

#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tapegrad_xcpp {

class OutputCapture {
 public:
  // send(stream name, text) is called with the capture's mutex held.
  using Sender = std::function<void(const std::string& stream, const std::string& text)>;

  explicit OutputCapture(Sender send);
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  void begin();  // fds 1 and 2 go to the pipes
  void end();    // flush, then fds 1 and 2 are the kernel's own again
  // Sends everything written so far, then calls send_other with the lock held: how the
  // kernel publishes anything else, so that output and displays stay in order and no two
  // threads use the ZeroMQ socket at once.
  void flush_then(const std::function<void()>& send_other);
  // Everything written so far, not sent (e.g. diagnostics to put in an error reply).
  std::string take(int fd);
  // Discard mode: output is read but neither sent nor kept (throwaway inputs).
  void set_discard(bool discard) { discard_ = discard; }
  // Keep mode: output is kept for take() instead of being sent (compile diagnostics).
  void set_keep(bool keep) { keep_ = keep; }

 private:
  void drain_locked();
  void reader_loop();

  Sender send_;
  int pipe_read_[2] = {-1, -1};
  int pipe_write_[2] = {-1, -1};
  int saved_[2] = {-1, -1};
  std::string kept_[2];
  bool active_ = false;
  bool discard_ = false;
  bool keep_ = false;
  bool stop_ = false;
  std::mutex mutex_;
  std::thread reader_;
};

}  // namespace tapegrad_xcpp
