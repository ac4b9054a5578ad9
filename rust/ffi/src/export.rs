//! What `#[ffi::export]` expands to calls: argument checks, metadata and the safe-call frame.
//! Not a public interface: the macro and this module change together.

use std::borrow::Cow;
use std::ffi::c_int;

use crate::any::{Any, AnyView};
use crate::error::{Error, Result};
pub use crate::function::{convert_arg, safe_call, IntoCallResult};
use crate::sys;

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
    let parts: Vec<std::string::String> =
        params.iter().enumerate().map(|(i, p)| format!("{i}: {}", p.type_name)).collect();
    format!("({}) -> {}", parts.join(", "), return_type)
}

/// The arguments with omitted trailing optional ones filled in as None: between `required` and
/// `total` arguments are accepted (a `TypeError` naming the function otherwise).
pub fn fill_optional<'a>(
    args: &'a [AnyView<'a>],
    required: usize,
    total: usize,
    name: &str,
    signature: &dyn Fn() -> std::string::String,
) -> Result<Cow<'a, [AnyView<'a>]>> {
    if args.len() == total {
        return Ok(Cow::Borrowed(args));
    }
    if args.len() < required || args.len() > total {
        let expected =
            if required == total { format!("{total}") } else { format!("{required} to {total}") };
        return Err(Error::new(
            "TypeError",
            format!(
                "Mismatched number of arguments when calling: `{name}{}`. Expected {expected} but got {} arguments",
                signature(),
                args.len()
            ),
        ));
    }
    let mut filled = args.to_vec();
    filled.resize(total, AnyView::none());
    Ok(Cow::Owned(filled))
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

/// Returns `text` from a safe call as a String the runtime allocates (it outlives the library).
///
/// # Safety
/// `result` must point to a value the caller initialised to None.
pub unsafe fn return_text(result: *mut sys::TVMFFIAny, text: std::string::String) -> c_int {
    safe_call(result, || Ok(Any::from(text)))
}
