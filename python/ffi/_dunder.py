"""The reference's ``tvm_ffi._dunder`` name for the last step of making a ``py_class`` by hand
(see ``ffi.core._register_py_class``)."""

from .dataclasses._py_class_steps import install_dataclass_dunders as _install_dataclass_dunders

__all__ = ["_install_dataclass_dunders"]
