"""Two Python threads calling the operators at once get correct results (a stream each)."""

import threading

import numpy as np
import pytest

import aclnn_cpu


def _problem(seed):
    rng = np.random.default_rng(seed)
    go = rng.standard_normal((2, 8, 12, 12)).astype(np.float32)
    x = rng.standard_normal((2, 6, 14, 14)).astype(np.float32)
    w = rng.standard_normal((8, 6, 3, 3)).astype(np.float32)
    return go, x, w


def test_two_threads_at_once():
    problems = [_problem(1), _problem(2)]
    cubes = [0, 1]
    # Results computed alone first; the library is deterministic, so the
    # concurrent ones must be bit-identical.
    expected = [aclnn_cpu.convolution_backward(*p, cube_math_type=c)
                for p, c in zip(problems, cubes)]
    tbc = [np.random.default_rng(9).standard_normal(s).astype(np.float32)
           for s in ([6, 2, 4], [6, 2, 3], [1, 3, 4], [4])]
    tbc_expected = aclnn_cpu.conv_tbc_backward(*tbc, 0)
    barrier = threading.Barrier(2)
    failures = []

    def worker(i):
        try:
            barrier.wait()
            for _ in range(30):
                got = aclnn_cpu.convolution_backward(*problems[i], cube_math_type=cubes[i])
                for a, b in zip(got, expected[i]):
                    np.testing.assert_array_equal(a, b)
                got = aclnn_cpu.conv_tbc_backward(*tbc, 0)
                for a, b in zip(got, tbc_expected):
                    np.testing.assert_array_equal(a, b)
            # Errors are per thread: each sees its own message.
            with pytest.raises(aclnn_cpu.AclnnError) as info:
                aclnn_cpu.convolution_backward(*problems[i], stride=[1, 2, 3][: i + 1] * 3)
            assert "stride" in info.value.message
        except BaseException as exc:  # reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    # cube 1 really differs from cube 0, so the two threads computed different things.
    assert not np.array_equal(expected[0][0], aclnn_cpu.convolution_backward(
        *problems[0], cube_math_type=1)[0])


def test_many_short_lived_threads():
    """Each thread's stream is destroyed when the thread ends; nothing accumulates."""
    p = _problem(3)
    expected = aclnn_cpu.convolution_backward(*p)[1]
    results = []

    def worker():
        results.append(aclnn_cpu.convolution_backward(*p)[1])

    for _ in range(20):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert len(results) == 20
    for r in results:
        np.testing.assert_array_equal(r, expected)
    from aclnn_cpu._runtime import RUNTIME
    assert len(RUNTIME._streams) <= 2  # the main thread's, and at most one not yet collected


def test_one_stream_per_thread():
    from aclnn_cpu._runtime import RUNTIME
    handles = {}

    def worker(name):
        handles[name] = (RUNTIME.stream(), RUNTIME.stream())

    threads = [threading.Thread(target=worker, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    main = RUNTIME.stream()
    assert handles["a"][0] == handles["a"][1] and handles["b"][0] == handles["b"][1]
    # Distinct streams (the runtime never reuses a handle value, even after a
    # thread's stream was destroyed).
    assert len({handles["a"][0], handles["b"][0], main}) == 3
