"""Python-side arguments turned into what the C API takes, with TypeErrors for wrong kinds."""

import numbers

from . import _abi


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def int_value(name, v):
    if not _is_int(v):
        raise TypeError(f"{name}: expected an int, got {type(v).__name__}")
    return int(v)


def int_list(name, v, dims):
    """An int is repeated once per spatial dim; a sequence is taken as it is
    (its length is the C side's to check, so that the status and message are the library's)."""
    if _is_int(v):
        return [int(v)] * dims
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"{name}: expected an int or a sequence of ints, got {type(v).__name__}")
    values = list(v)
    for i, x in enumerate(values):
        if not _is_int(x):
            raise TypeError(f"{name}[{i}]: expected an int, got {type(x).__name__}")
    return [int(x) for x in values]


def bool_triple(name, v):
    values = list(v) if hasattr(v, "__iter__") else None
    if values is None or len(values) != 3:
        raise TypeError(f"{name}: expected a sequence of three bools, got {v!r}")
    for i, x in enumerate(values):
        if not isinstance(x, (bool, numbers.Integral)):
            raise TypeError(f"{name}[{i}]: expected a bool, got {type(x).__name__}")
    return [bool(x) for x in values]


def cube_math_type(v):
    """0-3 or one of the names KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32.

    Out-of-range ints are passed on, so that the library reports them (161002).
    """
    if isinstance(v, str):
        try:
            return _abi.CUBE_MATH_TYPES[v.upper()]
        except KeyError:
            raise ValueError(f"cube_math_type: unknown name {v!r}; expected one of "
                             f"{', '.join(_abi.CUBE_MATH_TYPES)} or 0-3") from None
    if not _is_int(v):
        raise TypeError(f"cube_math_type: expected an int or a name, got {type(v).__name__}")
    if not -128 <= int(v) <= 127:
        raise ValueError(f"cube_math_type: {v} does not fit the C API's int8_t")
    return int(v)


def spatial_dims(rank):
    """Spatial dims of a convolution whose input has this rank (at least 1, so that
    ints still expand for a wrongly-ranked input whose rank the library then rejects)."""
    return max(1, rank - 2)


def out_triple(out):
    if out is None:
        return [None, None, None]
    if isinstance(out, (str, bytes)) or not hasattr(out, "__iter__"):
        raise TypeError(f"out: expected a sequence of three arrays (or None), got "
                        f"{type(out).__name__}")
    values = list(out)
    if len(values) != 3:
        raise TypeError(f"out: expected three entries (grad_input, grad_weight, grad_bias), got "
                        f"{len(values)}")
    return values
