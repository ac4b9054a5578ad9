//! `#[ffi::export]`: exports a Rust function as a kernel-library function of the ffi ABI.
//! Use it through the `ffi` crate (`ffi::export`), whose documentation describes it.
//!
//! Written on `proc_macro` alone (no `syn`): the attribute only needs a function's name, its
//! parameters' names and types, its return type and its doc comments, which a small scanner of
//! the token stream finds. Everything it cannot handle (generics, `self`, `async`, ...) is a
//! compile error saying so.

use proc_macro::{Delimiter, Spacing, TokenStream, TokenTree};

/// Exports the function as `__tvm_ffi_<name>` with its metadata (see `ffi::export`).
#[proc_macro_attribute]
pub fn export(attr: TokenStream, item: TokenStream) -> TokenStream {
    let source = item.clone();
    match expand(attr, item) {
        Ok(generated) => {
            let mut out = source;
            out.extend(generated.parse::<TokenStream>().expect("generated code parses"));
            out
        }
        Err(message) => {
            let mut out = source;
            let error =
                format!("compile_error!({});", rust_string(&format!("#[ffi::export]: {message}")));
            out.extend(error.parse::<TokenStream>().expect("compile_error parses"));
            out
        }
    }
}

/// A function parameter: its name (for keywords) and its type as source text.
struct Param {
    name: String,
    ty: String,
}

/// What the scanner found in the function.
struct Signature {
    fn_name: String,
    params: Vec<Param>,
    return_type: String,
    doc: Vec<String>,
}

fn expand(attr: TokenStream, item: TokenStream) -> Result<String, String> {
    let sig = scan_function(item)?;
    let export_name = export_name(attr)?.unwrap_or_else(|| sig.fn_name.clone());
    Ok(generate(&sig, &export_name))
}

/// `name = "..."`, or nothing.
fn export_name(attr: TokenStream) -> Result<Option<String>, String> {
    let tokens: Vec<TokenTree> = attr.into_iter().collect();
    if tokens.is_empty() {
        return Ok(None);
    }
    match tokens.as_slice() {
        [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(value)]
            if key.to_string() == "name" && eq.as_char() == '=' =>
        {
            let name = unquote(&value.to_string()).ok_or("`name` takes a string literal")?;
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("export name {name:?} must be letters, digits and `_`"));
            }
            Ok(Some(name))
        }
        _ => Err("expected `#[ffi::export]` or `#[ffi::export(name = \"...\")]`".into()),
    }
}

/// The text of a plain string literal `"..."` (escapes other than `\"` and `\\` refused).
fn unquote(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.replace("\\\"", "\"").replace("\\\\", "\\"))
}

fn scan_function(item: TokenStream) -> Result<Signature, String> {
    let tokens: Vec<TokenTree> = item.into_iter().collect();
    let mut i = 0;
    let mut doc = Vec::new();
    // Attributes: keep doc comments (`#[doc = "..."]`), pass the rest through untouched.
    while let Some(TokenTree::Punct(p)) = tokens.get(i) {
        if p.as_char() != '#' {
            break;
        }
        if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            if let [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(text)] =
                inner.as_slice()
            {
                if key.to_string() == "doc" && eq.as_char() == '=' {
                    doc.push(doc_line(&text.to_string()));
                }
            }
        }
        i += 2;
    }
    // Visibility and qualifiers up to `fn`.
    loop {
        match tokens.get(i) {
            Some(TokenTree::Ident(id)) if id.to_string() == "fn" => break,
            Some(TokenTree::Ident(id)) if id.to_string() == "pub" => {
                i += 1;
                if let Some(TokenTree::Group(g)) = tokens.get(i) {
                    if g.delimiter() == Delimiter::Parenthesis {
                        i += 1;
                    }
                }
            }
            Some(TokenTree::Ident(id)) => {
                return Err(format!("`{id}` functions cannot be exported; write a plain `fn`"));
            }
            _ => return Err("expected a function".into()),
        }
    }
    i += 1;
    let fn_name = match tokens.get(i) {
        Some(TokenTree::Ident(id)) => id.to_string().trim_start_matches("r#").to_string(),
        _ => return Err("expected the function's name".into()),
    };
    i += 1;
    if let Some(TokenTree::Punct(p)) = tokens.get(i) {
        if p.as_char() == '<' {
            return Err(
                "generic functions cannot be exported: one symbol needs one signature".into()
            );
        }
    }
    let params = match tokens.get(i) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
            scan_params(g.stream())?
        }
        _ => return Err("expected the parameter list".into()),
    };
    i += 1;
    // `-> Type` up to the body.
    let mut return_type = String::from("()");
    if let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
        (tokens.get(i), tokens.get(i + 1))
    {
        if a.as_char() == '-' && b.as_char() == '>' {
            let mut ty = TokenStream::new();
            i += 2;
            while let Some(t) = tokens.get(i) {
                match t {
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                    TokenTree::Ident(id) if id.to_string() == "where" => {
                        return Err("`where` clauses cannot be exported".into());
                    }
                    _ => ty.extend([t.clone()]),
                }
                i += 1;
            }
            return_type = ty.to_string();
        }
    }
    match tokens.get(i) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {}
        Some(TokenTree::Ident(id)) if id.to_string() == "where" => {
            return Err("`where` clauses cannot be exported".into())
        }
        _ => return Err("expected the function's body".into()),
    }
    Ok(Signature { fn_name, params, return_type, doc })
}

