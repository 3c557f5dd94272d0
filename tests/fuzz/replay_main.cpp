// The plain driver of a fuzz target (any compiler, no libFuzzer): runs every
// file named on the command line, or every file of each named directory,
// through LLVMFuzzerTestOneInput, so the normal build replays the seed corpus
// and the regression inputs as a ctest test.

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

std::vector<std::string> filesUnder(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return {};
  if (!S_ISDIR(info.st_mode)) return {path};
  std::vector<std::string> files;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      for (const std::string& f : filesUnder(path + "/" + name)) files.push_back(f);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::vector<std::string> files = filesUnder(argv[i]);
    if (files.empty()) {
      std::fprintf(stderr, "no input at %s\n", argv[i]);
      return 2;
    }
    for (const std::string& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  // Also a few fixed inputs, so that an empty corpus still exercises the target.
  for (int seed = 0; seed < 64; ++seed) {
    std::vector<uint8_t> bytes(256);
    uint32_t state = 2166136261u ^ static_cast<uint32_t>(seed);
    for (uint8_t& b : bytes) {
      state = state * 1664525u + 1013904223u;
      b = static_cast<uint8_t>(state >> 24);
    }
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++replayed;
  }
  std::printf("replayed %zu inputs, no invariant broken\n", replayed);
  return 0;
}
