#include "case_result.h"

#include <cstdlib>
#include <cstring>

namespace peers {
namespace {

struct NumberField {
  const char* key;
  double CaseResult::*field;
  bool keepSmallest;  // a time (best over rounds), else the latest value
};
const NumberField kNumbers[] = {
    {"oursSplit", &CaseResult::oursSplit, true},
    {"oursFused", &CaseResult::oursFused, true},
    {"oursForward", &CaseResult::oursForward, true},
    {"dnnlPlain", &CaseResult::dnnlPlain, true},
    {"dnnlPreferred", &CaseResult::dnnlPreferred, true},
    {"dnnlPreferredReorders", &CaseResult::dnnlPreferredReorders, true},
    {"torchSplit", &CaseResult::torchSplit, true},
    {"torchFused", &CaseResult::torchFused, true},
    {"torchForward", &CaseResult::torchForward, true},
    {"difference", &CaseResult::difference, false},
    {"differenceFp32", &CaseResult::differenceFp32, false},
    {"fusedWorkspace", &CaseResult::fusedWorkspace, false},
    {"dataWorkspace", &CaseResult::dataWorkspace, false},
    {"weightWorkspace", &CaseResult::weightWorkspace, false},
    {"forwardWorkspace", &CaseResult::forwardWorkspace, false},
};

struct TextField {
  const char* key;
  std::string CaseResult::*field;
};
const TextField kTexts[] = {
    {"kernelData", &CaseResult::kernelData},
    {"kernelWeight", &CaseResult::kernelWeight},
    {"kernelForward", &CaseResult::kernelForward},
    {"dnnlPlainImpl", &CaseResult::dnnlPlainImpl},
    {"dnnlPreferredImpl", &CaseResult::dnnlPreferredImpl},
    {"torchBackend", &CaseResult::torchBackend},
    {"error", &CaseResult::error},
};

std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

void writeCaseResult(FILE* out, size_t sweep, size_t index, const CaseResult& r) {
  for (const NumberField& f : kNumbers)
    if (r.*f.field >= 0) std::fprintf(out, "%zu %zu %s %.9g\n", sweep, index, f.key, r.*f.field);
  for (const TextField& f : kTexts)
    if (!(r.*f.field).empty())
      std::fprintf(out, "%zu %zu %s %s\n", sweep, index, f.key, oneLine(r.*f.field).c_str());
  std::fflush(out);
}

void mergeCaseResults(FILE* in, SweepResults* results) {
  char line[4096];
  while (std::fgets(line, sizeof(line), in)) {
    char key[64];
    size_t sweep = 0, index = 0;
    int consumed = 0;
    if (std::sscanf(line, "%zu %zu %63s %n", &sweep, &index, key, &consumed) < 3 ||
        sweep >= results->size() || index >= (*results)[sweep].size())
      continue;
    std::string value = line + consumed;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    CaseResult& r = (*results)[sweep][index];
    for (const NumberField& f : kNumbers) {
      if (std::strcmp(key, f.key) != 0) continue;
      const double v = std::strtod(value.c_str(), nullptr);
      double& slot = r.*f.field;
      if (!f.keepSmallest || slot < 0 || v < slot) slot = v;
    }
    for (const TextField& f : kTexts) {
      if (std::strcmp(key, f.key) != 0) continue;
      std::string& slot = r.*f.field;
      if (f.field != &CaseResult::error || slot.empty()) slot = value;
    }
  }
}

}  // namespace peers