/// The text of a doc comment line (`/// text` arrives as `#[doc = " text"]`, a string literal
/// whose escapes are undone here, or a raw string literal taken as it is).
fn doc_line(literal: &str) -> String {
    let text = match literal.strip_prefix('r') {
        Some(raw) => {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            raw[hashes..raw.len() - hashes].trim_matches('"').to_string()
        }
        None => unescape(literal.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or("")),
    };
    text.strip_prefix(' ').map(str::to_string).unwrap_or(text)
}

/// The value of a string literal's body: each escape (`\n`, `\t`, `\\`, `\"`, `\u{..}`, ...)
/// decoded once, left to right.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.extend(u8::from_str_radix(&hex, 16).ok().map(char::from));
            }
            Some('u') => {
                let code: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                out.extend(u32::from_str_radix(&code, 16).ok().and_then(char::from_u32));
            }
            // A line continuation: the newline and the next line's leading whitespace go.
            Some('\n') => {
                let rest: String = chars.clone().collect();
                let trimmed = rest.trim_start();
                chars = body[body.len() - trimmed.len()..].chars();
            }
            Some(other) => out.push(other), // \\ \" \'
            None => out.push('\\'),
        }
    }
    out
}

/// Splits `a: A, mut b: Vec<(B, C)>` at the top-level commas into names and types.
fn scan_params(stream: TokenStream) -> Result<Vec<Param>, String> {
    let mut params = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut depth = 0_i32; // angle brackets: `Map<K, V>` holds a comma
    let mut previous_dash = false;
    for t in stream {
        let mut split = false;
        if let TokenTree::Punct(p) = &t {
            match p.as_char() {
                '<' => depth += 1,
                '>' if !previous_dash => depth -= 1,
                ',' if depth == 0 => split = true,
                _ => {}
            }
            previous_dash = p.as_char() == '-' && p.spacing() == Spacing::Joint;
        } else {
            previous_dash = false;
        }
        if split {
            params.push(scan_param(std::mem::take(&mut current), params.len())?);
        } else {
            current.push(t);
        }
    }
    if !current.is_empty() {
        params.push(scan_param(current, params.len())?);
    }
    Ok(params)
}

/// `mut name: Type` (or `_: Type`) into a name and the type's text.
fn scan_param(tokens: Vec<TokenTree>, index: usize) -> Result<Param, String> {
    let colon = tokens.iter().enumerate().position(|(k, t)| match t {
        TokenTree::Punct(p) if p.as_char() == ':' => {
            let joint_before = k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(q) if q.as_char() == ':' && q.spacing() == Spacing::Joint);
            p.spacing() == Spacing::Alone && !joint_before
        }
        _ => false,
    });
    let colon = match colon {
        Some(c) => c,
        None => {
            let text: TokenStream = tokens.into_iter().collect();
            return Err(format!(
                "`{text}`: methods (`self`) and untyped parameters cannot be exported"
            ));
        }
    };
    let mut name = None;
    for t in &tokens[..colon] {
        match t {
            TokenTree::Ident(id) if id.to_string() != "mut" && id.to_string() != "ref" => {
                name = Some(id.to_string())
            }
            TokenTree::Ident(_) => {}
            TokenTree::Punct(p) if p.as_char() == '_' => name = Some("_".into()),
            other => {
                return Err(format!("parameter pattern `{other}` cannot be exported; use a name"))
            }
        }
    }
    let name = match name {
        Some(n) if n != "_" => n.trim_start_matches("r#").trim_start_matches('_').to_string(),
        _ => String::new(),
    };
    let name = if name.is_empty() { format!("arg{index}") } else { name };
    let ty: TokenStream = tokens[colon + 1..].iter().cloned().collect();
    if ty.is_empty() {
        return Err(format!("parameter `{name}` has no type"));
    }
    Ok(Param { name, ty: ty.to_string() })
}

