//! Passes the runtime's directory on: to this crate's own tests, examples and benches as an rpath
//! (so `cargo test` runs without LD_LIBRARY_PATH), and to dependents' build scripts as
//! `DEP_FFI_LIBDIR` (a program linking the runtime adds the same rpath; see docs/rust.md).
fn main() {
    let dir = std::env::var("DEP_FFI_RUNTIME_LIBDIR").expect("ffi-sys reports its libdir");
    println!("cargo:libdir={dir}");
    // Applies to this package's own linked targets only (its tests), never to dependents.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
}
