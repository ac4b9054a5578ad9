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
    /// Bound `mut`: a `TensorView` parameter so bound is made writable.
    mutable: bool,
}

/// What the scanner found in the function.
struct Signature {
    fn_name: String,
    params: Vec<Param>,
    return_type: String,
    doc: Vec<String>,
    /// The function's `#[cfg(...)]` attributes, repeated on the exports so that they exist
    /// exactly when the function does.
    cfgs: Vec<String>,
}

fn expand(attr: TokenStream, item: TokenStream) -> Result<String, String> {
    let sig = scan_function(item)?;
    let options = options(attr)?;
    let export_name =
        options.name.unwrap_or_else(|| sig.fn_name.trim_start_matches("r#").to_string());
    if !export_name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "the export name {export_name:?} must be ASCII letters, digits and `_`: \
             choose one with `#[ffi::export(name = \"...\")]`"
        ));
    }
    let generated = generate(&sig, &export_name);
    // The generated code names the crate `::ffi`; a crate depending on it under another name
    // says which (`crate = "my_ffi"`).
    Ok(match options.krate {
        // `::std::ffi::` (c_void, c_int) stays: only the paths into this crate change.
        Some(krate) => generated
            .replace("::std::ffi::", "\u{0}")
            .replace("::ffi::", &format!("::{krate}::"))
            .replace('\u{0}', "::std::ffi::"),
        None => generated,
    })
}

/// The attribute's options: `name = "..."` and `crate = "..."`, comma-separated.
#[derive(Default)]
struct Options {
    name: Option<String>,
    krate: Option<String>,
}

