#include "torch_bridge.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace peers {
namespace {

std::string jsonList(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

// The symmetric per-dim padding PyTorch takes, or "null".
std::string torchPadding(const ProblemSpec& spec) {
  const auto padding = spec.paddingArray();
  if (!spec.fourValuePadding) return jsonList(padding);
  if (padding[0] != padding[1] || padding[2] != padding[3]) return "null";
  return jsonList({padding[0], padding[2]});
}

std::string quoted(const std::string& text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

std::string shellQuoted(const std::string& text) {
  std::string s = "'";
  for (char c : text) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

}  // namespace

std::vector<TorchJob> torchJobs(const std::vector<Sweep>& sweeps,
                                const std::vector<ProblemSpec>& problems,
                                std::vector<TorchJobRef>* where) {
  std::vector<TorchJob> jobs;
  where->clear();
  for (size_t s = 0; s < sweeps.size(); ++s) {
    if (!sweeps[s].peers) continue;
    for (size_t c : sweeps[s].cases) {
      jobs.push_back({&problems[c], sweeps[s].direction, sweeps[s].precision});
      where->push_back({s, c});
    }
  }
  return jobs;
}

std::string torchProblemLines(const std::vector<TorchJob>& jobs) {
  std::ostringstream out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const ProblemSpec& p = *jobs[i].problem;
    out << "{\"index\": " << i << ", \"name\": " << quoted(p.name)
        << ", \"direction\": " << quoted(directionName(jobs[i].direction))
        << ", \"dtype\": " << quoted(precisionName(jobs[i].precision))
        << ", \"descriptor\": " << quoted(p.compact())
        << ", \"grad_output\": " << jsonList(p.gradOutputShape())
        << ", \"input\": " << jsonList(p.inputShape())
        << ", \"weight\": " << jsonList(p.weightShape())
        << ", \"stride\": " << jsonList(p.strideArray()) << ", \"padding\": " << torchPadding(p)
        << ", \"dilation\": " << jsonList(p.dilationArray())
        << ", \"transposed\": " << (p.transposed ? "true" : "false")
        << ", \"output_padding\": " << jsonList(p.outputPaddingArray())
        << ", \"groups\": " << p.groups << "}\n";
  }
  return out.str();
}

std::vector<TorchTiming> runTorch(const std::vector<TorchJob>& jobs, const TorchOptions& options,
                                  std::string* error) {
  char path[] = "/tmp/conv_backward_peers_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    *error = "cannot create a temporary file";
    return {};
  }
  const std::string lines = torchProblemLines(jobs);
  const bool written = write(fd, lines.data(), lines.size()) == static_cast<ssize_t>(lines.size());
  close(fd);
  std::vector<TorchTiming> timings(jobs.size());
  if (!written) {
    unlink(path);
    *error = "cannot write the problem list";
    return {};
  }
  const std::string threads = std::to_string(options.threads);
  const std::string keepMemory = options.defaultMalloc
                                     ? ""
                                     : "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:"
                                       "glibc.malloc.trim_threshold=4294967296 ";
  const std::string modes =
      std::string(options.split ? "split," : "") + (options.fused ? "fused" : "");
  const std::string command =
      keepMemory + "OMP_NUM_THREADS=" + threads + " " + shellQuoted(options.python) + " " +
      shellQuoted(options.script) + " --threads " + threads + " --warmup " +
      std::to_string(options.warmups) + " --repeat " + std::to_string(options.repeats) +
      " --budget " + std::to_string(options.cellBudgetSeconds) + " --modes " + modes + " < " + path;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    unlink(path);
    *error = "cannot start " + options.python;
    return {};
  }
  // The script prints "<index> <split ms> <fused ms> <descriptor> <backend...>"
  // per backward job, "<index> <forward ms> nan <descriptor> <backend...>" per
  // forward job (nan where it did not run); lines starting '#' are comments.
  char line[1024];
  int parsed = 0;
  auto seconds = [](const char* text) {
    char* end = nullptr;
    const double ms = std::strtod(text, &end);
    return end != text && ms == ms ? ms * 1e-3 : -1.0;
  };
  while (std::fgets(line, sizeof(line), pipe)) {
    size_t index = 0;
    char split[64], fused[64];
    int consumed = 0;
    if (std::sscanf(line, "%zu %63s %63s %*s %n", &index, split, fused, &consumed) < 3 ||
        index >= jobs.size())
      continue;
    if (jobs[index].direction == Direction::Forward) {
      timings[index].forwardSeconds = seconds(split);
    } else {
      timings[index].splitSeconds = seconds(split);
      timings[index].fusedSeconds = seconds(fused);
    }
    std::string backend = consumed > 0 ? line + consumed : "";
    while (!backend.empty() && (backend.back() == '\n' || backend.back() == ' '))
      backend.pop_back();
    timings[index].backend = backend;
    ++parsed;
  }
  const int status = pclose(pipe);
  unlink(path);
  if (parsed == 0) {
    *error = "the PyTorch script produced no results (exit status " + std::to_string(status) + ")";
    return {};
  }
  return timings;
}

}  // namespace peers
