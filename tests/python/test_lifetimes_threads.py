"""Reference counts stay exact over many calls; concurrent calls from threads are safe."""

import gc
import sys
import threading

import numpy as np
import torch

import ffi


def test_no_leaks_over_many_calls(mod):
    x = torch.arange(8.0)
    a = np.arange(8.0)
    s = "a string longer than seven bytes"
    f = ffi.convert(lambda v: v)
    t = ffi.from_dlpack(torch.ones(2))
    counts = [sys.getrefcount(o) for o in (x, a, s, f, t)]
    t_uses = t._use_count()
    for _ in range(2000):
        mod.sum_any(x)
        mod.sum_any(a)
        mod.echo(s)
        mod.call_with(f, 1)
        mod.echo(t)
        ffi.from_dlpack(x)
    gc.collect()
    assert [sys.getrefcount(o) for o in (x, a, s, f, t)] == counts
    assert t._use_count() == t_uses


def test_callback_references_released(mod):
    def cb(v):
        return v

    before = sys.getrefcount(cb)
    for _ in range(500):
        mod.call_with(cb, 1)
    gc.collect()
    assert sys.getrefcount(cb) == before


def test_threads_calling_concurrently(mod):
    errors = []

    def work(seed):
        try:
            x = torch.full((16,), float(seed))
            out = torch.empty(16)
            ws = torch.empty(16)
            for _ in range(300):
                mod.scale_add(x, None, out, ws)
                assert torch.equal(out, x * 2)
                assert mod.add_int(seed, 1) == seed + 1
                assert mod.call_with(lambda v: v + seed, 1) == 1 + seed
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