fn options(attr: TokenStream) -> Result<Options, String> {
    const USAGE: &str = "expected `#[ffi::export]`, `#[ffi::export(name = \"...\")]` or \
                         `#[ffi::export(crate = \"...\")]`";
    let tokens: Vec<TokenTree> = attr.into_iter().collect();
    let mut options = Options::default();
    for option in tokens.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        let (key, value) = match option {
            [] => continue,
            [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(value)]
                if eq.as_char() == '=' =>
            {
                let value = unquote(&value.to_string())
                    .ok_or_else(|| format!("`{key}` takes a string literal"))?;
                (key.to_string(), value)
            }
            _ => return Err(USAGE.into()),
        };
        let identifier =
            !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        match key.as_str() {
            "name" if identifier => options.name = Some(value),
            "name" => return Err(format!("export name {value:?} must be letters, digits and `_`")),
            "crate" if identifier => options.krate = Some(value),
            "crate" => return Err(format!("crate name {value:?} must be letters, digits and `_`")),
            _ => return Err(USAGE.into()),
        }
    }
    Ok(options)
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
    let mut cfgs = Vec::new();
    // Attributes: keep doc comments (`#[doc = "..."]`), pass the rest through untouched.
    while let Some(TokenTree::Punct(p)) = tokens.get(i) {
        if p.as_char() != '#' {
            break;
        }
        if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            if matches!(inner.first(), Some(TokenTree::Ident(key)) if key.to_string() == "cfg") {
                cfgs.push(format!("#[{}]", g.stream()));
            }
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
            // A `const fn` is an ordinary function when called at run time.
            Some(TokenTree::Ident(id)) if id.to_string() == "const" => i += 1,
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
    // As written (`r#match` stays raw, to call it); the export name drops the `r#`.
    let fn_name = match tokens.get(i) {
        Some(TokenTree::Ident(id)) => id.to_string(),
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
    Ok(Signature { fn_name, params, return_type, doc, cfgs })
}

/// The text of a doc comment line (`/// text` arrives as `#[doc = " text"]`, a string literal
/// whose escapes are undone here, or a raw string literal taken as it is).
fn doc_line(literal: &str) -> String {
    let text = match literal.strip_prefix('r') {
        Some(raw) => {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            let quoted = &raw[hashes..raw.len() - hashes];
            quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')).unwrap_or(quoted).to_string()
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

/// `mut name: Type` (or `_: Type`, attributes first) into a name and the type's text.
fn scan_param(tokens: Vec<TokenTree>, index: usize) -> Result<Param, String> {
    // Attributes on the parameter (`#[allow(unused)] x: i64`) stay on the function; skip them.
    let mut start = 0;
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(_))) =
        (tokens.get(start), tokens.get(start + 1))
    {
        if p.as_char() != '#' {
            break;
        }
        start += 2;
    }
    let tokens = &tokens[start..];
    let colon = tokens.iter().enumerate().position(|(k, t)| match t {
        TokenTree::Punct(p) if p.as_char() == ':' => {
            let joint_before = k > 0
                && matches!(&tokens[k - 1], TokenTree::Punct(q) if q.as_char() == ':' && q.spacing() == Spacing::Joint);
            p.spacing() == Spacing::Alone && !joint_before
        }
        _ => false,
    });
    let colon = match colon {
        Some(c) => c,
        None => {
            let text: TokenStream = tokens.iter().cloned().collect();
            return Err(format!(
                "`{text}`: methods (`self`) and untyped parameters cannot be exported"
            ));
        }
    };
    let mut name = None;
    let mut mutable = false;
    for t in &tokens[..colon] {
        match t {
            TokenTree::Ident(id) if id.to_string() == "mut" => mutable = true,
            TokenTree::Ident(id) if id.to_string() == "ref" => {}
            TokenTree::Ident(id) => name = Some(id.to_string()),
            TokenTree::Punct(p) if p.as_char() == '_' => name = Some("_".into()),
            other => {
                return Err(format!("parameter pattern `{other}` cannot be exported; use a name"))
            }
        }
    }
    // The keyword hosts use: the name as written (without `r#`); `_` gets a positional name.
    let name = match name.as_deref().map(|n| n.trim_start_matches("r#")) {
        Some(n) if n != "_" => n.to_string(),
        _ => format!("arg{index}"),
    };
    let ty: TokenStream = tokens[colon + 1..].iter().cloned().collect();
    if ty.is_empty() {
        return Err(format!("parameter `{name}` has no type"));
    }
    Ok(Param { name, ty: ty.to_string(), mutable })
}

/// Whether a parameter's type (as token text) is an `Option`.
fn is_option(ty: &str) -> bool {
    let compact = compact(ty);
    ["Option<", "std::option::Option<", "::std::option::Option<", "core::option::Option<"]
        .iter()
        .any(|prefix| compact.starts_with(prefix))
}

/// The token text of a type without whitespace (how `to_string` spaces tokens varies).
fn compact(ty: &str) -> String {
    ty.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether a parameter's type is `&str` or `&'_ str` (a longer-lived `&'static str` cannot
/// borrow from a call's argument).
fn is_str_ref(ty: &str) -> bool {
    matches!(compact(ty).as_str(), "&str" | "&'_str")
}

/// Whether a parameter's type is `Option<&str>`.
fn is_optional_str_ref(ty: &str) -> bool {
    matches!(compact(ty).as_str(), "Option<&str>" | "Option<&'_str>")
}

/// Whether a parameter's type (as token text) is a tensor view (made writable when bound `mut`).
fn is_tensor_view(ty: &str) -> bool {
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|word| word == "TensorView")
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
            let ty = if is_str_ref(&p.ty) {
                "::std::string::String"
            } else if is_optional_str_ref(&p.ty) {
                "::std::option::Option<::std::string::String>"
            } else {
                p.ty.as_str()
            };
            format!(
                "::ffi::export::Param {{ name: {name}, type_name: <{ty} as ::ffi::TypeName>::type_name(), \
                 type_schema: <{ty} as ::ffi::TypeName>::type_schema() }}",
                name = rust_string(&p.name),
            )
        })
        .collect();
    let params = params.join(", ");
    let export_lit = rust_string(export);
    let converts: String = sig
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let convert = format!(
                "::ffi::export::convert_arg(__ffi_args, {k}, {export_lit}, &__ffi_signature)?"
            );
            if is_optional_str_ref(&p.ty) {
                // `Option<&str>`: an owned Option<String>, lent for the call.
                format!(
                    "let __ffi_o{k}: ::std::option::Option<::std::string::String> = {convert};\n\
                     let __ffi_a{k}: ::std::option::Option<&str> = __ffi_o{k}.as_deref();\n"
                )
            } else if is_str_ref(&p.ty) {
                // `&str`: converted to an owned String, lent for the call.
                format!(
                    "let __ffi_o{k}: ::std::string::String = {convert};\n\
                     let __ffi_a{k}: &str = &__ffi_o{k};\n"
                )
            } else if p.mutable && is_tensor_view(&p.ty) {
                // A `mut` tensor view is written: writable once no other argument shares its
                // memory.
                format!(
                    "let mut __ffi_a{k}: {ty} = {convert};\n\
                     ::ffi::export::Writable::make_writable(&mut __ffi_a{k}, __ffi_args, {k})?;\n",
                    ty = p.ty
                )
            } else {
                format!("let __ffi_a{k}: {ty} = {convert};\n", ty = p.ty)
            }
        })
        .collect();
    let call_args: Vec<String> = (0..n).map(|k| format!("__ffi_a{k}")).collect();
    let fn_name = &sig.fn_name;
    // Trailing `Option<T>` parameters may be omitted by callers (they receive None).
    let required = sig.params.iter().rposition(|p| !is_option(&p.ty)).map_or(0, |k| k + 1);
    let attrs = format!(
        "{}\n#[doc(hidden)]\n#[allow(non_snake_case, unsafe_code, clippy::all)]\n#[unsafe(no_mangle)]",
        sig.cfgs.join("\n")
    );
    let signature =
        "_handle: *mut ::std::ffi::c_void, __ffi_raw_args: *const ::ffi::sys::TVMFFIAny, \
                     __ffi_num_args: i32, __ffi_result: *mut ::ffi::sys::TVMFFIAny";
    let mut out = format!(
        r#"
{attrs}
pub unsafe extern "C" fn __tvm_ffi_{export}({signature}) -> ::std::ffi::c_int {{
    // The arguments' lifetime is this function's parameter: no view can be kept past the call.
    fn __ffi_body<'__ffi_a>(
        __ffi_args: &'__ffi_a [::ffi::AnyView<'__ffi_a>],
    ) -> ::ffi::Result<::ffi::Any> {{
        let __ffi_signature = || ::ffi::export::signature(
            &[{params}],
            &<{ret} as ::ffi::IntoCallResult>::return_type_name(),
        );
        let __ffi_args =
            ::ffi::export::fill_optional(__ffi_args, {required}, {n}, {export_lit}, &__ffi_signature)?;
        let __ffi_args: &[::ffi::AnyView<'__ffi_a>] = &__ffi_args;
        {converts}
        ::ffi::IntoCallResult::into_call_result({fn_name}({call_args}))
    }}
    unsafe {{
        ::ffi::export::safe_call(__ffi_result, || {{
            __ffi_body(::ffi::AnyView::slice_from_raw(__ffi_raw_args, __ffi_num_args))
        }})
    }}
}}

{attrs}
pub unsafe extern "C" fn __tvm_ffi__metadata_{export}({signature}) -> ::std::ffi::c_int {{
    let _ = (__ffi_raw_args, __ffi_num_args);
    unsafe {{
        ::ffi::export::safe_call(__ffi_result, || {{
            ::std::result::Result::Ok(::ffi::Any::from(::ffi::export::metadata(
                {export_lit},
                &[{params}],
                {required},
                &<{ret} as ::ffi::IntoCallResult>::return_type_name(),
                &<{ret} as ::ffi::IntoCallResult>::return_type_schema(),
            )))
        }})
    }}
}}
"#,
        call_args = call_args.join(", "),
    );
    if !sig.doc.is_empty() {
        let text = sig.doc.join("\n").trim().to_string();
        out.push_str(&format!(
            r#"
{attrs}
pub unsafe extern "C" fn __tvm_ffi__doc_{export}({signature}) -> ::std::ffi::c_int {{
    let _ = (__ffi_raw_args, __ffi_num_args);
    unsafe {{
        ::ffi::export::safe_call(__ffi_result, || {{
            ::std::result::Result::Ok(::ffi::Any::from({doc}))
        }})
    }}
}}
"#,
            doc = rust_string(&text)
        ));
    }
    out
}
