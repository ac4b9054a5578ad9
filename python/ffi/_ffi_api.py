"""The runtime's ``ffi.*`` global functions as attributes (``_ffi_api.ReprPrint(x)``), where code
written for the reference imports them (``import tvm_ffi._ffi_api``)."""

from .registry import init_ffi_api

init_ffi_api("ffi", __name__)
