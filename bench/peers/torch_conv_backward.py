#!/usr/bin/python3
"""Times PyTorch's CPU convolutions (fp32 or bf16): the backward, split and fused, or the forward.

Reads one JSON object per line (stdin or the file given), as printed by
`conv_backward_vs_onednn --print-problems`, and prints per problem
    <index> <split ms> <fused ms> <descriptor> <PyTorch backend>
for a backward problem ("direction" "backward", the default), where split is one
torch.ops.aten.convolution_backward call with output_mask [True, False, False]
(dX) followed by one with [False, True, True] (dW, db), and fused one call with
[True, True, True]; and
    <index> <forward ms> nan <descriptor> <PyTorch backend>
for a forward problem ("direction" "forward"): torch.nn.functional.conv{1,2,3}d
or conv_transpose{1,2,3}d with bias. "dtype" "bf16" makes every tensor bfloat16
(default "fp32"). Each time is the best of the timed runs ("nan" when PyTorch
cannot run the problem, e.g. asymmetric padding, or the mode was not asked for).
Run with the Debian interpreter, /usr/bin/python3, which has python3-torch.
"""

import argparse
import json
import sys
import time

import torch
import torch.nn.functional as F

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def best_ms(call, warmup, repeat, budget, min_repeat=2):
    """Best of up to `repeat` timed runs after up to `warmup` runs; slow calls
    stop early, exactly as the C++ side does (bench_common.h)."""
    for _ in range(warmup):
        start = time.perf_counter()
        call()
        if time.perf_counter() - start > budget:
            break
    best, total = float("inf"), 0.0
    for i in range(max(1, repeat)):
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        best, total = min(best, elapsed), total + elapsed
        if i + 1 >= min_repeat and total > budget:
            break
    return best * 1e3


def backend_name(p, grad_input_probe, weight):
    try:
        return str(torch._C._select_conv_backend(
            grad_input_probe, weight, None, p["stride"], p["padding"], p["dilation"],
            p["transposed"], p["output_padding"], p["groups"])).split(".")[-1]
    except Exception:  # a private helper: only commentary
        return "?"


def forward_call(p, x, weight, bias):
    """The functional forward of the problem's rank and orientation."""
    dims = len(p["input"]) - 2
    if p["transposed"]:
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        return lambda: conv(x, weight, bias, p["stride"], p["padding"], p["output_padding"],
                            p["groups"], p["dilation"])
    conv = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    return lambda: conv(x, weight, bias, p["stride"], p["padding"], p["dilation"], p["groups"])


def time_problem(p, args):
    nan = float("nan")
    if p["padding"] is None:
        return nan, nan, "asymmetric padding unsupported"
    dtype = DTYPES[p.get("dtype", "fp32")]
    gen = torch.Generator().manual_seed(1)
    rand = lambda shape: (torch.rand(shape, generator=gen) * 2 - 1).to(dtype)
    grad_output, x, weight = rand(p["grad_output"]), rand(p["input"]), rand(p["weight"])
    bias_sizes = [p["grad_output"][1]]
    timing = (args.warmup, args.repeat, args.budget)

    if p.get("direction", "backward") == "forward":
        call = forward_call(p, x, weight, rand(bias_sizes))
        with torch.no_grad():
            return best_ms(call, *timing), nan, backend_name(p, x, weight)

    def backward(mask):
        return torch.ops.aten.convolution_backward(
            grad_output, x, weight, bias_sizes, p["stride"], p["padding"], p["dilation"],
            p["transposed"], p["output_padding"], p["groups"], mask)

    def split():
        backward([True, False, False])
        backward([False, True, True])

    with torch.no_grad():
        split_ms = best_ms(split, *timing) if "split" in args.modes else nan
        fused_ms = best_ms(lambda: backward([True, True, True]), *timing) \
            if "fused" in args.modes else nan
        return split_ms, fused_ms, backend_name(p, x, weight)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="?", help="JSON-lines file (default: stdin)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--budget", type=float, default=1.5,
                        help="seconds after which a slow cell stops warming up / repeating")
    parser.add_argument("--modes", default="split,fused", help="split, fused or both")
    args = parser.parse_args()
    args.modes = args.modes.split(",")
    torch.set_num_threads(args.threads)
    source = open(args.problems) if args.problems else sys.stdin
    problems = [json.loads(line) for line in source if line.strip()]
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"mkldnn {torch.backends.mkldnn.is_available()}", flush=True)
    for p in problems:
        try:
            split_ms, fused_ms, backend = time_problem(p, args)
        except RuntimeError as e:
            split_ms = fused_ms = float("nan")
            backend = "error: " + str(e).splitlines()[0]
        print(f"{p['index']} {split_ms:.3f} {fused_ms:.3f} {p['descriptor']} {backend}", flush=True)


if __name__ == "__main__":
    main()
