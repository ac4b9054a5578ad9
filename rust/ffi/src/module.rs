//! Modules: kernel libraries loaded from shared objects (built with the C++ headers, by a DSL
//! compiler, or from a Rust `cdylib` with [`crate::export`]).
//!
//! ```no_run
//! let module = ffi::Module::load("build/libadd_one.so")?;
//! let add_one = module.function("add_one")?;
//! # Ok::<(), ffi::Error>(())
//! ```

use std::path::Path;

use crate::any::Any;
use crate::error::{Error, Result};
use crate::function::{global, Function};
use crate::object::object_wrapper;
use crate::sys;

object_wrapper!(
    /// A loaded module: a library's exported functions, found by name.
    Module,
    sys::kTVMFFIModule,
    "Module",
    "ffi.Module"
);

impl Module {
    /// Loads the shared library at `path` (its `__tvm_ffi_<name>` symbols become functions).
    pub fn load(path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let text = path
            .to_str()
            .ok_or_else(|| Error::new("ValueError", format!("path {path:?} is not UTF-8")))?;
        global!("ffi.ModuleLoadFromFile")?.invoke((text,))?.cast()
    }

    /// The function `name` (searching the module's imports too), if it has one.
    pub fn get_function(&self, name: &str) -> Result<Option<Function>> {
        global!("ffi.ModuleGetFunction")?.invoke((self, name, true))?.cast()
    }

    /// The function `name`; an `AttributeError` when the module has none.
    pub fn function(&self, name: &str) -> Result<Function> {
        self.get_function(name)?
            .ok_or_else(|| Error::new("AttributeError", format!("module has no function `{name}`")))
    }

    /// Whether the module (without its imports) implements `name`.
    pub fn implements(&self, name: &str) -> Result<bool> {
        global!("ffi.ModuleImplementsFunction")?.invoke((self, name, false))?.cast()
    }

    /// The kind of module (`"library"` for a shared library).
    pub fn kind(&self) -> Result<std::string::String> {
        global!("ffi.ModuleGetKind")?.invoke((self,))?.cast()
    }

    /// The export metadata of function `name` (JSON text: signature, types, argument names),
    /// if it has any.
    pub fn function_metadata(&self, name: &str) -> Result<Option<std::string::String>> {
        let value: Any = global!("ffi.ModuleGetFunctionMetadata")?.invoke((self, name, true))?;
        value.cast()
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({:p})", self.0.as_raw())
    }
}
