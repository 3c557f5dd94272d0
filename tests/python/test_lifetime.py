"""Every descriptor the package creates is destroyed, on success and on every error path."""

import os

import numpy as np
import pytest

import aclnn_cpu
from aclnn_cpu._arrays import live_descriptors


def test_no_descriptor_outlives_a_call():
    rng = np.random.default_rng(4)
    go = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    x = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    tbc = [np.ones(s, np.float32) for s in ([5, 1, 2], [5, 1, 2], [1, 2, 2], [2])]
    start = live_descriptors()
    for i in range(200):
        aclnn_cpu.convolution_backward(go, x, w, output_mask=[bool(i >> b & 1) for b in range(3)])
        aclnn_cpu.conv_tbc_backward(*tbc, 0)
        with pytest.raises(aclnn_cpu.AclnnError):  # fails in phase 1, after every descriptor
            aclnn_cpu.convolution_backward(go, x, w, stride=[1])
        with pytest.raises(TypeError):  # fails before any
            aclnn_cpu.convolution_backward(go, x.astype(np.float64), w)
        assert live_descriptors() == start
    assert live_descriptors() == start


def test_results_do_not_keep_inputs_alive():
    """Outputs are fresh arrays, not views of anything the call made."""
    go, x, w = (np.ones(s, np.float32) for s in ([1, 2, 3, 3], [1, 3, 5, 5], [2, 3, 3, 3]))
    gi, gw, gb = aclnn_cpu.convolution_backward(go, x, w)
    for r in (gi, gw, gb):
        assert r.base is None and r.flags.owndata


def _resident_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_memory_is_stable_under_repeated_calls():
    """Executors, workspaces and outputs are all released. A leak grows the process in every
    window of calls, in proportion to the calls (a leaked workspace alone would be ~90 MiB per
    window), while allocator noise shows up in some windows only and does not scale with them,
    so the smallest window's growth is what counts. (With windows of 100 calls and a 2 MiB
    bound, about one loaded `ctest -j2` run in ten saw 2.0-2.75 MiB in all four windows; 3 MiB
    over 300 calls still catches any leak of 10 KiB or more per call.)"""
    rng = np.random.default_rng(0)
    go, x = (rng.standard_normal((4, 16, 16, 16)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    tbc = [rng.standard_normal(s).astype(np.float32) for s in ([64, 4, 16], [64, 4, 16],
                                                               [3, 16, 16], [16])]
    for i in range(50):  # warm-up: pools, caches, first-touch pages
        aclnn_cpu.convolution_backward(go, x, w, padding=1, cube_math_type=i % 4)
    growth = []
    for _ in range(4):
        before = _resident_mib()
        for i in range(300):
            aclnn_cpu.convolution_backward(go, x, w, padding=1, cube_math_type=i % 4)
            aclnn_cpu.conv_tbc_backward(*tbc, 1)
        growth.append(_resident_mib() - before)
    assert min(growth) < 3.0, growth
