//! Shared by the integration tests: the C++ kernel library, compiled once per test binary.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The repository's C++ headers.
pub fn include_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include")
}

/// `tests/cpp/kernels.cc` built as a shared library with `$CXX` (default `c++`): no link flags,
/// its runtime symbols resolve from the runtime this test binary loaded.
pub fn cpp_kernels() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cpp/kernels.cc");
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("libcpp_kernels_{}.so", std::process::id()));
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        let status = Command::new(&cxx)
            .args(["-std=c++17", "-O1", "-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg("-I")
            .arg(include_dir())
            .arg(&source)
            .status()
            .unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
        assert!(status.success(), "{cxx} failed on {}", source.display());
        out
    })
}
