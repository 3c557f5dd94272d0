#include "onednn_runner.h"

#include <cstring>
#include <dnnl.hpp>
#include <memory>
#include <unordered_map>

namespace peers {
namespace {

using dnnl::memory;
using dims = memory::dims;
using Args = std::unordered_map<int, memory>;

dims contiguousStrides(const dims& shape) {
  dims strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

memory::desc plainDesc(const dims& shape) {
  return memory::desc(shape, memory::data_type::f32, contiguousStrides(shape));
}

memory::desc anyDesc(const dims& shape) {
  return memory::desc(shape, memory::data_type::f32, memory::format_tag::any);
}

// Problem geometry in oneDNN's terms. For a transposed problem oneDNN's
// deconvolution has src = our input (c channels), dst = our gradOutput
// (o channels) and weights {[g,] o/g, c/g, k...}, while PyTorch stores the
// weight {c, o/g, k...}: same dims, permuted strides.
struct Geometry {
  dims src, dst, weights, weightStrides, bias;
  dims strides, dilates, padLeft, padRight;
};

Geometry geometryOf(const ProblemSpec& spec) {
  Geometry g;
  g.src = spec.inputShape();
  g.dst = spec.gradOutputShape();
  g.bias = {g.dst[1]};
  const int64_t groups = spec.groups;
  const int64_t oc = spec.outChannels / groups, ic = spec.inChannels / groups;
  const auto ourWeight = spec.weightShape();
  const dims kernel(ourWeight.begin() + 2, ourWeight.end());
  int64_t taps = 1;
  for (int64_t k : kernel) taps *= k;
  if (groups > 1)
    g.weights = {groups, oc, ic};
  else
    g.weights = {oc, ic};
  g.weights.insert(g.weights.end(), kernel.begin(), kernel.end());
  g.weightStrides = contiguousStrides(g.weights);
  if (spec.transposed) {
    const size_t ocAxis = groups > 1 ? 1 : 0;
    g.weightStrides[ocAxis] = taps;
    g.weightStrides[ocAxis + 1] = oc * taps;
  }
  g.strides = spec.strideArray();
  for (int64_t d : spec.dilationArray()) g.dilates.push_back(d - 1);
  const auto padding = spec.paddingArray();
  if (spec.fourValuePadding) {
    g.padLeft = {padding[0], padding[2]};
    g.padRight = {padding[1], padding[3]};
  } else {
    g.padLeft = g.padRight = padding;
  }
  // A transposed output padding shows up only in dst's extent; oneDNN's
  // shape check divides by the stride, which absorbs it.
  return g;
}

memory::desc plainWeightDesc(const Geometry& g) {
  return memory::desc(g.weights, memory::data_type::f32, g.weightStrides);
}

memory makeMemory(const memory::desc& desc, const dnnl::engine& engine,
                  const std::vector<float>* values) {
  memory m(desc, engine);
  if (values) std::memcpy(m.get_data_handle(), values->data(), values->size() * sizeof(float));
  return m;
}

std::vector<float> readPlain(const memory& m) {
  const size_t n = m.get_desc().get_size() / sizeof(float);
  const float* data = static_cast<const float*>(m.get_data_handle());
  return std::vector<float>(data, data + n);
}

std::string implementations(const dnnl::primitive_desc_base& data,
                            const dnnl::primitive_desc_base& weights) {
  return std::string(data.impl_info_str()) + " / " + weights.impl_info_str();
}

// The backward pair of primitive descriptors for one set of memory
// descriptors; Fwd/BwdData/BwdWeights are the convolution or deconvolution
// primitive types.
template <class Fwd, class BwdData, class BwdWeights>
struct BackwardPair {
  typename BwdData::primitive_desc data;
  typename BwdWeights::primitive_desc weights;

  BackwardPair(dnnl::algorithm algorithm, const Geometry& g, const memory::desc& src,
               const memory::desc& weightsDesc, const memory::desc& dst,
               const dnnl::engine& engine) {
    const memory::desc bias = plainDesc(g.bias);
    typename Fwd::desc forward(dnnl::prop_kind::forward_training, algorithm, src, weightsDesc, bias,
                               dst, g.strides, g.dilates, g.padLeft, g.padRight);
    typename Fwd::primitive_desc hint(forward, engine);
    data = typename BwdData::primitive_desc(
        typename BwdData::desc(algorithm, src, weightsDesc, dst, g.strides, g.dilates, g.padLeft,
                               g.padRight),
        engine, hint);
    weights = typename BwdWeights::primitive_desc(
        typename BwdWeights::desc(algorithm, src, weightsDesc, bias, dst, g.strides, g.dilates,
                                  g.padLeft, g.padRight),
        engine, hint);
  }
};

// One reorder to run before or after the primitives when timing with them.
struct Reorder {
  dnnl::reorder primitive;
  memory from, to;
  void run(dnnl::stream& stream) { primitive.execute(stream, from, to); }
};

// Returns `plain` itself when the primitive wants the plain layout, else a
// new memory in `wanted` layout plus the reorder into it.
memory adoptInput(const memory& plain, const memory::desc& wanted, const dnnl::engine& engine,
                  std::vector<Reorder>* reorders) {
  if (plain.get_desc() == wanted) return plain;
  memory target(wanted, engine);
  reorders->push_back({dnnl::reorder(plain, target), plain, target});
  return target;
}

template <class Fwd, class BwdData, class BwdWeights>
OneDnnResult runPrimitives(const HostProblem& problem, const TimingOptions& options,
                           dnnl::algorithm algorithm) {
  using Pair = BackwardPair<Fwd, BwdData, BwdWeights>;
  OneDnnResult result;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const Geometry g = geometryOf(problem.spec);
  const memory::desc srcPlain = plainDesc(g.src), dstPlain = plainDesc(g.dst),
                     weightPlain = plainWeightDesc(g), biasPlain = plainDesc(g.bias);

  // Plain memory, shared by both modes as their source / destination.
  memory gradOutput = makeMemory(dstPlain, engine, &problem.gradOutput);
  memory input = makeMemory(srcPlain, engine, &problem.input);
  memory weight = makeMemory(weightPlain, engine, &problem.weight);
  memory gradInput = makeMemory(srcPlain, engine, nullptr);
  memory gradWeight = makeMemory(weightPlain, engine, nullptr);
  memory gradBias = makeMemory(biasPlain, engine, nullptr);

  auto measure = [&](Measurement* m, auto&& body) {
    try {
      m->seconds = bestSeconds(options, [&] {
        body();
        stream.wait();
        return true;
      });
      m->gradients = {readPlain(gradInput), readPlain(gradWeight), readPlain(gradBias)};
      m->ok = true;
    } catch (const dnnl::error& e) {
      m->error = std::string("oneDNN: ") + e.what();
    }
  };

  try {
    Pair pair(algorithm, g, srcPlain, weightPlain, dstPlain, engine);
    result.plainImplementations = implementations(pair.data, pair.weights);
    BwdData data(pair.data);
    BwdWeights weights(pair.weights);
    const Args dataArgs = {{DNNL_ARG_DIFF_DST, gradOutput},
                           {DNNL_ARG_WEIGHTS, weight},
                           {DNNL_ARG_DIFF_SRC, gradInput}};
    const Args weightArgs = {{DNNL_ARG_DIFF_DST, gradOutput},
                             {DNNL_ARG_SRC, input},
                             {DNNL_ARG_DIFF_WEIGHTS, gradWeight},
                             {DNNL_ARG_DIFF_BIAS, gradBias}};
    measure(&result.plain, [&] {
      data.execute(stream, dataArgs);
      weights.execute(stream, weightArgs);
    });
  } catch (const dnnl::error& e) {
    result.plain.error = std::string("oneDNN: ") + e.what();
  }

  try {
    Pair pair(algorithm, g, anyDesc(g.src), anyDesc(g.weights), anyDesc(g.dst), engine);
    result.preferredImplementations = implementations(pair.data, pair.weights);
    BwdData data(pair.data);
    BwdWeights weights(pair.weights);
    std::vector<Reorder> in, out;
    const memory dataGradOutput = adoptInput(gradOutput, pair.data.diff_dst_desc(), engine, &in);
    const memory dataWeight = adoptInput(weight, pair.data.weights_desc(), engine, &in);
    const memory weightsGradOutput =
        pair.weights.diff_dst_desc() == dataGradOutput.get_desc()
            ? dataGradOutput
            : adoptInput(gradOutput, pair.weights.diff_dst_desc(), engine, &in);
    const memory weightsInput = adoptInput(input, pair.weights.src_desc(), engine, &in);
    // Outputs: the same helper with the roles swapped gives the reorders back.
    std::vector<Reorder> back;
    const memory preferredGradInput =
        adoptInput(gradInput, pair.data.diff_src_desc(), engine, &back);
    const memory preferredGradWeight =
        adoptInput(gradWeight, pair.weights.diff_weights_desc(), engine, &back);
    for (const Reorder& r : back) out.push_back({dnnl::reorder(r.to, r.from), r.to, r.from});
    const Args dataArgs = {{DNNL_ARG_DIFF_DST, dataGradOutput},
                           {DNNL_ARG_WEIGHTS, dataWeight},
                           {DNNL_ARG_DIFF_SRC, preferredGradInput}};
    const Args weightArgs = {{DNNL_ARG_DIFF_DST, weightsGradOutput},
                             {DNNL_ARG_SRC, weightsInput},
                             {DNNL_ARG_DIFF_WEIGHTS, preferredGradWeight},
                             {DNNL_ARG_DIFF_BIAS, gradBias}};
    for (Reorder& r : in) r.run(stream);
    auto primitivesOnly = [&] {
      data.execute(stream, dataArgs);
      weights.execute(stream, weightArgs);
    };
    Measurement withReorders;
    measure(&withReorders, [&] {
      for (Reorder& r : in) r.run(stream);
      primitivesOnly();
      for (Reorder& r : out) r.run(stream);
    });
    result.preferredWithReordersSeconds = withReorders.ok ? withReorders.seconds : -1;
    // The gradients are read back in plain layout by the run above.
    measure(&result.preferred, primitivesOnly);
    result.preferred.gradients = withReorders.gradients;
  } catch (const dnnl::error& e) {
    result.preferred.error = std::string("oneDNN: ") + e.what();
  }
  return result;
}

}  // namespace

OneDnnResult runOneDnn(const HostProblem& problem, const TimingOptions& options) {
  if (problem.spec.transposed)
    return runPrimitives<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                         dnnl::deconvolution_backward_weights>(
        problem, options, dnnl::algorithm::deconvolution_direct);
  return runPrimitives<dnnl::convolution_forward, dnnl::convolution_backward_data,
                       dnnl::convolution_backward_weights>(problem, options,
                                                           dnnl::algorithm::convolution_direct);
}

}  // namespace peers
