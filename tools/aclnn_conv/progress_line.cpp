#include "progress_line.h"

namespace {

constexpr auto kShowAfter = std::chrono::seconds(1);
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);
constexpr size_t kMaxWidth = 79;  // stays on one line of an 80-column terminal

}  // namespace

ProgressLine::ProgressLine(bool enabled, std::FILE* out) : enabled_(enabled), out_(out) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    eraseLocked();
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressLine::beginProblem(int index, int total, const std::string& label) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = true;
  index_ = index;
  total_ = total;
  label_ = label;
  stage_ = "starting";
  repetitionsDone_ = repetitions_ = 0;
  start_ = std::chrono::steady_clock::now();
}

void ProgressLine::endProblem() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = false;
  eraseLocked();
}

void ProgressLine::stage(const char* what) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  stage_ = what;
}

void ProgressLine::repetitionsDone(int done, int total) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  repetitionsDone_ = done;
  repetitions_ = total;
}

void ProgressLine::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedrawEvery);
    if (stopping_) break;
    if (active_ && std::chrono::steady_clock::now() - start_ >= kShowAfter) drawLocked();
  }
}

void ProgressLine::drawLocked() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char tail[128];
  if (stage_ == "running") {
    std::snprintf(tail, sizeof(tail), ": %s, %d/%d repetitions, %.1f s", stage_.c_str(),
                  repetitionsDone_, repetitions_, elapsed);
  } else {
    std::snprintf(tail, sizeof(tail), ": %s, %.1f s", stage_.c_str(), elapsed);
  }
  const std::string head = "problem " + std::to_string(index_) + "/" + std::to_string(total_) + " ";
  std::string label = label_;
  const size_t fixed = head.size() + std::char_traits<char>::length(tail);
  if (fixed + label.size() > kMaxWidth)
    label = fixed + 3 < kMaxWidth ? label.substr(0, kMaxWidth - fixed - 3) + "..." : "";
  // \r and "erase to end of line": the line is redrawn in place.
  std::fprintf(out_, "\r\033[K%s%s%s", head.c_str(), label.c_str(), tail);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::eraseLocked() {
  if (!drawn_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  drawn_ = false;
}
