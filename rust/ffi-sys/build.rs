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

/// Makes `link` point at `target` (a symbolic link; a copy where links are not available).
fn link_into(target: &std::path::Path, link: &std::path::Path) {
    let _ = std::fs::remove_file(link);
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, link);
    #[cfg(not(unix))]
    let made = std::fs::copy(target, link).map(|_| ());
    made.unwrap_or_else(|e| {
        panic!("ffi-sys: cannot link {} to {}: {e}", link.display(), target.display())
    });
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
    // Link through links made in OUT_DIR: cargo puts link-search paths inside OUT_DIR on the
    // loader's path for `cargo run` and `cargo test`, so a program using the crate starts there
    // with no rpath of its own and no LD_LIBRARY_PATH. A program run outside cargo needs the
    // rpath described in docs/rust.md.
    let out_dir =
        PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("runtime");
    std::fs::create_dir_all(&out_dir).expect("ffi-sys: cannot create OUT_DIR/runtime");
    // The SONAME's file too: the program records `libtvm_ffi.so` and the loader looks for it.
    let soname =
        if target_os == "windows" || target_os == "macos" { None } else { Some("libtvm_ffi.so") };
    for name in std::iter::once(file).chain(soname) {
        link_into(&dir.join(file), &out_dir.join(name));
    }
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=dylib=ffi_runtime");
    // Metadata for dependents' build scripts (DEP_FFI_RUNTIME_LIBDIR), e.g. for an rpath.
    println!("cargo:libdir={}", dir.display());
    println!("cargo:rustc-env=FFI_SYS_LIBDIR={}", dir.display());
}
