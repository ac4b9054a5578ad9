"""Many threads at once through the extension's shared state: calls converting values and
containers, global functions registered and looked up, errors raised and caught, classes
registered and objects converted to them, dtypes and devices made, modules loaded. On a
free-threaded interpreter (CPython 3.13t) this runs without the GIL, which `import ffi` and
loading a kernel library leave disabled; elsewhere the GIL interleaves the threads."""

import builtins
import contextlib
import sys

import numpy as np
import pytest
from support.markers import FREE_THREADED
from support.threads import meanwhile, run_in_threads

import ffi

THREADS = 8
ROUNDS = 300


@pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded interpreter")
def test_the_gil_stays_disabled(mod):
    # `mod` loaded a kernel library in this process: the extension declares it runs without the
    # GIL, so neither importing it nor loading kernels turned the GIL on.
    assert sys._is_gil_enabled() is False
    assert mod.add_int(1, 2) == 3


def test_calls_with_values_and_containers(mod):
    def work(i):
        for r in range(ROUNDS):
            assert mod.add_int(i, r) == i + r
            assert mod.echo(f"thread {i}") == f"thread {i}"
            assert list(mod.echo([i, r, 1])) == [i, r, 1]
            back = mod.echo({"i": i, "items": [r, str(r)], "nested": {"x": [1.5]}})
            assert back["i"] == i and list(back["items"]) == [r, str(r)]
            assert list(mod.echo((i, r))) == [i, r]

    run_in_threads(work, THREADS)


def test_one_list_and_dict_changed_while_other_threads_pass_them(mod):
    shared_list = list(range(50))
    shared_dict = {str(k): k for k in range(50)}

    def mutate(r):
        shared_list.append(r)
        shared_list.pop(0)
        shared_dict[str(50 + r % 7)] = r
        shared_dict.pop(str(50 + (r + 3) % 7), None)

    def work(i):
        for _ in range(ROUNDS):
            seen = mod.echo(shared_list)
            assert 0 < len(seen) <= 51 and all(isinstance(v, int) for v in seen)
            mapped = mod.echo(shared_dict)
            assert all(mapped[k] == v for k, v in mapped.items() if int(k) < 50)

    with meanwhile(mutate):
        run_in_threads(work, THREADS - 1)


def test_errors_raised_and_caught(mod):
    def work(i):
        for r in range(ROUNDS):
            kind = ("ValueError", "TypeError", "IndexError", "KeyError")[(i + r) % 4]
            with pytest.raises(getattr(builtins, kind)) as info:
                mod.fail(kind, f"t{i} r{r}")
            assert type(info.value).__name__ == kind
            assert f"t{i} r{r}" in str(info.value)

    run_in_threads(work, THREADS)


def test_one_object_moved_into_calls_from_every_thread(mod):
    # Every thread hands the same objects over with _move() at once: for each object one call
    # takes it and the others find it moved; a refused hand-over (a function that does not take
    # an rvalue) leaves the object intact. Nothing is taken twice (a double release would crash).
    size = ffi.get_global_func("ffi.ArraySize")
    objects = [ffi.Array([k, k + 1]) for k in range(ROUNDS)]
    taken = [[] for _ in range(THREADS)]

    def work(i):
        for k, obj in enumerate(objects):
            # Refused (ffi.ArraySize takes no rvalue), or already moved: _move() of an object
            # holding nothing is a RuntimeError, a call finding it taken meanwhile a TypeError.
            with contextlib.suppress(TypeError, RuntimeError):
                size(obj._move())
            try:
                taken[i].append((k, list(mod.echo(obj._move()))))
            except (TypeError, RuntimeError) as err:
                assert "moved already" in str(err) or "holds no FFI object" in str(err)

    run_in_threads(work, THREADS)
    results = sorted(item for per_thread in taken for item in per_thread)
    assert results == [(k, [k, k + 1]) for k in range(ROUNDS)]
    assert all("no FFI object" in repr(obj) for obj in objects)


def test_keep_gil_set_while_other_threads_call(mod):
    # One Function shared by every thread while one of them flips how it is called.
    add = mod.get_function("add_int")

    def flip(r):
        add.keep_gil = r % 2 == 0

    def work(i):
        for r in range(ROUNDS):
            assert add(i, r) == i + r

    with meanwhile(flip):
        run_in_threads(work, THREADS - 1)
    add.keep_gil = False


def test_global_functions_registered_and_called(mod):
    def work(i):
        name = f"ffi_stress.f{i}"
        for r in range(ROUNDS // 3):
            ffi.register_global_func(name, lambda x, r=r: x * 2 + r, override=True)
            assert ffi.get_global_func(name)(i) == i * 2 + r
            assert mod.call_with(ffi.get_global_func(name), 1) == 2 + r
            assert name in ffi.registry.list_global_func_names()
            ffi.remove_global_func(name)
            assert ffi.get_global_func(name, allow_missing=True) is None

    run_in_threads(work, THREADS)


def test_classes_registered_while_others_convert_objects(mod):
    # Each thread defines its own object types and makes objects of them, while the others do
    # the same: the class registry is read on every object result and changed by each
    # registration.
    def work(i):
        for r in range(6):

            @ffi.dataclasses.py_class(f"ffi_stress.Point_{i}_{r}")
            class Point(ffi.Object):
                x: int
                y: str

            for k in range(20):
                p = Point(k, str(k))
                back = mod.echo(p)
                assert type(back) is Point and back.x == k and back.y == str(k)
                assert mod.echo([p, p])[1].x == k

    run_in_threads(work, THREADS)


def test_dtypes_devices_and_tensors(mod):
    names = ["float32", "int8", "bfloat16", "float16x4", "uint64", "bool"]

    def work(i):
        for r in range(ROUNDS):
            name = names[(i + r) % len(names)]
            assert str(ffi.dtype(name)) == name
            assert mod.echo(ffi.dtype(name)) == name
            dev = mod.echo(ffi.Device("cpu", i))
            assert dev.index == i
            x = np.arange(4, dtype=np.float32) + r
            assert mod.sum_any(x) == float(x.sum())
            t = ffi.from_dlpack(x)
            assert t.dtype == "float32" and t.shape == (4,)
            assert np.from_dlpack(mod.echo(t)).tolist() == x.tolist()

    run_in_threads(work, THREADS)


def test_modules_loaded_at_once(kernels_path):
    modules = []

    def work(i):
        for _ in range(20):
            m = ffi.load_module(kernels_path)
            assert m.add_int(i, 1) == i + 1
        modules.append(m)

    run_in_threads(work, THREADS)
    assert len(modules) == THREADS
