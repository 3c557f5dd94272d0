"""aclnn_cpu.compare and `python3 -m aclnn_cpu compare` on hand-made cases."""

import os
import subprocess
import sys

import numpy as np
import pytest

import aclnn_cpu


def test_identical_passes_with_zero_error():
    g = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    r = aclnn_cpu.compare(g, g)
    assert r.passed and bool(r) and r.mismatches == 0 and r.max_abs_error == 0.0
    assert r.dtype == "float32" and (r.rtol, r.atol) == aclnn_cpu.DEFAULT_TOLERANCES["float32"]


def test_counts_worst_index_and_errors():
    g = np.ones((2, 3), np.float64)
    a = g.astype(np.float32).copy()
    a[0, 1] = 1.0 + 5e-4   # outside float32's 1e-4 + 1e-4*1
    a[1, 2] = 1.0 - 3e-3   # further outside: the worst
    a[1, 0] = 1.0 + 1e-4   # inside
    r = aclnn_cpu.compare(a, g)
    assert not r.passed and r.mismatches == 2 and r.mismatch_fraction == pytest.approx(2 / 6)
    assert r.worst_index == (1, 2) and r.worst_golden == 1.0
    assert r.max_abs_error == pytest.approx(3e-3, rel=1e-3)
    assert r.max_rel_error == pytest.approx(3e-3, rel=1e-3)
    # The float16 tolerance (1e-3 + 1e-3*|g|) lets 5e-4 through but not 3e-3.
    r16 = aclnn_cpu.compare(a, g, dtype="float16")
    assert r16.mismatches == 1 and r16.worst_index == (1, 2)
    assert aclnn_cpu.compare(a, g, rtol=0, atol=4e-3).passed


def test_special_values_and_dtypes():
    g = np.array([np.nan, np.inf, -np.inf, 0.0])
    assert aclnn_cpu.compare(g.astype(np.float16), g).passed
    assert aclnn_cpu.compare(g.astype(np.float16), g).dtype == "float16"
    bad = np.array([0.0, np.inf, np.inf, 0.0], np.float32)
    r = aclnn_cpu.compare(bad, g)
    assert r.mismatches == 2 and r.worst_index in ((0,), (2,))
    with pytest.raises(ValueError, match="shapes differ"):
        aclnn_cpu.compare(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="no default tolerance"):
        aclnn_cpu.compare(np.zeros(3), np.zeros(3), dtype="int8")


def test_torch_inputs():
    torch = pytest.importorskip("torch", reason="needs PyTorch")
    g = torch.linspace(-1, 1, 10, dtype=torch.float64)
    a = g.to(torch.bfloat16)
    r = aclnn_cpu.compare(a, g)
    assert r.dtype == "bfloat16" and r.passed and 0 < r.max_abs_error <= 2**-8
    assert not aclnn_cpu.compare(a, g, dtype="float32").passed


def _cli(*args):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "aclnn_cpu", *args], capture_output=True,
                          text=True, env=env)


def test_command_line(tmp_path):
    g = np.linspace(0, 1, 8)
    np.save(tmp_path / "golden.npy", g)
    np.save(tmp_path / "good.npy", g.astype(np.float16))
    bad = g.astype(np.float16)
    bad[3] += 0.25
    np.save(tmp_path / "bad.npy", bad)
    ok = _cli("compare", str(tmp_path / "good.npy"), str(tmp_path / "golden.npy"))
    assert ok.returncode == 0 and ok.stdout.startswith("PASS") and "float16" in ok.stdout
    fail = _cli("compare", str(tmp_path / "bad.npy"), str(tmp_path / "golden.npy"))
    assert fail.returncode == 1 and fail.stdout.startswith("FAIL: 1 of 8") and "(3,)" in fail.stdout
    loose = _cli("compare", str(tmp_path / "bad.npy"), str(tmp_path / "golden.npy"), "--atol",
                 "0.3")
    assert loose.returncode == 0
    missing = _cli("compare", str(tmp_path / "nope.npy"), str(tmp_path / "golden.npy"))
    assert missing.returncode == 2 and "nope.npy" in missing.stderr
