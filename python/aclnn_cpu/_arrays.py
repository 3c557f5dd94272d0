"""numpy arrays and torch tensors seen as aclTensor views, and their descriptors.

An array becomes an aclTensor over its own memory, never a copy: the view's
shape and element strides as they are, the storage being the buffer the array
is a view of (a torch tensor's storage, a numpy array's root buffer) and the
offset the view's first element inside it. Every descriptor made for a call is
destroyed when the call ends, whatever happens (see Descriptors).
"""

import ctypes
import sys
import threading

import numpy as np

from . import _abi

# numpy dtype name -> (aclDataType, short name). bfloat16 is not a numpy type,
# but ml_dtypes provides one under this name when it is installed.
_NUMPY_DTYPES = {
    "float32": (_abi.ACL_FLOAT, "float32"),
    "float16": (_abi.ACL_FLOAT16, "float16"),
    "bfloat16": (_abi.ACL_BF16, "bfloat16"),
}
_TORCH_DTYPE_NAMES = {"torch.float32": "float32", "torch.float16": "float16",
                      "torch.bfloat16": "bfloat16"}
ACL_DTYPE_BY_NAME = {"float32": _abi.ACL_FLOAT, "float16": _abi.ACL_FLOAT16,
                     "bfloat16": _abi.ACL_BF16}


def _torch_module():
    """torch if the caller already imported it (a torch tensor implies that)."""
    return sys.modules.get("torch")


def is_torch_tensor(obj):
    torch = _torch_module()
    return torch is not None and isinstance(obj, torch.Tensor)


def _reach(shape, strides):
    """(lowest, highest) element offset a view can touch, relative to its first element."""
    low = high = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return 0, -1  # empty: touches nothing
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high


class Operand:
    """One array as the C API sees it.

    base: address of the storage's first element; offset: the view's first
    element inside the storage (elements); storage_numel: the storage's extent
    (elements); shape/strides: the view (strides in elements).
    """

    __slots__ = ("name", "array", "kind", "dtype", "acl_dtype", "itemsize", "shape", "strides",
                 "base", "offset", "storage_numel")

    def __init__(self, name, array, kind, dtype, itemsize, shape, strides, base, offset,
                 storage_numel):
        self.name, self.array, self.kind, self.dtype = name, array, kind, dtype
        self.acl_dtype = ACL_DTYPE_BY_NAME[dtype]
        self.itemsize, self.shape, self.strides = itemsize, tuple(shape), tuple(strides)
        self.base, self.offset, self.storage_numel = base, offset, storage_numel

    @property
    def ndim(self):
        return len(self.shape)


