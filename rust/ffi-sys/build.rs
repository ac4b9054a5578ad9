//! Finds the runtime library and links it.
//!
//! The directory comes from `FFI_LIBDIR` when set, else from the installed Python package:
//! `$PYTHON -m ffi.config --libdir` (`PYTHON` defaults to `python3`). The runtime's SONAME is the
//! standard one (`libtvm_ffi.so`), so whatever links it binds, when loaded, to the TVM-FFI runtime
//! already in the process (ours or the reference's) and loads ours only when none is.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn libdir() -> PathBuf {
    if let Some(dir) = env::var_os("FFI_LIBDIR") {
        return PathBuf::from(dir);
    }
    let python = env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let output =
        Command::new(&python).args(["-m", "ffi.config", "--libdir"]).output().unwrap_or_else(|e| {
            panic!("ffi-sys: cannot run `{python} -m ffi.config --libdir` ({e}); set FFI_LIBDIR")
        });
    if !output.status.success() {
        panic!(
            "ffi-sys: `{python} -m ffi.config --libdir` failed ({}): {}; install the ffi Python \
             package or set FFI_LIBDIR to the directory holding libffi_runtime.so",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

fn main() {
    println!("cargo:rerun-if-env-changed=FFI_LIBDIR");
    println!("cargo:rerun-if-env-changed=PYTHON");
    let dir = libdir();
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let file = match target_os.as_str() {
        "windows" => "ffi_runtime.dll",
        "macos" => "libffi_runtime.dylib",
        _ => "libffi_runtime.so",
    };
    if !dir.join(file).exists() {
        panic!(
            "ffi-sys: {} has no {file}; set FFI_LIBDIR to the runtime's directory",
            dir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=ffi_runtime");
    // Metadata for dependents' build scripts (DEP_FFI_RUNTIME_LIBDIR), e.g. for an rpath.
    println!("cargo:libdir={}", dir.display());
    println!("cargo:rustc-env=FFI_SYS_LIBDIR={}", dir.display());
}
