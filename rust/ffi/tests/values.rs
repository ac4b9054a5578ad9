//! Values and their conversions: what each Rust type reads and writes, and the errors.

use ffi::{Any, Array, Bytes, DataType, Device, Map, ObjectType, Shape};

#[test]
fn integers_read_as_every_type_they_fit() {
    let x = Any::from(300_i64);
    assert_eq!(x.type_name(), "int");
    assert_eq!(x.cast::<i64>().unwrap(), 300);
    assert_eq!(x.cast::<u16>().unwrap(), 300);
    assert_eq!(x.cast::<f64>().unwrap(), 300.0);
    assert!(x.try_as::<u8>().is_none(), "300 does not fit in u8");
    assert!(Any::from(-1).try_as::<u32>().is_none());
    assert_eq!(Any::from(i64::MIN).cast::<i64>().unwrap(), i64::MIN);
    assert_eq!(Any::from(true).cast::<i64>().unwrap(), 1);
    assert!(Any::from(1.5).try_as::<i64>().is_none(), "floats never read as ints");
}

#[test]
fn integers_beyond_i64_become_big_integers() {
    let big = Any::from(u64::MAX);
    assert_eq!(big.type_index(), ffi::sys::kTVMFFIBigInt);
    assert!(big.try_as::<i64>().is_none());
    assert_eq!(big.cast::<u64>().unwrap(), u64::MAX, "big integers of two words read back");
    assert_eq!(Any::from(u64::MAX - 5).cast::<u64>().unwrap(), u64::MAX - 5);
    let small = Any::from(u64::MAX / 2);
    assert_eq!(small.cast::<u64>().unwrap(), u64::MAX / 2);
}

#[test]
fn a_mismatch_is_a_type_error_naming_both_types() {
    let error = Any::from(3).cast::<String>().unwrap_err();
    assert_eq!(error.kind(), "TypeError");
    assert_eq!(error.message(), "Cannot convert from type `int` to `str`");
    let error = Any::from(300).cast::<u8>().unwrap_err();
    assert_eq!(
        error.message(),
        "Cannot convert from type `int` to `int`: the value 300 does not fit in `u8`"
    );
    let error = Any::from("x").cast::<ffi::Tensor>().unwrap_err();
    assert!(error.message().contains("`str` to `Tensor`"), "{}", error.message());
}

#[test]
fn floats_bools_and_none() {
    assert_eq!(Any::from(2.5_f32).cast::<f64>().unwrap(), 2.5);
    assert!(Any::from(f64::NAN).cast::<f64>().unwrap().is_nan());
    assert!(!Any::from(false).cast::<bool>().unwrap());
    assert!(Any::from(7).cast::<bool>().unwrap());
    assert_eq!(Any::from(true).cast::<f64>().unwrap(), 1.0, "bools read as floats, as in C++");
    assert!(Any::none().is_none());
    assert_eq!(Any::none().cast::<Option<i64>>().unwrap(), None);
    assert_eq!(Any::from(Some(4_i64)).cast::<Option<i64>>().unwrap(), Some(4));
    assert!(Any::from(None::<i64>).is_none());
    assert!(Any::none().try_as::<i64>().is_none());
    Any::none().cast::<()>().unwrap();
}

#[test]
fn strings_short_and_long_round_trip() {
    for text in
        ["", "a", "seven77", "eight888", "a longer string with ünïcödé ✓", &"x".repeat(10_000)]
    {
        let value = Any::from(text);
        assert_eq!(value.type_name(), "str");
        assert_eq!(value.cast::<String>().unwrap(), text);
        let ffi_string: ffi::String = value.cast().unwrap();
        assert_eq!(ffi_string.as_str(), text);
        assert_eq!(ffi_string.len(), text.len());
        let again = Any::from(ffi_string.clone());
        assert_eq!(again.cast::<String>().unwrap(), text);
    }
    assert_eq!(Any::from("seven77").type_index(), ffi::sys::kTVMFFISmallStr);
    assert_eq!(Any::from("eight888").type_index(), ffi::sys::kTVMFFIStr);
}

#[test]
fn bytes_round_trip_and_are_not_strings() {
    for data in [&b""[..], b"\x00\x01", b"0123456789abcdef\xff"] {
        let value = Any::from(Bytes::new(data));
        assert_eq!(value.type_name(), "bytes");
        assert_eq!(value.cast::<Bytes>().unwrap().as_bytes(), data);
        assert!(value.try_as::<String>().is_none());
    }
}

