//! The declarations' layouts against the C headers themselves: a C program built with the
//! repository's headers prints each struct's size and each field's offset (`offsetof`), and
//! every one must equal what Rust computes for the declaration here.

use std::mem::{offset_of, size_of};
use std::path::PathBuf;
use std::process::Command;

use ffi_sys::*;

const PROBE: &str = r#"
#include <ffi/c_api.h>
#include <stddef.h>
#include <stdio.h>
int main(void) {
  printf("TVMFFIAny (sizeof) %zu\n", sizeof(TVMFFIAny));
  printf("TVMFFIAny type_index %zu\n", offsetof(TVMFFIAny, type_index));
  printf("TVMFFIAny small_str_len %zu\n", offsetof(TVMFFIAny, small_str_len));
  printf("TVMFFIAny v_int64 %zu\n", offsetof(TVMFFIAny, v_int64));
  printf("TVMFFIObject (sizeof) %zu\n", sizeof(TVMFFIObject));
  printf("TVMFFIObject combined_ref_count %zu\n", offsetof(TVMFFIObject, combined_ref_count));
  printf("TVMFFIObject type_index %zu\n", offsetof(TVMFFIObject, type_index));
  printf("TVMFFIObject __padding %zu\n", offsetof(TVMFFIObject, __padding));
  printf("TVMFFIObject deleter %zu\n", offsetof(TVMFFIObject, deleter));
  printf("TVMFFIByteArray (sizeof) %zu\n", sizeof(TVMFFIByteArray));
  printf("TVMFFIByteArray data %zu\n", offsetof(TVMFFIByteArray, data));
  printf("TVMFFIByteArray size %zu\n", offsetof(TVMFFIByteArray, size));
  printf("TVMFFIShapeCell (sizeof) %zu\n", sizeof(TVMFFIShapeCell));
  printf("TVMFFIShapeCell data %zu\n", offsetof(TVMFFIShapeCell, data));
  printf("TVMFFIShapeCell size %zu\n", offsetof(TVMFFIShapeCell, size));
  printf("TVMFFISeqCell (sizeof) %zu\n", sizeof(TVMFFISeqCell));
  printf("TVMFFISeqCell data %zu\n", offsetof(TVMFFISeqCell, data));
  printf("TVMFFISeqCell size %zu\n", offsetof(TVMFFISeqCell, size));
  printf("TVMFFISeqCell capacity %zu\n", offsetof(TVMFFISeqCell, capacity));
  printf("TVMFFISeqCell data_deleter %zu\n", offsetof(TVMFFISeqCell, data_deleter));
  printf("TVMFFIErrorCell (sizeof) %zu\n", sizeof(TVMFFIErrorCell));
  printf("TVMFFIErrorCell kind %zu\n", offsetof(TVMFFIErrorCell, kind));
  printf("TVMFFIErrorCell message %zu\n", offsetof(TVMFFIErrorCell, message));
  printf("TVMFFIErrorCell backtrace %zu\n", offsetof(TVMFFIErrorCell, backtrace));
  printf("TVMFFIErrorCell update_backtrace %zu\n", offsetof(TVMFFIErrorCell, update_backtrace));
  printf("TVMFFIErrorCell cause_chain %zu\n", offsetof(TVMFFIErrorCell, cause_chain));
  printf("TVMFFIErrorCell extra_context %zu\n", offsetof(TVMFFIErrorCell, extra_context));
  printf("TVMFFIFunctionCell (sizeof) %zu\n", sizeof(TVMFFIFunctionCell));
  printf("TVMFFIFunctionCell safe_call %zu\n", offsetof(TVMFFIFunctionCell, safe_call));
  printf("TVMFFIFunctionCell cpp_call %zu\n", offsetof(TVMFFIFunctionCell, cpp_call));
  printf("TVMFFITypeInfo (sizeof) %zu\n", sizeof(TVMFFITypeInfo));
  printf("TVMFFITypeInfo type_index %zu\n", offsetof(TVMFFITypeInfo, type_index));
  printf("TVMFFITypeInfo type_depth %zu\n", offsetof(TVMFFITypeInfo, type_depth));
  printf("TVMFFITypeInfo type_key %zu\n", offsetof(TVMFFITypeInfo, type_key));
  printf("TVMFFITypeInfo type_ancestors %zu\n", offsetof(TVMFFITypeInfo, type_ancestors));
  printf("TVMFFITypeInfo type_key_hash %zu\n", offsetof(TVMFFITypeInfo, type_key_hash));
  printf("TVMFFITypeInfo num_fields %zu\n", offsetof(TVMFFITypeInfo, num_fields));
  printf("TVMFFITypeInfo num_methods %zu\n", offsetof(TVMFFITypeInfo, num_methods));
  printf("TVMFFITypeInfo fields %zu\n", offsetof(TVMFFITypeInfo, fields));
  printf("TVMFFITypeInfo methods %zu\n", offsetof(TVMFFITypeInfo, methods));
  printf("TVMFFITypeInfo metadata %zu\n", offsetof(TVMFFITypeInfo, metadata));
  printf("TVMFFIFieldInfo (sizeof) %zu\n", sizeof(TVMFFIFieldInfo));
  printf("TVMFFIFieldInfo name %zu\n", offsetof(TVMFFIFieldInfo, name));
  printf("TVMFFIFieldInfo doc %zu\n", offsetof(TVMFFIFieldInfo, doc));
  printf("TVMFFIFieldInfo metadata %zu\n", offsetof(TVMFFIFieldInfo, metadata));
  printf("TVMFFIFieldInfo flags %zu\n", offsetof(TVMFFIFieldInfo, flags));
  printf("TVMFFIFieldInfo size %zu\n", offsetof(TVMFFIFieldInfo, size));
  printf("TVMFFIFieldInfo alignment %zu\n", offsetof(TVMFFIFieldInfo, alignment));
  printf("TVMFFIFieldInfo offset %zu\n", offsetof(TVMFFIFieldInfo, offset));
  printf("TVMFFIFieldInfo getter %zu\n", offsetof(TVMFFIFieldInfo, getter));
  printf("TVMFFIFieldInfo setter %zu\n", offsetof(TVMFFIFieldInfo, setter));
  printf("TVMFFIFieldInfo default_value_or_factory %zu\n", offsetof(TVMFFIFieldInfo, default_value_or_factory));
  printf("TVMFFIFieldInfo field_static_type_index %zu\n", offsetof(TVMFFIFieldInfo, field_static_type_index));
  printf("TVMFFIMethodInfo (sizeof) %zu\n", sizeof(TVMFFIMethodInfo));
  printf("TVMFFIMethodInfo name %zu\n", offsetof(TVMFFIMethodInfo, name));
  printf("TVMFFIMethodInfo doc %zu\n", offsetof(TVMFFIMethodInfo, doc));
  printf("TVMFFIMethodInfo metadata %zu\n", offsetof(TVMFFIMethodInfo, metadata));
  printf("TVMFFIMethodInfo flags %zu\n", offsetof(TVMFFIMethodInfo, flags));
  printf("TVMFFIMethodInfo method %zu\n", offsetof(TVMFFIMethodInfo, method));
  printf("TVMFFITypeMetadata (sizeof) %zu\n", sizeof(TVMFFITypeMetadata));
  printf("TVMFFITypeMetadata doc %zu\n", offsetof(TVMFFITypeMetadata, doc));
  printf("TVMFFITypeMetadata creator %zu\n", offsetof(TVMFFITypeMetadata, creator));
  printf("TVMFFITypeMetadata total_size %zu\n", offsetof(TVMFFITypeMetadata, total_size));
  printf("TVMFFITypeMetadata structural_eq_hash_kind %zu\n", offsetof(TVMFFITypeMetadata, structural_eq_hash_kind));
  printf("TVMFFITypeAttrColumn (sizeof) %zu\n", sizeof(TVMFFITypeAttrColumn));
  printf("TVMFFITypeAttrColumn data %zu\n", offsetof(TVMFFITypeAttrColumn, data));
  printf("TVMFFITypeAttrColumn size %zu\n", offsetof(TVMFFITypeAttrColumn, size));
  printf("TVMFFITypeAttrColumn begin_index %zu\n", offsetof(TVMFFITypeAttrColumn, begin_index));
  printf("TVMFFICustomAllocator (sizeof) %zu\n", sizeof(TVMFFICustomAllocator));
  printf("TVMFFICustomAllocator allocate %zu\n", offsetof(TVMFFICustomAllocator, allocate));
  printf("TVMFFICustomAllocator context %zu\n", offsetof(TVMFFICustomAllocator, context));
  printf("DLDevice (sizeof) %zu\n", sizeof(DLDevice));
  printf("DLDevice device_type %zu\n", offsetof(DLDevice, device_type));
  printf("DLDevice device_id %zu\n", offsetof(DLDevice, device_id));
  printf("DLDataType (sizeof) %zu\n", sizeof(DLDataType));
  printf("DLDataType code %zu\n", offsetof(DLDataType, code));
  printf("DLDataType bits %zu\n", offsetof(DLDataType, bits));
  printf("DLDataType lanes %zu\n", offsetof(DLDataType, lanes));
  printf("DLTensor (sizeof) %zu\n", sizeof(DLTensor));
  printf("DLTensor data %zu\n", offsetof(DLTensor, data));
  printf("DLTensor device %zu\n", offsetof(DLTensor, device));
  printf("DLTensor ndim %zu\n", offsetof(DLTensor, ndim));
  printf("DLTensor dtype %zu\n", offsetof(DLTensor, dtype));
  printf("DLTensor shape %zu\n", offsetof(DLTensor, shape));
  printf("DLTensor strides %zu\n", offsetof(DLTensor, strides));
  printf("DLTensor byte_offset %zu\n", offsetof(DLTensor, byte_offset));
  printf("DLManagedTensor (sizeof) %zu\n", sizeof(DLManagedTensor));
  printf("DLManagedTensor dl_tensor %zu\n", offsetof(DLManagedTensor, dl_tensor));
  printf("DLManagedTensor manager_ctx %zu\n", offsetof(DLManagedTensor, manager_ctx));
  printf("DLManagedTensor deleter %zu\n", offsetof(DLManagedTensor, deleter));
  printf("DLManagedTensorVersioned (sizeof) %zu\n", sizeof(DLManagedTensorVersioned));
  printf("DLManagedTensorVersioned version %zu\n", offsetof(DLManagedTensorVersioned, version));
  printf("DLManagedTensorVersioned manager_ctx %zu\n", offsetof(DLManagedTensorVersioned, manager_ctx));
  printf("DLManagedTensorVersioned deleter %zu\n", offsetof(DLManagedTensorVersioned, deleter));
  printf("DLManagedTensorVersioned flags %zu\n", offsetof(DLManagedTensorVersioned, flags));
  printf("DLManagedTensorVersioned dl_tensor %zu\n", offsetof(DLManagedTensorVersioned, dl_tensor));
  printf("TVMFFIVersion (sizeof) %zu\n", sizeof(TVMFFIVersion));
  printf("TVMFFIVersion major %zu\n", offsetof(TVMFFIVersion, major));
  printf("TVMFFIVersion minor %zu\n", offsetof(TVMFFIVersion, minor));
  printf("TVMFFIVersion patch %zu\n", offsetof(TVMFFIVersion, patch));
  return 0;
}
"#;

