#include "onednn_runner.h"

#include <cstring>
#include <dnnl.hpp>
#include <memory>
#include <unordered_map>

#include "host_dtype.h"

namespace peers {
namespace {

using dnnl::memory;
using dims = memory::dims;
using Args = std::unordered_map<int, memory>;

memory::data_type dataType(DnnlType t) {
  return t == DnnlType::Bf16 ? memory::data_type::bf16 : memory::data_type::f32;
}

aclDataType hostType(memory::data_type t) {
  return t == memory::data_type::bf16 ? ACL_BF16 : ACL_FLOAT;
}

dims contiguousStrides(const dims& shape) {
  dims strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

memory::desc plainDesc(const dims& shape, memory::data_type t) {
  return memory::desc(shape, t, contiguousStrides(shape));
}

memory::desc anyDesc(const dims& shape, memory::data_type t) {
  return memory::desc(shape, t, memory::format_tag::any);
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

memory::desc plainWeightDesc(const Geometry& g, memory::data_type t) {
  return memory::desc(g.weights, t, g.weightStrides);
}

// Host values are rounded to the memory's data type the way our tensors are
// (host_dtype.h), so every provider starts from the same numbers.
memory makeMemory(const memory::desc& desc, const dnnl::engine& engine,
                  const std::vector<float>* values) {
  memory m(desc, engine);
  if (values) hostdtype::encode(*values, hostType(desc.data_type()), m.get_data_handle());
  return m;
}

std::vector<float> readPlain(const memory& m) {
  const aclDataType t = hostType(m.get_desc().data_type());
  return hostdtype::decode(m.get_data_handle(), m.get_desc().get_size() / hostdtype::bytes(t), t);
}

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

// The reorders back from the preferred outputs made by adoptInput.
std::vector<Reorder> reversed(const std::vector<Reorder>& into) {
  std::vector<Reorder> back;
  for (const Reorder& r : into) back.push_back({dnnl::reorder(r.to, r.from), r.to, r.from});
  return back;
}

// What both directions share: the engine, the stream and timing one variant.
struct Session {
  Session(const TimingOptions& t, const OneDnnOptions& o)
      : engine(dnnl::engine::kind::cpu, 0), stream(engine), timing(t), options(o) {}

  dnnl::engine engine;
  dnnl::stream stream;
  const TimingOptions& timing;
  const OneDnnOptions& options;

  // Times `body` (then waits for the stream) unless `implementations` is a
  // reference implementation that was not asked to be timed; `outputs` reads
  // the results back in plain layout afterwards.
  template <class Body, class Read>
  void measure(Measurement* m, const std::string& implementations, Body&& body, Read&& outputs) {
    if (!options.timeReference && isReferenceImplementation(implementations)) {
      m->error = "oneDNN: only a reference implementation (" + implementations + "), not timed";
      return;
    }
    try {
      m->seconds = bestSeconds(timing, [&] {
        body();
        stream.wait();
        return true;
      });
      m->outputs = outputs();
      m->ok = true;
    } catch (const dnnl::error& e) {
      m->error = std::string("oneDNN: ") + e.what();
    }
  }
};

// The backward pair of primitive descriptors for one set of memory
// descriptors; Fwd/BwdData/BwdWeights are the convolution or deconvolution
// primitive types.
template <class Fwd, class BwdData, class BwdWeights>
struct BackwardPair {
  typename BwdData::primitive_desc data;
  typename BwdWeights::primitive_desc weights;

  BackwardPair(dnnl::algorithm algorithm, const Geometry& g, const memory::desc& src,
               const memory::desc& weightsDesc, const memory::desc& bias, const memory::desc& dst,
               const dnnl::engine& engine) {
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

  std::string implementations() const {
    return std::string(data.impl_info_str()) + " / " + weights.impl_info_str();
  }
};

template <class Fwd, class BwdData, class BwdWeights>
OneDnnResult runBackward(const HostProblem& problem, const TimingOptions& timing,
                         const OneDnnOptions& options, dnnl::algorithm algorithm) {
  using Pair = BackwardPair<Fwd, BwdData, BwdWeights>;
  OneDnnResult result;
  Session session(timing, options);
  const dnnl::engine& engine = session.engine;
  dnnl::stream& stream = session.stream;
  const memory::data_type t = dataType(options.type);
  const Geometry g = geometryOf(problem.spec);
  const memory::desc srcPlain = plainDesc(g.src, t), dstPlain = plainDesc(g.dst, t),
                     weightPlain = plainWeightDesc(g, t), biasPlain = plainDesc(g.bias, t);

  // Plain memory, shared by both modes as their source / destination.
  memory gradOutput = makeMemory(dstPlain, engine, &problem.gradOutput);
  memory input = makeMemory(srcPlain, engine, &problem.input);
  memory weight = makeMemory(weightPlain, engine, &problem.weight);
  memory gradInput = makeMemory(srcPlain, engine, nullptr);
  memory gradWeight = makeMemory(weightPlain, engine, nullptr);
  memory gradBias = makeMemory(biasPlain, engine, nullptr);
  auto outputs = [&] {
    return Outputs{readPlain(gradInput), readPlain(gradWeight), readPlain(gradBias)};
  };

  try {
    Pair pair(algorithm, g, srcPlain, weightPlain, biasPlain, dstPlain, engine);
    result.plainImplementations = pair.implementations();
    BwdData data(pair.data);
    BwdWeights weights(pair.weights);
    const Args dataArgs = {{DNNL_ARG_DIFF_DST, gradOutput},
                           {DNNL_ARG_WEIGHTS, weight},
                           {DNNL_ARG_DIFF_SRC, gradInput}};
    const Args weightArgs = {{DNNL_ARG_DIFF_DST, gradOutput},
                             {DNNL_ARG_SRC, input},
                             {DNNL_ARG_DIFF_WEIGHTS, gradWeight},
                             {DNNL_ARG_DIFF_BIAS, gradBias}};
    session.measure(
        &result.plain, result.plainImplementations,
        [&] {
          data.execute(stream, dataArgs);
          weights.execute(stream, weightArgs);
        },
        outputs);
  } catch (const dnnl::error& e) {
    result.plain.error = std::string("oneDNN: ") + e.what();
  }

  try {
    Pair pair(algorithm, g, anyDesc(g.src, t), anyDesc(g.weights, t), biasPlain, anyDesc(g.dst, t),
              engine);
    result.preferredImplementations = pair.implementations();
    BwdData data(pair.data);
    BwdWeights weights(pair.weights);
    std::vector<Reorder> in, back;
    const memory dataGradOutput = adoptInput(gradOutput, pair.data.diff_dst_desc(), engine, &in);
    const memory dataWeight = adoptInput(weight, pair.data.weights_desc(), engine, &in);
    const memory weightsGradOutput =
        pair.weights.diff_dst_desc() == dataGradOutput.get_desc()
            ? dataGradOutput
            : adoptInput(gradOutput, pair.weights.diff_dst_desc(), engine, &in);
    const memory weightsInput = adoptInput(input, pair.weights.src_desc(), engine, &in);
    // Outputs: the same helper with the roles swapped gives the reorders back.
    const memory preferredGradInput =
        adoptInput(gradInput, pair.data.diff_src_desc(), engine, &back);
    const memory preferredGradWeight =
        adoptInput(gradWeight, pair.weights.diff_weights_desc(), engine, &back);
    std::vector<Reorder> out = reversed(back);
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
    session.measure(
        &withReorders, result.preferredImplementations,
        [&] {
          for (Reorder& r : in) r.run(stream);
          primitivesOnly();
          for (Reorder& r : out) r.run(stream);
        },
        outputs);
    result.preferredWithReordersSeconds = withReorders.ok ? withReorders.seconds : -1;
    // The results were read back in plain layout by the run above.
    session.measure(&result.preferred, result.preferredImplementations, primitivesOnly,
                    [&] { return withReorders.outputs; });
    if (!withReorders.ok) result.preferred.error = withReorders.error;
  } catch (const dnnl::error& e) {
    result.preferred.error = std::string("oneDNN: ") + e.what();
  }
  return result;
}

template <class Fwd>
OneDnnResult runForward(const HostProblem& problem, const TimingOptions& timing,
                        const OneDnnOptions& options, dnnl::algorithm algorithm) {
  OneDnnResult result;
  Session session(timing, options);
  const dnnl::engine& engine = session.engine;
  dnnl::stream& stream = session.stream;
  const memory::data_type t = dataType(options.type);
  const Geometry g = geometryOf(problem.spec);
  const memory::desc srcPlain = plainDesc(g.src, t), dstPlain = plainDesc(g.dst, t),
                     weightPlain = plainWeightDesc(g, t), biasPlain = plainDesc(g.bias, t);
  const dnnl::prop_kind kind = options.forwardInference ? dnnl::prop_kind::forward_inference
                                                        : dnnl::prop_kind::forward_training;
  auto primitiveDesc = [&](const memory::desc& src, const memory::desc& weights,
                           const memory::desc& dst) {
    return typename Fwd::primitive_desc(
        typename Fwd::desc(kind, algorithm, src, weights, biasPlain, dst, g.strides, g.dilates,
                           g.padLeft, g.padRight),
        engine);
  };

  memory input = makeMemory(srcPlain, engine, &problem.input);
  memory weight = makeMemory(weightPlain, engine, &problem.weight);
  memory bias = makeMemory(biasPlain, engine, &problem.bias);
  memory output = makeMemory(dstPlain, engine, nullptr);
  auto outputs = [&] { return Outputs{readPlain(output)}; };

  try {
    const auto pd = primitiveDesc(srcPlain, weightPlain, dstPlain);
    result.plainImplementations = pd.impl_info_str();
    Fwd forward(pd);
    const Args args = {{DNNL_ARG_SRC, input},
                       {DNNL_ARG_WEIGHTS, weight},
                       {DNNL_ARG_BIAS, bias},
                       {DNNL_ARG_DST, output}};
    session.measure(
        &result.plain, result.plainImplementations, [&] { forward.execute(stream, args); },
        outputs);
  } catch (const dnnl::error& e) {
    result.plain.error = std::string("oneDNN: ") + e.what();
  }

  try {
    const auto pd = primitiveDesc(anyDesc(g.src, t), anyDesc(g.weights, t), anyDesc(g.dst, t));
    result.preferredImplementations = pd.impl_info_str();
    Fwd forward(pd);
    std::vector<Reorder> in, back;
    const memory preferredInput = adoptInput(input, pd.src_desc(), engine, &in);
    const memory preferredWeight = adoptInput(weight, pd.weights_desc(), engine, &in);
    const memory preferredOutput = adoptInput(output, pd.dst_desc(), engine, &back);
    std::vector<Reorder> out = reversed(back);
    const Args args = {{DNNL_ARG_SRC, preferredInput},
                       {DNNL_ARG_WEIGHTS, preferredWeight},
                       {DNNL_ARG_BIAS, bias},
                       {DNNL_ARG_DST, preferredOutput}};
    for (Reorder& r : in) r.run(stream);
    auto primitiveOnly = [&] { forward.execute(stream, args); };
    Measurement withReorders;
    session.measure(
        &withReorders, result.preferredImplementations,
        [&] {
          for (Reorder& r : in) r.run(stream);
          primitiveOnly();
          for (Reorder& r : out) r.run(stream);
        },
        outputs);
    result.preferredWithReordersSeconds = withReorders.ok ? withReorders.seconds : -1;
    session.measure(&result.preferred, result.preferredImplementations, primitiveOnly,
                    [&] { return withReorders.outputs; });
    if (!withReorders.ok) result.preferred.error = withReorders.error;
  } catch (const dnnl::error& e) {
    result.preferred.error = std::string("oneDNN: ") + e.what();
  }
  return result;
}

}  // namespace

bool isReferenceImplementation(const std::string& implementations) {
  return implementations.find("ref") != std::string::npos;
}

OneDnnResult runOneDnnBackward(const HostProblem& problem, const TimingOptions& timing,
                               const OneDnnOptions& options) {
  if (problem.spec.transposed)
    return runBackward<dnnl::deconvolution_forward, dnnl::deconvolution_backward_data,
                       dnnl::deconvolution_backward_weights>(problem, timing, options,
                                                             dnnl::algorithm::deconvolution_direct);
  return runBackward<dnnl::convolution_forward, dnnl::convolution_backward_data,
                     dnnl::convolution_backward_weights>(problem, timing, options,
                                                         dnnl::algorithm::convolution_direct);
}

OneDnnResult runOneDnnForward(const HostProblem& problem, const TimingOptions& timing,
                              const OneDnnOptions& options) {
  if (problem.spec.transposed)
    return runForward<dnnl::deconvolution_forward>(problem, timing, options,
                                                   dnnl::algorithm::deconvolution_direct);
  return runForward<dnnl::convolution_forward>(problem, timing, options,
                                               dnnl::algorithm::convolution_direct);
}

}  // namespace peers