def _numpy_operand(name, arr, writable):
    entry = _NUMPY_DTYPES.get(arr.dtype.name)
    if entry is None:
        raise TypeError(f"{name}: unsupported dtype {arr.dtype}; expected float32, float16 "
                        "(or bfloat16)")
    if not arr.dtype.isnative:
        raise TypeError(f"{name}: dtype {arr.dtype} is not in native byte order")
    if writable and not arr.flags.writeable:
        raise ValueError(f"{name}: output array is read-only")
    item = arr.itemsize
    if any(s % item for s in arr.strides):
        raise ValueError(f"{name}: byte strides {arr.strides} are not multiples of the "
                         f"element size {item}")
    if not arr.flags.aligned:
        raise ValueError(f"{name}: data is not aligned to its element size")
    strides = [s // item for s in arr.strides]
    ptr = arr.__array_interface__["data"][0]
    low, high = _reach(arr.shape, strides)
    # Default storage: exactly what the view can reach.
    base, offset, numel = ptr + low * item, -low, high - low + 1
    # Prefer the root buffer the view was cut from, when it holds the view.
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is not arr and high >= low:
        rptr = root.__array_interface__["data"][0]
        rlow, rhigh = _reach(root.shape, root.strides)  # in bytes
        begin, end = rptr + rlow, rptr + rhigh + root.itemsize
        if (begin <= ptr + low * item and ptr + (high + 1) * item <= end
                and (ptr - begin) % item == 0 and (end - begin) % item == 0):
            base, offset, numel = begin, (ptr - begin) // item, (end - begin) // item
    return Operand(name, arr, "numpy", entry[1], item, arr.shape, strides, base, offset,
                   max(numel, 0))


def _torch_operand(name, t):
    dtype = _TORCH_DTYPE_NAMES.get(str(t.dtype))
    if dtype is None:
        raise TypeError(f"{name}: unsupported dtype {t.dtype}; expected torch.float32, "
                        "torch.float16 or torch.bfloat16")
    if t.device.type != "cpu":
        raise TypeError(f"{name}: tensor is on {t.device}; expected a CPU tensor")
    if t.layout != _torch_module().strided:
        raise TypeError(f"{name}: layout {t.layout} is not supported; expected torch.strided")
    item = t.element_size()
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    numel = storage.nbytes() // item
    return Operand(name, t, "torch", dtype, item, t.shape, t.stride(), storage.data_ptr(),
                   t.storage_offset(), numel)


def operand(name, obj, writable=False):
    """The Operand for `obj`, or TypeError when it is not a supported array."""
    if isinstance(obj, np.ndarray):
        op = _numpy_operand(name, obj, writable)
    elif is_torch_tensor(obj):
        op = _torch_operand(name, obj)
    else:
        raise TypeError(f"{name}: expected a numpy.ndarray or a torch.Tensor, got "
                        f"{type(obj).__name__}")
    if writable and 0 not in op.shape and any(s == 0 and n > 1 for n, s in
                                              zip(op.shape, op.strides)):
        raise ValueError(f"{name}: output view has a zero stride (its elements overlap)")
    return op


def optional_operand(name, obj, writable=False):
    return None if obj is None else operand(name, obj, writable)


def new_array(kind, shape, dtype):
    """A fresh, uninitialised array of `kind` ("numpy" or "torch")."""
    shape = tuple(int(s) for s in shape)
    if kind == "torch":
        torch = _torch_module()
        return torch.empty(shape, dtype=getattr(torch, dtype))
    if dtype == "bfloat16":
        raise TypeError("numpy has no bfloat16 dtype; pass out= arrays for bfloat16 results")
    return np.empty(shape, dtype=dtype)


def promote(*dtypes):
    """PromoteType over the three float types: uniform stays, any mixture is float32."""
    return dtypes[0] if all(d == dtypes[0] for d in dtypes) else "float32"


def _i64_array(values):
    values = [int(v) for v in values]
    return (ctypes.c_int64 * max(1, len(values)))(*values)


# Live descriptor count (created minus destroyed), for the lifetime tests.
_live = {"count": 0}
_live_lock = threading.Lock()


def live_descriptors():
    """Descriptors (aclTensor/aclIntArray/aclBoolArray) created by the package and not yet
    destroyed. Zero between calls; the tests use it to prove nothing leaks."""
    return _live["count"]


class Descriptors:
    """The descriptors of one call; all destroyed on exit, in any case."""

    def __init__(self, api):
        self.api = api
        self._made = []  # (destroy function, handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        while self._made:
            destroy, handle = self._made.pop()
            destroy(handle)
            with _live_lock:
                _live["count"] -= 1
        return False

    def _keep(self, handle, destroy, what):
        if not handle:
            raise RuntimeError(f"{what} failed: {self.api.message()}")
        self._made.append((destroy, handle))
        with _live_lock:
            _live["count"] += 1
        return handle

    def tensor(self, op, fmt=None):
        """aclTensor over `op`'s memory (None for None)."""
        if op is None:
            return None
        fmt = _abi.conv_format(op.ndim) if fmt is None else fmt
        handle = self.api.aclCreateTensor(
            _i64_array(op.shape), op.ndim, op.acl_dtype, _i64_array(op.strides), op.offset, fmt,
            _i64_array([op.storage_numel]), 1, ctypes.c_void_p(op.base or None))
        return self._keep(handle, self.api.aclDestroyTensor, f"aclCreateTensor({op.name})")

    def int_array(self, values):
        if values is None:
            return None
        handle = self.api.aclCreateIntArray(_i64_array(values), len(values))
        return self._keep(handle, self.api.aclDestroyIntArray, "aclCreateIntArray")

    def bool_array(self, values):
        arr = (ctypes.c_bool * max(1, len(values)))(*[bool(v) for v in values])
        handle = self.api.aclCreateBoolArray(arr, len(values))
        return self._keep(handle, self.api.aclDestroyBoolArray, "aclCreateBoolArray")
