//! What `#[ffi::export]` expands to calls: argument checks, metadata and the safe-call frame.
//! Not a public interface: the macro and this module change together.

use crate::any::{AnyView, FromAny};
use crate::error::{Error, Result};
use crate::function::signature_of;
pub use crate::function::{convert_arg, fill_optional, safe_call, IntoCallResult};
use crate::tensor::TensorView;

/// One parameter of an exported function: its name, type name and type schema.
pub struct Param {
    /// The parameter's name in the Rust source (keyword name for hosts).
    pub name: &'static str,
    /// Its type's name (`int`, `Tensor`, ...).
    pub type_name: std::string::String,
    /// Its type's schema (JSON).
    pub type_schema: std::string::String,
}

/// `(0: int, 1: Tensor) -> void`: the signature after an export's name, as C++ prints it.
pub fn signature(params: &[Param], return_type: &str) -> std::string::String {
    signature_of(params.iter().map(|p| p.type_name.as_str()), return_type)
}

/// A JSON string literal of `text`.
pub fn json_string(text: &str) -> std::string::String {
    let mut out = std::string::String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What `__tvm_ffi__metadata_<name>` returns: the keys C++ exports write (signature, argument
/// and return types, type schema) plus the parameter names, so hosts take keywords.
pub fn metadata(
    name: &str,
    params: &[Param],
    required: usize,
    return_type: &str,
    return_schema: &str,
) -> std::string::String {
    let arg_types: Vec<std::string::String> =
        params.iter().map(|p| json_string(&p.type_name)).collect();
    let arg_names: Vec<std::string::String> = params.iter().map(|p| json_string(p.name)).collect();
    let schemas: Vec<&str> = params.iter().map(|p| p.type_schema.as_str()).collect();
    let defaults: Vec<std::string::String> = params[required.min(params.len())..]
        .iter()
        .map(|p| format!("{}: null", json_string(p.name)))
        .collect();
    let type_schema = format!(
        r#"{{"type":"ffi.Function","named_args":{{"return":[{return_schema}],"params":[{}]}}}}"#,
        schemas.join(",")
    );
    format!(
        r#"{{"signature": {}, "arg_types": [{}], "return_type": {}, "type_schema": {}, "arg_names": [{}], "arg_defaults": {{{}}}}}"#,
        json_string(&format!("{name}{}", signature(params, return_type))),
        arg_types.join(", "),
        json_string(return_type),
        json_string(&type_schema),
        arg_names.join(", "),
        defaults.join(", ")
    )
}

/// Makes a `mut` tensor-view parameter writable, once no other tensor argument of the call shares
/// its memory (Rust never writes memory it also reads through another reference).
pub trait Writable {
    /// Marks `self`, argument `index` of `args`, writable; a `ValueError` naming the argument
    /// that overlaps it otherwise.
    fn make_writable(&mut self, args: &[AnyView<'_>], index: usize) -> Result<()>;
}

impl Writable for TensorView<'_> {
    fn make_writable(&mut self, args: &[AnyView<'_>], index: usize) -> Result<()> {
        let (first, last) = self.byte_span();
        for (other, value) in args.iter().enumerate() {
            if other == index || first == last {
                continue;
            }
            let Some(view) = TensorView::from_any(*value) else { continue };
            let (start, end) = view.byte_span();
            if start < last && first < end {
                return Err(Error::new(
                    "ValueError",
                    format!(
                        "argument #{index} is written and shares memory with argument #{other}: \
                         a Rust kernel writes only memory no other argument reads; pass a \
                         separate output"
                    ),
                ));
            }
        }
        self.set_writable();
        Ok(())
    }
}

impl Writable for Option<TensorView<'_>> {
    fn make_writable(&mut self, args: &[AnyView<'_>], index: usize) -> Result<()> {
        match self {
            Some(view) => view.make_writable(args, index),
            None => Ok(()),
        }
    }
}
