"""The C library behind the package: where it is, its prototypes, and the runtime state.

Everything goes through the public C API of libascendcl.so (it holds the whole
implementation and exports every acl*/aclnn* function), exactly as a CANN program
would call it: aclInit and aclrtSetDevice once, lazily, on first use; one stream
per Python thread, created on that thread's first call and destroyed when the
thread ends; aclFinalize at interpreter exit.
"""

import atexit
import ctypes
import os
import threading

from . import _abi
from ._errors import LibraryNotFoundError, OperatorUnavailableError

LIB_DIR_ENV = "ACLNN_CPU_LIB_DIR"
LIB_NAME = "libascendcl.so"


def _candidate_paths():
    """Where libascendcl.so may be, most specific first, as (path, reason)."""
    override = os.environ.get(LIB_DIR_ENV)
    if override:
        # An explicit override is the only candidate: silently falling back to
        # another copy would test the wrong library.
        return [(os.path.join(override, LIB_NAME), f"${LIB_DIR_ENV}")]
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed as <prefix>/lib/python3/dist-packages/aclnn_cpu: <prefix> is four
    # levels up, and the libraries are in <prefix>/lib64 (the project's layout).
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    return [
        (os.path.join(prefix, "lib64", LIB_NAME), "beside the installed package"),
        (os.path.join(prefix, "lib", LIB_NAME), "beside the installed package"),
        (LIB_NAME, "the dynamic loader's search path"),
    ]


def _load_library():
    tried = []
    for path, reason in _candidate_paths():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} ({reason}): no such file")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as exc:
            tried.append(f"{path} ({reason}): {exc}")
    raise LibraryNotFoundError(
        "aclnn_cpu: cannot load libascendcl.so; tried:\n  " + "\n  ".join(tried)
        + f"\nSet {LIB_DIR_ENV} to the directory that holds the built libraries.")


_vp = ctypes.c_void_p
_i32 = ctypes.c_int32
_i64 = ctypes.c_int64
_u64 = ctypes.c_uint64
_i64_p = ctypes.POINTER(ctypes.c_int64)
_bool_p = ctypes.POINTER(ctypes.c_bool)
_u64_p = ctypes.POINTER(ctypes.c_uint64)
_vp_p = ctypes.POINTER(ctypes.c_void_p)

# Prototypes from include/acl/acl_rt.h and include/aclnn/acl_meta.h.
_RUNTIME_PROTOTYPES = {
    "aclInit": (ctypes.c_int, [ctypes.c_char_p]),
    "aclFinalize": (ctypes.c_int, []),
    "aclGetRecentErrMsg": (ctypes.c_char_p, []),
    "aclrtSetDevice": (ctypes.c_int, [_i32]),
    "aclrtResetDevice": (ctypes.c_int, [_i32]),
    "aclrtCreateStream": (ctypes.c_int, [_vp_p]),
    "aclrtDestroyStream": (ctypes.c_int, [_vp]),
    "aclrtSynchronizeStream": (ctypes.c_int, [_vp]),
    "aclrtMalloc": (ctypes.c_int, [_vp_p, ctypes.c_size_t, ctypes.c_int]),
    "aclrtFree": (ctypes.c_int, [_vp]),
    "aclCreateTensor": (_vp, [_i64_p, _u64, ctypes.c_int, _i64_p, _i64, ctypes.c_int, _i64_p,
                              _u64, _vp]),
    "aclDestroyTensor": (_i32, [_vp]),
    "aclCreateIntArray": (_vp, [_i64_p, _u64]),
    "aclDestroyIntArray": (_i32, [_vp]),
    "aclCreateBoolArray": (_vp, [_bool_p, _u64]),
    "aclDestroyBoolArray": (_i32, [_vp]),
    "aclDestroyAclOpExecutor": (_i32, [_vp]),
}

_PHASE2 = (_i32, [_vp, _u64, _vp, _vp])
# Phase-1 prototypes from include/aclnnop/aclnn_convolution_backward.h and
# include/aclnnop/aclnn_convolution.h (note groups is int in the backward API,
# int64_t in the forward one).
_OPERATOR_PROTOTYPES = {
    "aclnnConvolutionBackward": (_i32, [_vp, _vp, _vp, _vp, _vp, _vp, _vp, ctypes.c_bool, _vp,
                                        ctypes.c_int, _vp, ctypes.c_int8, _vp, _vp, _vp, _u64_p,
                                        _vp_p]),
    "aclnnConvTbcBackward": (_i32, [_vp, _vp, _vp, _vp, _i64, ctypes.c_int8, _vp, _vp, _vp,
                                    _u64_p, _vp_p]),
    "aclnnConvolution": (_i32, [_vp, _vp, _vp, _vp, _vp, _vp, ctypes.c_bool, _vp, _i64, _vp,
                                ctypes.c_int8, _u64_p, _vp_p]),
    "aclnnConvTbc": (_i32, [_vp, _vp, _vp, _i64, _vp, ctypes.c_int8, _u64_p, _vp_p]),
    "aclnnConvDepthwise2d": (_i32, [_vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp, ctypes.c_int8, _u64_p,
                                    _vp_p]),
}


