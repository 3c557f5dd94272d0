"""Command line: python3 -m aclnn_cpu compare ACTUAL.npy GOLDEN.npy [--dtype D] [--rtol R]
[--atol A]

Prints the comparison (see aclnn_cpu.compare) and exits 0 when it passes, 1 when it
fails, 2 on a usage or file error.
"""

import argparse
import sys

import numpy as np

from .compare import DEFAULT_TOLERANCES, compare


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m aclnn_cpu",
                                     description="aclnn_cpu command-line tools")
    sub = parser.add_subparsers(dest="command", required=True)
    cmp_parser = sub.add_parser("compare", help="compare an actual result with a golden (.npy)")
    cmp_parser.add_argument("actual")
    cmp_parser.add_argument("golden")
    cmp_parser.add_argument("--dtype", choices=sorted(DEFAULT_TOLERANCES),
                            help="tolerance set (default: the actual file's dtype)")
    cmp_parser.add_argument("--rtol", type=float)
    cmp_parser.add_argument("--atol", type=float)
    args = parser.parse_args(argv)
    try:
        actual, golden = np.load(args.actual), np.load(args.golden)
        result = compare(actual, golden, dtype=args.dtype, rtol=args.rtol, atol=args.atol)
    except (OSError, ValueError, TypeError) as exc:
        print(f"aclnn_cpu compare: {exc}", file=sys.stderr)
        return 2
    print(result)
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
