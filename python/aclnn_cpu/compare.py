"""Golden comparison: how far an actual result (an NPU dump, our output) is from a golden.

An element passes when |actual - golden| <= atol + rtol * |golden| (NaN matches NaN,
an infinity matches the same infinity). The default tolerances depend on the dtype
the result was produced in; they follow the usual practice of NPU operator
golden checks (relative and absolute error both within 1e-4 for float32, 1e-3
for float16, 4e-3 for bfloat16), plus "hf32" for float32 results whose operands
were rounded to HF32 (cube_math_type 1 or 3):

    dtype       rtol     atol
    float32     1e-4     1e-4
    hf32        2e-3     2e-3
    float16     1e-3     1e-3
    bfloat16    4e-3     4e-3
    float64     1e-10    1e-10

Pass rtol/atol to override them.
"""

import math

import numpy as np

DEFAULT_TOLERANCES = {
    "float32": (1e-4, 1e-4),
    "hf32": (2e-3, 2e-3),
    "float16": (1e-3, 1e-3),
    "bfloat16": (4e-3, 4e-3),
    "float64": (1e-10, 1e-10),
}


def _dtype_name(dtype):
    if dtype is None:
        return None
    name = str(dtype)
    name = name[len("torch."):] if name.startswith("torch.") else name
    name = {"half": "float16", "float": "float32", "double": "float64", "fp32": "float32",
            "fp16": "float16", "bf16": "bfloat16"}.get(name, name)
    if name not in DEFAULT_TOLERANCES:
        raise ValueError(f"dtype: no default tolerance for {dtype!r}; expected one of "
                         f"{', '.join(DEFAULT_TOLERANCES)}")
    return name


def _as_float64(name, a):
    """float64 numpy copy of a numpy array, torch tensor or nested sequence."""
    if type(a).__module__.startswith("torch"):
        return a.detach().to("cpu").double().numpy(), _dtype_name(a.dtype)
    arr = np.asarray(a)
    if arr.dtype.kind not in "fiu" and arr.dtype.name != "bfloat16":
        raise TypeError(f"{name}: expected numbers, got dtype {arr.dtype}")
    dtype = arr.dtype.name if arr.dtype.name in DEFAULT_TOLERANCES else None
    return arr.astype(np.float64), dtype


class CompareResult:
    """The outcome of compare(): error levels, failures and where the worst one is.

    max_abs_error, max_rel_error (relative to |golden|, over elements whose golden is
    non-zero; dominated by near-zero goldens where a long sum cancels), norm_rel_error
    (||actual - golden|| / ||golden||, over finite elements: the error level of the
    whole result), mismatches (elements outside the tolerance), mismatch_fraction,
    worst_index (the element that exceeds its tolerance most, or has the largest error
    when all pass; None when empty), worst_actual, worst_golden, rtol, atol, dtype,
    size, passed.
    """

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"CompareResult({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    def __str__(self):
        lines = [
            f"{'PASS' if self.passed else 'FAIL'}: {self.mismatches} of {self.size} elements "
            f"outside |a-g| <= {self.atol:g} + {self.rtol:g}*|g| "
            f"({100 * self.mismatch_fraction:.4g}%), tolerance of {self.dtype}",
            f"  max abs error {self.max_abs_error:.6g}, max rel error {self.max_rel_error:.6g}, "
            f"norm rel error {self.norm_rel_error:.6g}",
        ]
        if self.worst_index is not None:
            lines.append(f"  worst at {self.worst_index}: actual {self.worst_actual!r}, "
                         f"golden {self.worst_golden!r}")
        return "\n".join(lines)


def compare(actual, golden, dtype=None, rtol=None, atol=None):
    """Compares `actual` with `golden` (numpy arrays or torch tensors of the same shape).

    dtype selects the default tolerances (see the module docstring): a dtype or a name
    ("float32", "hf32", "float16", "bfloat16", "float64"); by default actual's dtype.
    Returns a CompareResult; `bool(result)` is result.passed.
    """
    a, a_dtype = _as_float64("actual", actual)
    g, _ = _as_float64("golden", golden)
    if a.shape != g.shape:
        raise ValueError(f"shapes differ: actual {a.shape}, golden {g.shape}")
    name = _dtype_name(dtype) or a_dtype or "float32"
    d_rtol, d_atol = DEFAULT_TOLERANCES[name]
    rtol = d_rtol if rtol is None else float(rtol)
    atol = d_atol if atol is None else float(atol)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - g)
        same_special = (np.isnan(a) & np.isnan(g)) | (np.isinf(a) & (a == g))
        err = np.where(same_special, 0.0, err)
        bound = atol + rtol * np.abs(g)
        # A NaN or an infinity on either side must be matched exactly.
        special = ~np.isfinite(a) | ~np.isfinite(g)
        bad = np.where(special, ~same_special, ~(err <= bound))
        nonzero = (g != 0) & np.isfinite(g)
        rel = np.where(nonzero, err / np.where(nonzero, np.abs(g), 1.0), 0.0)
    size = int(a.size)
    mismatches = int(bad.sum())
    worst_index = worst_actual = worst_golden = None
    if size:
        if mismatches:  # the element furthest beyond its bound (NaN counts as infinitely far)
            with np.errstate(invalid="ignore"):
                excess = np.nan_to_num(err - bound, nan=np.inf)
            score = np.where(bad, excess, -np.inf)
        else:
            score = err
        flat = int(np.argmax(score))
        worst_index = tuple(int(i) for i in np.unravel_index(flat, a.shape))
        worst_actual, worst_golden = float(a.flat[flat]), float(g.flat[flat])

    def finite_max(v):
        v = v[np.isfinite(v)] if v.size else v
        return float(v.max()) if v.size else (math.nan if mismatches else 0.0)

    finite = np.isfinite(a) & np.isfinite(g)
    g_norm = float(np.linalg.norm(g[finite]))
    d_norm = float(np.linalg.norm(a[finite] - g[finite]))
    norm_rel = d_norm / g_norm if g_norm else (0.0 if d_norm == 0 else math.inf)
    return CompareResult(
        max_abs_error=finite_max(err), max_rel_error=finite_max(rel), norm_rel_error=norm_rel,
        mismatches=mismatches,
        mismatch_fraction=mismatches / size if size else 0.0, worst_index=worst_index,
        worst_actual=worst_actual, worst_golden=worst_golden, rtol=rtol, atol=atol,
        dtype=name, size=size, passed=mismatches == 0)
