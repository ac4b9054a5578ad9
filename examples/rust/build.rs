//! The host program links the runtime (through the ffi crate); an rpath to the runtime's
//! directory, which the ffi crate reports as DEP_FFI_LIBDIR, lets it start without
//! LD_LIBRARY_PATH. The cdylib needs none: it binds to the runtime its host loaded.
fn main() {
    let dir =
        std::env::var("DEP_FFI_LIBDIR").expect("the ffi crate reports the runtime's directory");
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{dir}");
}