#[test]
fn devices_and_dtypes() {
    let d = Any::from(Device::cuda(3));
    assert_eq!(d.cast::<Device>().unwrap(), Device::cuda(3));
    assert_eq!(Device::cuda(3).to_string(), "cuda:3");
    assert_eq!(Device::cpu().to_string(), "cpu:0");
    let t: DataType = "int8x4".parse().unwrap();
    assert_eq!((t.code(), t.bits(), t.lanes()), (ffi::sys::kDLInt, 8, 4));
    assert_eq!(t.to_string(), "int8x4");
    assert_eq!(DataType::F32.to_string(), "float32");
    assert_eq!(DataType::BF16.to_string(), "bfloat16");
    assert_eq!(Any::from(DataType::F16).cast::<DataType>().unwrap(), DataType::F16);
    assert_eq!(Any::from("float64").cast::<DataType>().unwrap(), DataType::F64);
    // A dtype key finds its entry: the payload's unused bytes are zero.
    let map = Map::new([(DataType::F32, 1_i64), (DataType::I8, 2)]).unwrap();
    assert_eq!(map.get(DataType::F32).unwrap().unwrap().cast::<i64>().unwrap(), 1);
    assert_eq!(map.get(DataType::I8).unwrap().unwrap().cast::<i64>().unwrap(), 2);
    let error = DataType::parse("float33x").unwrap_err();
    assert_eq!(error.kind(), "ValueError", "{error}");
}

#[test]
fn arrays_hold_any_values_and_convert_to_vecs() {
    let array = Array::new([1_i64, 2, 3]).unwrap();
    assert_eq!(array.len(), 3);
    assert_eq!(array.to_vec::<i64>().unwrap(), vec![1, 2, 3]);
    assert_eq!(array.get(1).unwrap().cast::<i64>().unwrap(), 2);
    assert!(array.get(3).is_none());
    let value = Any::from(vec!["a".to_string(), "b".repeat(20)]);
    assert_eq!(value.type_name(), "Array");
    assert_eq!(value.cast::<Vec<String>>().unwrap(), vec!["a".to_string(), "b".repeat(20)]);
    assert!(value.try_as::<Vec<i64>>().is_none(), "strings are not ints");
    let mixed = Array::new([Any::from(1), Any::from("two"), Any::none()]).unwrap();
    assert_eq!(format!("{mixed:?}"), "[1, \"two\", None]");
    assert!(Array::new(Vec::<i64>::new()).unwrap().is_empty());
}

#[test]
fn maps_look_up_by_content_for_strings() {
    let map = Map::new([("one", 1_i64), ("two", 2), ("a long key, longer than seven", 3)]).unwrap();
    assert_eq!(map.len().unwrap(), 3);
    assert_eq!(map.get("two").unwrap().unwrap().cast::<i64>().unwrap(), 2);
    assert_eq!(
        map.get("a long key, longer than seven").unwrap().unwrap().cast::<i64>().unwrap(),
        3
    );
    assert!(map.get("three").unwrap().is_none());
    let mut items: Vec<(String, i64)> = map
        .items()
        .unwrap()
        .into_iter()
        .map(|(k, v)| (k.cast().unwrap(), v.cast().unwrap()))
        .collect();
    items.sort();
    assert_eq!(items[0], ("a long key, longer than seven".to_string(), 3));
    assert!(Map::new(Vec::<(i64, i64)>::new()).unwrap().items().unwrap().is_empty());
}

#[test]
fn shapes() {
    let shape = Shape::new(&[2, 3, 4]).unwrap();
    assert_eq!(shape.as_slice(), &[2, 3, 4]);
    let value = Any::from(shape);
    assert_eq!(value.type_name(), "Shape");
    assert_eq!(value.cast::<Shape>().unwrap().as_slice(), &[2, 3, 4]);
}

#[test]
fn objects_count_references_exactly() {
    let array = Array::new([1_i64]).unwrap();
    let obj = array.as_object();
    assert_eq!(obj.strong_count(), 1);
    let copy = array.clone();
    assert_eq!(obj.strong_count(), 2);
    let any = Any::from(&array);
    assert_eq!(obj.strong_count(), 3);
    let view = any.view();
    let back: Array = view.cast().unwrap();
    assert_eq!(obj.strong_count(), 4);
    assert!(back.as_object().same_as(obj));
    drop((copy, any, back));
    assert_eq!(obj.strong_count(), 1);
    assert_eq!(obj.type_key(), "ffi.Array");
    assert!(obj.is_instance_of(ffi::sys::kTVMFFIObject));
    assert!(!obj.is_instance_of(ffi::sys::kTVMFFIMap));
}

#[test]
fn debug_formatting_shows_values() {
    assert_eq!(format!("{:?}", Any::from(3)), "3");
    assert_eq!(format!("{:?}", Any::from("hi")), "\"hi\"");
    assert_eq!(format!("{:?}", Any::none()), "None");
    assert_eq!(format!("{:?}", Any::from(true)), "true");
}

#[test]
fn the_runtime_reports_its_abi_version() {
    let (major, minor, _) = ffi::runtime_version();
    assert_eq!((major, minor), (0, 1));
}