/// Whether a parameter's type (as token text) is an `Option`.
fn is_option(ty: &str) -> bool {
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    ["Option<", "std::option::Option<", "::std::option::Option<", "core::option::Option<"]
        .iter()
        .any(|prefix| compact.starts_with(prefix))
}

/// Whether a parameter's type (as token text) is `&str` (any lifetime).
fn is_str_ref(ty: &str) -> bool {
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    compact == "&str"
        || (compact.starts_with("&'") && compact.ends_with("str") && {
            let lifetime = &compact[2..compact.len() - 3];
            !lifetime.is_empty() && lifetime.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// A Rust string literal holding `text`.
fn rust_string(text: &str) -> String {
    format!("{text:?}")
}

fn generate(sig: &Signature, export: &str) -> String {
    let n = sig.params.len();
    let ret = &sig.return_type;
    let params: Vec<String> = sig
        .params
        .iter()
        .map(|p| {
            let ty = if is_str_ref(&p.ty) { "::std::string::String" } else { p.ty.as_str() };
            format!(
                "::ffi::export::Param {{ name: {name}, type_name: <{ty} as ::ffi::TypeName>::type_name(), \
                 type_schema: <{ty} as ::ffi::TypeName>::type_schema() }}",
                name = rust_string(&p.name),
            )
        })
        .collect();
    let params = params.join(", ");
    let converts: String = sig
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let name = rust_string(export);
            if is_str_ref(&p.ty) {
                // `&str`: converted to an owned String, lent for the call.
                format!(
                    "let __o{k}: ::std::string::String = \
                     ::ffi::export::convert_arg(__args, {k}, {name}, &__signature)?;\n\
                     let __a{k}: &str = &__o{k};\n"
                )
            } else {
                format!(
                    "let __a{k}: {ty} = ::ffi::export::convert_arg(__args, {k}, {name}, &__signature)?;\n",
                    ty = p.ty
                )
            }
        })
        .collect();
    let call_args: Vec<String> = (0..n).map(|k| format!("__a{k}")).collect();
    let fn_name = &sig.fn_name;
    // Trailing `Option<T>` parameters may be omitted by callers (they receive None).
    let required = sig.params.iter().rposition(|p| !is_option(&p.ty)).map_or(0, |k| k + 1);
    let export_lit = rust_string(export);
    let mut out = format!(
        r#"
#[doc(hidden)]
#[allow(non_snake_case, clippy::all)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __tvm_ffi_{export}(
    _handle: *mut ::std::ffi::c_void,
    __raw_args: *const ::ffi::sys::TVMFFIAny,
    __num_args: i32,
    __result: *mut ::ffi::sys::TVMFFIAny,
) -> ::std::ffi::c_int {{
    unsafe {{
        ::ffi::export::safe_call(__result, || {{
            let __args = ::ffi::AnyView::slice_from_raw(__raw_args, __num_args);
            let __signature = || ::ffi::export::signature(
                &[{params}],
                &<{ret} as ::ffi::IntoCallResult>::return_type_name(),
            );
            let __args = ::ffi::export::fill_optional(__args, {required}, {n}, {export_lit}, &__signature)?;
            let __args: &[::ffi::AnyView<'_>] = &__args;
            {converts}
            ::ffi::IntoCallResult::into_call_result({fn_name}({call_args}))
        }})
    }}
}}

#[doc(hidden)]
#[allow(non_snake_case, clippy::all)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __tvm_ffi__metadata_{export}(
    _handle: *mut ::std::ffi::c_void,
    _args: *const ::ffi::sys::TVMFFIAny,
    _num_args: i32,
    __result: *mut ::ffi::sys::TVMFFIAny,
) -> ::std::ffi::c_int {{
    let __text = ::ffi::export::metadata(
        {export_lit},
        &[{params}],
        {required},
        &<{ret} as ::ffi::IntoCallResult>::return_type_name(),
        &<{ret} as ::ffi::IntoCallResult>::return_type_schema(),
    );
    unsafe {{ ::ffi::export::return_text(__result, __text) }}
}}
"#,
        call_args = call_args.join(", "),
    );
    if !sig.doc.is_empty() {
        let text = sig.doc.join("\n").trim().to_string();
        out.push_str(&format!(
            r#"
#[doc(hidden)]
#[allow(non_snake_case, clippy::all)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __tvm_ffi__doc_{export}(
    _handle: *mut ::std::ffi::c_void,
    _args: *const ::ffi::sys::TVMFFIAny,
    _num_args: i32,
    __result: *mut ::ffi::sys::TVMFFIAny,
) -> ::std::ffi::c_int {{
    unsafe {{ ::ffi::export::return_text(__result, ::std::string::String::from({doc})) }}
}}
"#,
            doc = rust_string(&text)
        ));
    }
    out
}
