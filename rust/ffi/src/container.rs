//! Containers: [`Array`] (immutable sequence), [`Map`] (immutable hash map) and [`Shape`].
//!
//! They are the runtime's own objects, so a kernel written in C++ or a Python caller reads them
//! as its own types. Construction goes through the runtime's standard global functions
//! (`ffi.Array`, `ffi.Map`, `ffi.Shape`); an Array's elements and a Shape's extents are read in
//! place.

use crate::any::{Any, AnyView, FromAny, IntoAny, TypeName};
use crate::error::Result;
use crate::function::{global, Function};
use crate::object::object_wrapper;
use crate::sys;

object_wrapper!(
    /// An immutable sequence of values (`ffi.Array`; a Python `list` converts to one).
    Array,
    sys::kTVMFFIArray,
    "Array",
    "ffi.Array"
);

object_wrapper!(
    /// An immutable hash map (`ffi.Map`; a Python `dict` converts to one).
    Map,
    sys::kTVMFFIMap,
    "Map",
    "ffi.Map"
);

object_wrapper!(
    /// An immutable list of extents (`ffi.Shape`).
    Shape,
    sys::kTVMFFIShape,
    "Shape",
    "ffi.Shape"
);

impl Array {
    /// An array of `values`.
    pub fn new<T: IntoAny>(values: impl IntoIterator<Item = T>) -> Result<Array> {
        let args: Vec<Any> = values.into_iter().map(IntoAny::into_any).collect();
        global!("ffi.Array")?.call(&args)?.cast()
    }

    #[inline]
    fn cell(&self) -> &sys::TVMFFISeqCell {
        unsafe { &*self.0.cell::<sys::TVMFFISeqCell>() }
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.cell().size.max(0) as usize
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`, borrowed, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<AnyView<'_>> {
        (i < self.len()).then(|| unsafe {
            AnyView::from_raw(*(self.cell().data as *const sys::TVMFFIAny).add(i))
        })
    }

    /// The elements, borrowed.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = AnyView<'_>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    /// The elements converted to `T` (a `TypeError` at the first that is not one).
    pub fn to_vec<T: for<'x> FromAny<'x>>(&self) -> Result<Vec<T>> {
        self.iter().map(|v| v.cast::<T>()).collect()
    }
}

impl Map {
    /// A map of `pairs` (a later duplicate key replaces an earlier one).
    pub fn new<K: IntoAny, V: IntoAny>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Map> {
        let mut args = Vec::new();
        for (k, v) in pairs {
            args.push(k.into_any());
            args.push(v.into_any());
        }
        global!("ffi.Map")?.call(&args)?.cast()
    }

    /// Number of entries.
    pub fn len(&self) -> Result<usize> {
        Ok(global!("ffi.MapSize")?.invoke((self,))?.cast::<i64>()? as usize)
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The value under `key`, if any (keys compare as the runtime compares them: strings by
    /// content, objects by identity).
    pub fn get(&self, key: impl IntoAny) -> Result<Option<Any>> {
        let key = key.into_any();
        if global!("ffi.MapCount")?.invoke((self, &key))?.cast::<i64>()? == 0 {
            return Ok(None);
        }
        global!("ffi.MapGetItem")?.invoke((self, &key)).map(Some)
    }

    /// The entries, in the map's iteration order.
    pub fn items(&self) -> Result<Vec<(Any, Any)>> {
        let mut out = Vec::new();
        if self.is_empty()? {
            return Ok(out);
        }
        let next: Function = global!("ffi.MapForwardIterFunctor")?.invoke((self,))?.cast()?;
        loop {
            out.push((next.invoke((0_i64,))?, next.invoke((1_i64,))?));
            if !next.invoke((2_i64,))?.cast::<bool>()? {
                return Ok(out);
            }
        }
    }
}

impl Shape {
    /// A shape of `extents`.
    pub fn new(extents: &[i64]) -> Result<Shape> {
        let args: Vec<Any> = extents.iter().map(|&d| d.into_any()).collect();
        global!("ffi.Shape")?.call(&args)?.cast()
    }

    /// The extents.
    pub fn as_slice(&self) -> &[i64] {
        let cell = unsafe { &*self.0.cell::<sys::TVMFFIShapeCell>() };
        if cell.size == 0 {
            &[]
        } else {
            unsafe { std::slice::from_raw_parts(cell.data, cell.size) }
        }
    }
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::fmt::Debug for Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.items() {
            Ok(items) => f.debug_map().entries(items.iter().map(|(k, v)| (k, v))).finish(),
            Err(e) => write!(f, "Map(<{e}>)"),
        }
    }
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shape({:?})", self.as_slice())
    }
}

impl<T: TypeName> TypeName for Vec<T> {
    fn type_name() -> std::string::String {
        format!("Array<{}>", T::type_name())
    }
    fn type_schema() -> std::string::String {
        format!(r#"{{"type":"ffi.Array","args":[{}]}}"#, T::type_schema())
    }
}

impl<'a, T: for<'x> FromAny<'x>> FromAny<'a> for Vec<T> {
    /// An Array whose elements all convert to `T`.
    fn from_any(value: AnyView<'a>) -> Option<Self> {
        Array::from_any(value)?.to_vec().ok()
    }
}

impl<T: IntoAny> IntoAny for Vec<T> {
    /// An Array (allocation failures abort, as for any Rust allocation).
    fn into_any(self) -> Any {
        Array::new(self).map(IntoAny::into_any).expect("ffi.Array builds an array")
    }
}