class _Api:
    """The loaded library with typed functions as attributes."""

    def __init__(self):
        self.lib, self.path = _load_library()
        for name, (res, args) in _RUNTIME_PROTOTYPES.items():
            self._bind(name, res, args)
        self.operators = {}
        for name, (res, args) in _OPERATOR_PROTOTYPES.items():
            try:
                phase1 = self._bind(name + "GetWorkspaceSize", res, args)
                phase2 = self._bind(name, *_PHASE2)
            except AttributeError:
                continue  # not exported by this library: reported when called
            self.operators[name] = (phase1, phase2)

    def _bind(self, name, res, args):
        fn = getattr(self.lib, name)
        fn.restype, fn.argtypes = res, args
        setattr(self, name, fn)
        return fn

    def message(self):
        """This thread's recent error text (and clears it), or a placeholder."""
        text = self.aclGetRecentErrMsg()
        return text.decode(errors="replace") if text else "<no message recorded>"


class _ThreadStream:
    """One thread's stream; destroyed when the thread's local storage goes."""

    def __init__(self, runtime, handle):
        self.runtime, self.handle = runtime, handle

    def __del__(self):
        self.runtime._release_stream(self.handle)


class _Runtime:
    def __init__(self):
        self._lock = threading.Lock()
        self._api = None
        self._local = threading.local()
        self._streams = set()  # every live stream handle, for the exit path
        self._finalized = False

    def api(self):
        """The library, loaded and initialised on first use (aclInit, device 0)."""
        api = self._api
        if api is not None:
            return api
        with self._lock:
            if self._finalized:
                raise RuntimeError("aclnn_cpu: the runtime was finalised at interpreter exit")
            if self._api is None:
                api = _Api()
                rc = api.aclInit(None)
                if rc not in (_abi.ACL_SUCCESS, _abi.ACL_ERROR_REPEAT_INITIALIZE):
                    raise RuntimeError(f"aclInit returned {rc}: {api.message()}")
                rc = api.aclrtSetDevice(0)
                if rc != _abi.ACL_SUCCESS:
                    raise RuntimeError(f"aclrtSetDevice(0) returned {rc}: {api.message()}")
                atexit.register(self._finalize)
                self._api = api
            return self._api

    def stream(self):
        """The calling thread's own stream (created on its first call)."""
        own = getattr(self._local, "stream", None)
        if own is not None:
            return own.handle
        api = self.api()
        handle = ctypes.c_void_p()
        rc = api.aclrtCreateStream(ctypes.byref(handle))
        if rc != _abi.ACL_SUCCESS:
            raise RuntimeError(f"aclrtCreateStream returned {rc}: {api.message()}")
        with self._lock:
            self._streams.add(handle.value)
        self._local.stream = _ThreadStream(self, handle.value)
        return handle.value

    def _release_stream(self, handle):
        with self._lock:
            if handle not in self._streams:
                return  # already destroyed by the exit path
            self._streams.discard(handle)
            api = self._api
        # Every call synchronised before returning, so the stream is idle.
        api.aclrtDestroyStream(handle)

    def _finalize(self):
        with self._lock:
            api, self._finalized = self._api, True
            streams, self._streams = list(self._streams), set()
        if api is None:
            return
        for handle in streams:
            api.aclrtDestroyStream(handle)
        api.aclrtResetDevice(0)
        api.aclFinalize()

    def operator(self, name):
        """(phase1, phase2) of an aclnn operator, or OperatorUnavailableError."""
        api = self.api()
        fns = api.operators.get(name)
        if fns is None:
            raise OperatorUnavailableError(
                f"{name} is not exported by {api.path}: this build of aclnn-cpu does not "
                f"implement it yet (aclnn_cpu.has_operator({name!r}) is False)")
        return fns

    def loaded_path(self):
        return self.api().path


RUNTIME = _Runtime()


def has_operator(name):
    """True when the loaded library exports the aclnn operator `name` (both phases).

    `name` is the phase-2 name, e.g. "aclnnConvolution" or "aclnnConvolutionBackward".
    Loads and initialises the library if that has not happened yet.
    """
    return name in RUNTIME.api().operators


def library_path():
    """The path of the libascendcl.so the package uses (loads it if needed)."""
    return RUNTIME.loaded_path()
