"""Seeded random convolution-backward problems (1D/2D/3D, transposed, groups, all masks,
every dtype and cube_math_type, strided layouts, out= arrays of other dtypes)."""

import numpy as np

import views

DTYPES = ["float32", "float16", "bfloat16"]


def _spatial(rng, d, transposed, k, stride, dil, pads, out_pad, grow):
    in_sp, go_sp = [], []
    for i in range(d):
        span = dil[i] * (k[i] - 1)
        lo, hi = pads[i]
        if not transposed:
            least = max(1, span + 1 - lo - hi)
            x = int(rng.integers(least, least + (3 if d == 3 else 6) * grow))
            in_sp.append(x)
            go_sp.append((x + lo + hi - span - 1) // stride[i] + 1)
        else:
            x = int(rng.integers(1, (4 if d == 3 else 6) * grow))
            full = (x - 1) * stride[i] + span + out_pad[i] + 1
            while full - lo - hi < 1:
                lo, hi = max(0, lo - 1), max(0, hi - 1)
            pads[i] = (lo, hi)
            in_sp.append(x)
            go_sp.append(full - lo - hi)
    return in_sp, go_sp


def conv_problem(seed):
    """One problem; every random choice comes from `seed`."""
    rng = np.random.default_rng(seed)
    # Every 16th problem is larger (wide channels, long rows, reductions of a few
    # thousand terms), so that blocked and multi-threaded kernel paths run too.
    big = seed % 16 == 15
    cmul, grow = (6, 4) if big else (1, 1)
    d = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
    transposed = bool(rng.random() < 0.3)
    kind_of_groups = rng.random()
    if kind_of_groups < 0.2:  # depthwise-like
        groups, a, b = int(rng.integers(2, 5 * cmul)), int(rng.integers(1, 3)), 1
    elif kind_of_groups < 0.4:
        groups = int(rng.integers(2, 4))
        a, b = int(rng.integers(1, 4 * cmul)), int(rng.integers(1, 4 * cmul))
    else:
        groups, a, b = 1, int(rng.integers(1, 6 * cmul)), int(rng.integers(1, 6 * cmul))
    k = [int(rng.integers(1, 4 if d == 3 else 5)) for _ in range(d)]
    stride = [int(rng.integers(1, 4)) for _ in range(d)]
    dil = [int(rng.choice([1, 1, 2])) for _ in range(d)]
    span = [dil[i] * (k[i] - 1) for i in range(d)]
    four = d == 2 and rng.random() < 0.3
    if four:
        pads = [(int(rng.integers(0, s + 2)), int(rng.integers(0, s + 2))) for s in span]
    else:
        pads = [(p, p) for p in (int(rng.integers(0, s // 2 + 2)) for s in span)]
    out_pad = [int(rng.integers(0, stride[i])) if transposed else 0 for i in range(d)]
    in_sp, go_sp = _spatial(rng, d, transposed, k, stride, dil, pads, out_pad,
                            grow if d < 3 else 2 if big else 1)
    n = int(rng.integers(1, 4))
    w_shape = [groups * a, b] + k
    in_c, go_c = (w_shape[0], b * groups) if transposed else (b * groups, w_shape[0])
    # Torch carries every dtype; numpy has no bfloat16.
    kind = "torch" if rng.random() < 0.55 else "numpy"
    base = DTYPES[seed % 3] if kind == "torch" else DTYPES[seed % 2]
    choices = DTYPES if kind == "torch" else DTYPES[:2]
    dtypes = [base] * 3
    if rng.random() < 0.15:
        dtypes = [str(rng.choice(choices)) for _ in range(3)]
    use_out = bool(rng.random() < 0.4)
    out_dtypes = [dtypes[1], dtypes[2], dtypes[0]]  # the defaults: input, weight, grad_output
    if use_out:
        out_dtypes = [str(rng.choice(choices)) for _ in range(3)]
    ranks = [d + 2, d + 2, d + 2, d + 2, d + 2, 1]
    layouts = [str(rng.choice(views.layouts_for(r, kind))) if rng.random() < 0.45 else "dense"
               for r in ranks]
    padding = [v for pair in pads for v in pair] if four else [lo for lo, _ in pads]
    return dict(
        seed=seed, d=d, transposed=transposed, groups=groups, stride=stride, dilation=dil,
        pads=pads, padding=padding, output_padding=out_pad,
        go_shape=[n, go_c] + go_sp, in_shape=[n, in_c] + in_sp, w_shape=w_shape,
        kind=kind, dtypes=dtypes, out_dtypes=out_dtypes, use_out=use_out,
        mask=[bool(seed >> i & 1) for i in range(3)], cube=int(seed // 8 % 4), layouts=layouts,
        int_params=bool(rng.random() < 0.2) and not four)


def rejected(p):
    """Spec convolution-backward step 12: 3D grouped dW into fp32 from fp16/bf16 operands."""
    from oracle import promote
    return (p["d"] == 3 and p["mask"][1] and p["groups"] > 1 and p["out_dtypes"][1] == "float32"
            and (p["cube"] == 2 or promote(*p["dtypes"]) != "float32"))


def describe(p):
    keys = ["d", "transposed", "groups", "go_shape", "in_shape", "w_shape", "stride", "padding",
            "dilation", "output_padding", "kind", "dtypes", "out_dtypes", "use_out", "mask",
            "cube", "layouts"]
    return " ".join(f"{k}={p[k]}" for k in keys)