#[test]
fn every_size_and_field_offset_equals_the_c_headers() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let source = dir.join("layout_probe.c");
    let binary = dir.join(format!("layout_probe_{}", std::process::id()));
    std::fs::write(&source, PROBE).unwrap();
    let include = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .arg("-std=c11")
        .arg("-I")
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(status.success(), "{cc} failed on the layout probe");
    let output = Command::new(&binary).output().unwrap();
    let c_layout = String::from_utf8(output.stdout).unwrap();
    let rust_layout: Vec<(&str, &str, usize)> = vec![
        ("TVMFFIAny", "(sizeof)", size_of::<TVMFFIAny>()),
        ("TVMFFIAny", "type_index", offset_of!(TVMFFIAny, type_index)),
        ("TVMFFIAny", "small_str_len", offset_of!(TVMFFIAny, small_str_len)),
        ("TVMFFIAny", "v_int64", offset_of!(TVMFFIAny, payload)),
        ("TVMFFIObject", "(sizeof)", size_of::<TVMFFIObject>()),
        ("TVMFFIObject", "combined_ref_count", offset_of!(TVMFFIObject, combined_ref_count)),
        ("TVMFFIObject", "type_index", offset_of!(TVMFFIObject, type_index)),
        ("TVMFFIObject", "__padding", offset_of!(TVMFFIObject, __padding)),
        ("TVMFFIObject", "deleter", offset_of!(TVMFFIObject, deleter)),
        ("TVMFFIByteArray", "(sizeof)", size_of::<TVMFFIByteArray>()),
        ("TVMFFIByteArray", "data", offset_of!(TVMFFIByteArray, data)),
        ("TVMFFIByteArray", "size", offset_of!(TVMFFIByteArray, size)),
        ("TVMFFIShapeCell", "(sizeof)", size_of::<TVMFFIShapeCell>()),
        ("TVMFFIShapeCell", "data", offset_of!(TVMFFIShapeCell, data)),
        ("TVMFFIShapeCell", "size", offset_of!(TVMFFIShapeCell, size)),
        ("TVMFFISeqCell", "(sizeof)", size_of::<TVMFFISeqCell>()),
        ("TVMFFISeqCell", "data", offset_of!(TVMFFISeqCell, data)),
        ("TVMFFISeqCell", "size", offset_of!(TVMFFISeqCell, size)),
        ("TVMFFISeqCell", "capacity", offset_of!(TVMFFISeqCell, capacity)),
        ("TVMFFISeqCell", "data_deleter", offset_of!(TVMFFISeqCell, data_deleter)),
        ("TVMFFIErrorCell", "(sizeof)", size_of::<TVMFFIErrorCell>()),
        ("TVMFFIErrorCell", "kind", offset_of!(TVMFFIErrorCell, kind)),
        ("TVMFFIErrorCell", "message", offset_of!(TVMFFIErrorCell, message)),
        ("TVMFFIErrorCell", "backtrace", offset_of!(TVMFFIErrorCell, backtrace)),
        ("TVMFFIErrorCell", "update_backtrace", offset_of!(TVMFFIErrorCell, update_backtrace)),
        ("TVMFFIErrorCell", "cause_chain", offset_of!(TVMFFIErrorCell, cause_chain)),
        ("TVMFFIErrorCell", "extra_context", offset_of!(TVMFFIErrorCell, extra_context)),
        ("TVMFFIFunctionCell", "(sizeof)", size_of::<TVMFFIFunctionCell>()),
        ("TVMFFIFunctionCell", "safe_call", offset_of!(TVMFFIFunctionCell, safe_call)),
        ("TVMFFIFunctionCell", "cpp_call", offset_of!(TVMFFIFunctionCell, cpp_call)),
        ("TVMFFITypeInfo", "(sizeof)", size_of::<TVMFFITypeInfo>()),
        ("TVMFFITypeInfo", "type_index", offset_of!(TVMFFITypeInfo, type_index)),
        ("TVMFFITypeInfo", "type_depth", offset_of!(TVMFFITypeInfo, type_depth)),
        ("TVMFFITypeInfo", "type_key", offset_of!(TVMFFITypeInfo, type_key)),
        ("TVMFFITypeInfo", "type_ancestors", offset_of!(TVMFFITypeInfo, type_ancestors)),
        ("TVMFFITypeInfo", "type_key_hash", offset_of!(TVMFFITypeInfo, type_key_hash)),
        ("TVMFFITypeInfo", "num_fields", offset_of!(TVMFFITypeInfo, num_fields)),
        ("TVMFFITypeInfo", "num_methods", offset_of!(TVMFFITypeInfo, num_methods)),
        ("TVMFFITypeInfo", "fields", offset_of!(TVMFFITypeInfo, fields)),
        ("TVMFFITypeInfo", "methods", offset_of!(TVMFFITypeInfo, methods)),
        ("TVMFFITypeInfo", "metadata", offset_of!(TVMFFITypeInfo, metadata)),
        ("TVMFFIFieldInfo", "(sizeof)", size_of::<TVMFFIFieldInfo>()),
        ("TVMFFIFieldInfo", "name", offset_of!(TVMFFIFieldInfo, name)),
        ("TVMFFIFieldInfo", "doc", offset_of!(TVMFFIFieldInfo, doc)),
        ("TVMFFIFieldInfo", "metadata", offset_of!(TVMFFIFieldInfo, metadata)),
        ("TVMFFIFieldInfo", "flags", offset_of!(TVMFFIFieldInfo, flags)),
        ("TVMFFIFieldInfo", "size", offset_of!(TVMFFIFieldInfo, size)),
        ("TVMFFIFieldInfo", "alignment", offset_of!(TVMFFIFieldInfo, alignment)),
        ("TVMFFIFieldInfo", "offset", offset_of!(TVMFFIFieldInfo, offset)),
        ("TVMFFIFieldInfo", "getter", offset_of!(TVMFFIFieldInfo, getter)),
        ("TVMFFIFieldInfo", "setter", offset_of!(TVMFFIFieldInfo, setter)),
        (
            "TVMFFIFieldInfo",
            "default_value_or_factory",
            offset_of!(TVMFFIFieldInfo, default_value_or_factory),
        ),
        (
            "TVMFFIFieldInfo",
            "field_static_type_index",
            offset_of!(TVMFFIFieldInfo, field_static_type_index),
        ),
        ("TVMFFIMethodInfo", "(sizeof)", size_of::<TVMFFIMethodInfo>()),
        ("TVMFFIMethodInfo", "name", offset_of!(TVMFFIMethodInfo, name)),
        ("TVMFFIMethodInfo", "doc", offset_of!(TVMFFIMethodInfo, doc)),
        ("TVMFFIMethodInfo", "metadata", offset_of!(TVMFFIMethodInfo, metadata)),
        ("TVMFFIMethodInfo", "flags", offset_of!(TVMFFIMethodInfo, flags)),
        ("TVMFFIMethodInfo", "method", offset_of!(TVMFFIMethodInfo, method)),
        ("TVMFFITypeMetadata", "(sizeof)", size_of::<TVMFFITypeMetadata>()),
        ("TVMFFITypeMetadata", "doc", offset_of!(TVMFFITypeMetadata, doc)),
        ("TVMFFITypeMetadata", "creator", offset_of!(TVMFFITypeMetadata, creator)),
        ("TVMFFITypeMetadata", "total_size", offset_of!(TVMFFITypeMetadata, total_size)),
        (
            "TVMFFITypeMetadata",
            "structural_eq_hash_kind",
            offset_of!(TVMFFITypeMetadata, structural_eq_hash_kind),
        ),
        ("TVMFFITypeAttrColumn", "(sizeof)", size_of::<TVMFFITypeAttrColumn>()),
        ("TVMFFITypeAttrColumn", "data", offset_of!(TVMFFITypeAttrColumn, data)),
        ("TVMFFITypeAttrColumn", "size", offset_of!(TVMFFITypeAttrColumn, size)),
        ("TVMFFITypeAttrColumn", "begin_index", offset_of!(TVMFFITypeAttrColumn, begin_index)),
        ("TVMFFICustomAllocator", "(sizeof)", size_of::<TVMFFICustomAllocator>()),
        ("TVMFFICustomAllocator", "allocate", offset_of!(TVMFFICustomAllocator, allocate)),
        ("TVMFFICustomAllocator", "context", offset_of!(TVMFFICustomAllocator, context)),
        ("DLDevice", "(sizeof)", size_of::<DLDevice>()),
        ("DLDevice", "device_type", offset_of!(DLDevice, device_type)),
        ("DLDevice", "device_id", offset_of!(DLDevice, device_id)),
        ("DLDataType", "(sizeof)", size_of::<DLDataType>()),
        ("DLDataType", "code", offset_of!(DLDataType, code)),
        ("DLDataType", "bits", offset_of!(DLDataType, bits)),
        ("DLDataType", "lanes", offset_of!(DLDataType, lanes)),
        ("DLTensor", "(sizeof)", size_of::<DLTensor>()),
        ("DLTensor", "data", offset_of!(DLTensor, data)),
        ("DLTensor", "device", offset_of!(DLTensor, device)),
        ("DLTensor", "ndim", offset_of!(DLTensor, ndim)),
        ("DLTensor", "dtype", offset_of!(DLTensor, dtype)),
        ("DLTensor", "shape", offset_of!(DLTensor, shape)),
        ("DLTensor", "strides", offset_of!(DLTensor, strides)),
        ("DLTensor", "byte_offset", offset_of!(DLTensor, byte_offset)),
        ("DLManagedTensor", "(sizeof)", size_of::<DLManagedTensor>()),
        ("DLManagedTensor", "dl_tensor", offset_of!(DLManagedTensor, dl_tensor)),
        ("DLManagedTensor", "manager_ctx", offset_of!(DLManagedTensor, manager_ctx)),
        ("DLManagedTensor", "deleter", offset_of!(DLManagedTensor, deleter)),
        ("DLManagedTensorVersioned", "(sizeof)", size_of::<DLManagedTensorVersioned>()),
        ("DLManagedTensorVersioned", "version", offset_of!(DLManagedTensorVersioned, version)),
        (
            "DLManagedTensorVersioned",
            "manager_ctx",
            offset_of!(DLManagedTensorVersioned, manager_ctx),
        ),
        ("DLManagedTensorVersioned", "deleter", offset_of!(DLManagedTensorVersioned, deleter)),
        ("DLManagedTensorVersioned", "flags", offset_of!(DLManagedTensorVersioned, flags)),
        ("DLManagedTensorVersioned", "dl_tensor", offset_of!(DLManagedTensorVersioned, dl_tensor)),
        ("TVMFFIVersion", "(sizeof)", size_of::<TVMFFIVersion>()),
        ("TVMFFIVersion", "major", offset_of!(TVMFFIVersion, major)),
        ("TVMFFIVersion", "minor", offset_of!(TVMFFIVersion, minor)),
        ("TVMFFIVersion", "patch", offset_of!(TVMFFIVersion, patch)),
    ];
    let mut checked = 0;
    for line in c_layout.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let (name, field, c_value) = (parts[0], parts[1], parts[2].parse::<usize>().unwrap());
        let rust = rust_layout.iter().find(|(s, f, _)| *s == name && *f == field).unwrap();
        assert_eq!(rust.2, c_value, "{name}.{field}: Rust {} but C {c_value}", rust.2);
        checked += 1;
    }
    assert_eq!(checked, rust_layout.len());
}
