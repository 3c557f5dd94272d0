#!/usr/bin/python3
"""Times torch.ops.aten.convolution_backward (dX + dW + db, fp32, CPU).

Reads one JSON object per line (stdin or the file given), as printed by
`conv_backward_vs_onednn --print-problems`, and prints per problem
    <index> <best milliseconds> <descriptor> <PyTorch backend>
("nan" when PyTorch cannot run the problem, e.g. asymmetric padding).
Run with the Debian interpreter, /usr/bin/python3, which has python3-torch.
"""

import argparse
import json
import sys
import time

import torch


def best_ms(call, warmup, repeat):
    for _ in range(warmup):
        call()
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def backend_name(p, grad_input_probe, weight):
    try:
        return str(torch._C._select_conv_backend(
            grad_input_probe, weight, None, p["stride"], p["padding"], p["dilation"],
            p["transposed"], p["output_padding"], p["groups"])).split(".")[-1]
    except Exception:  # a private helper: only commentary
        return "?"


def time_problem(p, warmup, repeat):
    if p["padding"] is None:
        return float("nan"), "asymmetric padding unsupported"
    gen = torch.Generator().manual_seed(1)
    rand = lambda shape: torch.rand(shape, generator=gen) * 2 - 1
    grad_output, x, weight = rand(p["grad_output"]), rand(p["input"]), rand(p["weight"])
    bias_sizes = [p["grad_output"][1]]

    def call():
        return torch.ops.aten.convolution_backward(
            grad_output, x, weight, bias_sizes, p["stride"], p["padding"], p["dilation"],
            p["transposed"], p["output_padding"], p["groups"], [True, True, True])

    with torch.no_grad():
        return best_ms(call, warmup, repeat), backend_name(p, x, weight)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="?", help="JSON-lines file (default: stdin)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    source = open(args.problems) if args.problems else sys.stdin
    problems = [json.loads(line) for line in source if line.strip()]
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"mkldnn {torch.backends.mkldnn.is_available()}", flush=True)
    for p in problems:
        try:
            ms, backend = time_problem(p, args.warmup, args.repeat)
        except RuntimeError as e:
            ms, backend = float("nan"), "error: " + str(e).splitlines()[0]
        print(f"{p['index']} {ms:.3f} {p['descriptor']} {backend}", flush=True)


if __name__ == "__main__":
    main()
