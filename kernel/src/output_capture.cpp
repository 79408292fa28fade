#include "output_capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace tapegrad_xcpp {

OutputCapture::OutputCapture(Sender send) : send_(std::move(send)) {
  for (int k = 0; k < 2; ++k) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("tapegrad-xcpp: cannot create an output pipe");
    pipe_read_[k] = fds[0];
    pipe_write_[k] = fds[1];
    fcntl(pipe_read_[k], F_SETFL, O_NONBLOCK);
    fcntl(pipe_write_[k], F_SETPIPE_SZ, 1 << 20);  // room for bursts between reads
    saved_[k] = fcntl(k + 1, F_DUPFD_CLOEXEC, 10);
  }
  // stdout is a pipe while a cell runs: line-buffer it, so printf's lines arrive as they are written.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  reader_ = std::thread([this] { reader_loop(); });
}

OutputCapture::~OutputCapture() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stop_ = true;
  }
  reader_.join();
  for (int k = 0; k < 2; ++k) {
    close(pipe_read_[k]);
    close(pipe_write_[k]);
    close(saved_[k]);
  }
}

void OutputCapture::begin() {
  std::fflush(nullptr);
  std::lock_guard<std::mutex> guard(mutex_);
  for (int k = 0; k < 2; ++k) dup2(pipe_write_[k], k + 1);
  active_ = true;
}

void OutputCapture::end() {
  std::fflush(nullptr);
  std::lock_guard<std::mutex> guard(mutex_);
  drain_locked();
  for (int k = 0; k < 2; ++k) dup2(saved_[k], k + 1);
  active_ = false;
}

void OutputCapture::flush_then(const std::function<void()>& send_other) {
  std::fflush(nullptr);
  std::lock_guard<std::mutex> guard(mutex_);
  drain_locked();
  send_other();
}

std::string OutputCapture::take(int fd) {
  std::fflush(nullptr);
  std::lock_guard<std::mutex> guard(mutex_);
  drain_locked();
  std::string text;
  text.swap(kept_[fd - 1]);
  return text;
}

void OutputCapture::drain_locked() {
  char buffer[65536];
  for (int k = 0; k < 2; ++k) {
    std::string text;
    ssize_t got;
    while ((got = read(pipe_read_[k], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
    if (text.empty() || discard_) continue;
    if (keep_) kept_[k] += text;
    else send_(k == 0 ? "stdout" : "stderr", text);
  }
}

void OutputCapture::reader_loop() {
  pollfd fds[2] = {{pipe_read_[0], POLLIN, 0}, {pipe_read_[1], POLLIN, 0}};
  for (;;) {
    bool active;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      if (stop_) return;
      active = active_;
    }
    if (!active) {  // between cells nothing writes to the pipes
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    poll(fds, 2, 50);
    std::lock_guard<std::mutex> guard(mutex_);
    if (active_) drain_locked();
  }
}

}  // namespace tapegrad_xcpp
