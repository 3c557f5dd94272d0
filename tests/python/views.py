"""Arrays of the suites: numpy or torch, dense or genuinely strided views of a larger buffer.

A layout is a way of cutting a view of `shape` out of a buffer; the same cut applied
to a boolean buffer marks which buffer elements the view covers, so a test can check
that nothing outside an output view was written.
"""

import numpy as np
import torch

TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _permute(a, axes):
    return a.transpose(axes) if isinstance(a, np.ndarray) else a.permute(*axes)


def _flip_last(a):
    return a[..., ::-1]


class Layout:
    """How a view of `shape` sits inside its buffer."""

    def __init__(self, name, shape):
        self.name, self.shape, r = name, tuple(shape), len(shape)
        if name == "dense":
            self.base, self.cut = self.shape, lambda b: b
        elif name == "sliced":  # every other element of the last dim, offset 1
            self.base = self.shape[:-1] + (2 * self.shape[-1] + 1,)
            self.cut = lambda b: b[..., 1::2]
        elif name == "transposed":  # all dims reversed in memory
            self.base = self.shape[::-1]
            axes = tuple(range(r))[::-1]
            self.cut = lambda b: _permute(b, axes)
        elif name == "channels_last":  # [N, *spatial, C] in memory
            self.base = (self.shape[0],) + self.shape[2:] + (self.shape[1],)
            axes = (0, r - 1) + tuple(range(1, r - 1))
            self.cut = lambda b: _permute(b, axes)
        elif name == "flipped":  # negative last stride (numpy only)
            self.base, self.cut = self.shape, _flip_last
        else:
            raise ValueError(name)


def layouts_for(rank, kind):
    names = ["dense", "sliced", "transposed"]
    if rank >= 3:
        names.append("channels_last")
    if kind == "numpy":
        names.append("flipped")
    return names


def make(kind, dtype, layout, values=None, fill=np.nan):
    """(view, buffer): a view laid out as `layout` over a buffer filled with `fill`,
    holding `values` (a float64 torch tensor) if given."""
    if kind == "numpy":
        buf = np.full(layout.base, fill, dtype=dtype)
    else:
        buf = torch.full(layout.base, fill, dtype=TORCH_DTYPE[dtype])
    view = layout.cut(buf)
    assert tuple(view.shape) == layout.shape
    if values is not None:
        if kind == "numpy":
            view[...] = values.numpy().astype(dtype)
        else:
            view.copy_(values.to(TORCH_DTYPE[dtype]))
    return view, buf


def outside_view_untouched(kind, layout, buf, fill=np.nan):
    """True when every buffer element outside the view still holds `fill` (NaN)."""
    covered = np.zeros(layout.base, dtype=bool)
    layout.cut(covered)[...] = True
    data = buf if kind == "numpy" else buf.to(torch.float32).numpy()
    data = np.asarray(data, dtype=np.float64)
    outside = data[~covered]
    return bool(np.all(np.isnan(outside))) if np.isnan(fill) else bool(np.all(outside == fill))


def to_float64(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(np.asarray(a, dtype=np.float64))
    return a.detach().to(torch.float64)
