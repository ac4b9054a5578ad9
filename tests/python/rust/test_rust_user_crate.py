"""A crate of a user's shape: a path dependency on the ``ffi`` crate, no build script, run with
``cargo run`` and ``cargo test`` and no LD_LIBRARY_PATH: the program finds the runtime, loads the
Rust kernel library and calls it with tensors over Rust buffers."""

import os
import shutil
import subprocess
import textwrap

import pytest
from support.cargo import RUST_DIR, cargo_env

MAIN = """
fn main() -> ffi::Result<()> {
    let path = std::env::args().nth(1).expect("the kernel library");
    let module = ffi::Module::load(&path)?;
    let x = ffi::Tensor::from_vec(vec![1.0_f32, 2.0, 3.0], &[3])?;
    let y = ffi::Tensor::alloc(&[3], ffi::DataType::F32, ffi::Device::cpu())?;
    module.function("add_one")?.invoke((&x, &y))?;
    println!("add_one: {:?}", y.as_slice::<f32>()?);
    match module.function("fail")?.invoke(("KeyError", "no such key")) {
        Err(e) => println!("error: {} / {}", e.kind(), e.message()),
        Ok(v) => println!("unexpected: {v:?}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_closure_runs() {
        let f = ffi::Function::from_typed(|a: i64| a * 3);
        assert_eq!(f.invoke((14,)).unwrap().cast::<i64>().unwrap(), 42);
    }
}
"""


@pytest.fixture(scope="module")
def user_crate(tmp_path_factory):
    """A fresh crate depending on rust/ffi by path; its build shares the tests' target directory."""
    crate = tmp_path_factory.mktemp("user_crate")
    ffi_crate = os.path.join(RUST_DIR, "ffi")
    (crate / "Cargo.toml").write_text(
        textwrap.dedent(f"""\
            [package]
            name = "user-program"
            version = "0.1.0"
            edition = "2021"

            [dependencies]
            ffi = {{ path = {ffi_crate!r} }}

            [workspace]
            """).replace("'", '"')
    )
    (crate / "src").mkdir()
    (crate / "src" / "main.rs").write_text(MAIN)
    return crate


def _cargo(crate, *args):
    proc = subprocess.run(
        [shutil.which("cargo"), *args, "--offline", "-q"],
        cwd=crate,
        env=cargo_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, f"cargo {args} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_cargo_run_finds_the_runtime_and_calls_the_library(user_crate, rust_kernels_path):
    """``cargo run`` starts the program without LD_LIBRARY_PATH or an rpath of its own."""
    out = _cargo(user_crate, "run", "--", rust_kernels_path).splitlines()
    assert out == ["add_one: [2.0, 3.0, 4.0]", "error: KeyError / no such key"]


def test_cargo_test_runs_the_crates_tests(user_crate, rust_kernels_path):
    """``cargo test`` of the user's crate runs its tests against the runtime."""
    out = _cargo(user_crate, "test")
    assert "test tests::a_closure_runs ... ok" in out or "1 passed" in out, out
