#pragma once
// A one-line progress display on a terminal: which problem of how many, what
// it is doing, repetitions done and the time spent on it, e.g.
//   problem 3/12 resnet50 res3 3x3/2: running, 1/3 repetitions, 2.4 s It appears only
// once a problem has run for a second, is redrawn a few times a second from
// its own thread (phase 2 blocks the main one), and is erased before the
// problem's result row is printed.

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "run_types.h"

class ProgressLine final : public RunObserver {
 public:
  // Disabled: every call is a no-op and no thread is started.
  ProgressLine(bool enabled, std::FILE* out);
  ~ProgressLine() override;
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void beginProblem(int index, int total, const std::string& label);  // index from 1
  void endProblem();  // erases the line; call before printing the problem's row

  void stage(const char* what) override;
  void repetitionsDone(int done, int total) override;

 private:
  void loop();
  void drawLocked();
  void eraseLocked();

  const bool enabled_;
  std::FILE* const out_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool active_ = false;
  bool drawn_ = false;
  int index_ = 0, total_ = 0;
  std::string label_;
  std::string stage_;
  int repetitionsDone_ = 0, repetitions_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};
