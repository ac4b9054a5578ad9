//! The other direction under `cargo test`: Python calls this crate's cdylib, on our runtime
//! (`ffi`) and on the reference's (`tvm_ffi`), each in a process of its own. The full Python
//! suite is tests/python/rust; this checks the essentials wherever cargo runs.
//!
//! The interpreter is `$PYTHON` (default `python3`), the one whose `ffi` package the build
//! linked against; the reference's half is skipped, saying so, where `tvm_ffi` is not installed.

use std::path::PathBuf;
use std::process::Command;

/// The cdylib cargo built for this test run: in the test binary's directory (`deps/`, where
/// `cargo test` leaves it), else the profile directory above (where `cargo build` puts it).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let candidates = [deps.to_path_buf(), deps.parent().unwrap().to_path_buf()];
    candidates
        .iter()
        .map(|dir| dir.join("libffi_test_kernels.so"))
        .find(|path| path.exists())
        .unwrap_or_else(|| panic!("libffi_test_kernels.so was not built next to {}", exe.display()))
}

fn python(script: &str) -> std::process::Output {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(library())
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"))
}

/// Calls the kernels with NumPy (and PyTorch, when installed) through `package`'s loader.
fn script(package: &str) -> String {
    format!(
        r#"
import sys
import numpy as np
import {package} as pkg
mod = pkg.load_module(sys.argv[1])
x = np.arange(4, dtype=np.float32)
y = np.zeros(4, dtype=np.float32)
mod.add_one(x, y)
assert y.tolist() == [1.0, 2.0, 3.0, 4.0], y
assert mod.scale(3.0) == 6.0 and mod.scale(3.0, 3.0) == 9.0
try:
    mod.fail("ValueError", "from rust")
except ValueError as e:
    assert "from rust" in str(e), e
else:
    raise AssertionError("no error")
try:
    mod.panics("boom")
except RuntimeError as e:
    assert "Rust panic: boom" in str(e), e
else:
    raise AssertionError("no error")
try:
    import torch
except ImportError:
    print("no torch")
else:
    t = torch.arange(3, dtype=torch.float32)
    out = torch.empty(3)
    mod.add_one(t, out)
    assert out.tolist() == [1.0, 2.0, 3.0], out
print("ok", "ffi" in sys.modules)
"#
    )
}

#[test]
fn python_calls_the_cdylib_on_our_runtime() {
    let probe = python("import ffi, numpy");
    assert!(
        probe.status.success(),
        "the interpreter cannot import ffi and numpy: set PYTHON to the one whose ffi package the \
         build linked against\n{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let out = python(&script("ffi"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.trim_end().ends_with("ok True"), "{stdout}");
}

#[test]
fn python_calls_the_cdylib_on_the_reference_runtime() {
    let probe = python("import tvm_ffi");
    if !probe.status.success() {
        eprintln!("skipped: the reference package (tvm_ffi) is not installed");
        return;
    }
    let out = python(&script("tvm_ffi"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.trim_end().ends_with("ok False"), "our package stayed out: {stdout}");
}
