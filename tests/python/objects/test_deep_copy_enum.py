"""ffi.DeepCopy through our package: cycles through every container kind keep their identity in
the copy, enum singletons are shared, a type that cannot be copied raises; enums expose `value`
and print by name."""

import pytest

import ffi

g = ffi.get_global_func


def make_enum(type_key, int_index, name):
    # The payload enums' `value` shares storage with their index; the creator wants every field.
    make = g("ffi.MakeObjectFromPackedArgs")
    extra = {"ffi.IntEnum": ("value", int_index), "ffi.StrEnum": ("value", name)}.get(type_key, ())
    return make(type_key, "_int_index", int_index, "_str_index", name, *extra)


@pytest.mark.parametrize("root_kind", [ffi.Array, ffi.Map])
@pytest.mark.parametrize("link_kind", [ffi.List, ffi.Dict])
def test_cycle_back_to_an_immutable_root(root_kind, link_kind):
    link = link_kind()
    root = root_kind([link]) if root_kind is ffi.Array else root_kind({"link": link})
    if link_kind is ffi.List:
        link.append(root)
    else:
        link["self"] = root
    out = g("ffi.DeepCopy")(root)
    out_link = out[0] if root_kind is ffi.Array else out["link"]
    assert not out.same_as(root) and not out_link.same_as(link)
    back = out_link[0] if link_kind is ffi.List else out_link["self"]
    assert back.same_as(out)


def test_root_as_key_and_list_key_cycles():
    d = ffi.Dict()
    root = ffi.Map({"d": d})
    d[root] = 1
    out = g("ffi.DeepCopy")(root)
    key = next(iter(out["d"].keys()))
    assert key.same_as(out) and not key.same_as(root)
    key_list = ffi.List()
    m = ffi.Map({key_list: 1})
    key_list.append(m)
    out = g("ffi.DeepCopy")(m)
    out_key = next(iter(out.keys()))
    assert isinstance(out_key, ffi.List) and out_key[0].same_as(out)


def test_shared_item_in_a_cycle_is_copied_once():
    shared = ffi.List()
    m = ffi.Map({"l1": shared, "l2": shared})
    shared.append(m)
    out = g("ffi.DeepCopy")(m)
    assert out["l1"].same_as(out["l2"]) and out["l1"][0].same_as(out)


def test_enum_singletons_are_shared():
    for key in ("ffi.Enum", "ffi.IntEnum", "ffi.StrEnum"):
        e = make_enum(key, 4, "four")
        assert g("ffi.DeepCopy")(e).same_as(e)
        out = g("ffi.DeepCopy")(ffi.Array([e, ffi.Map({"k": e})]))
        assert out[0].same_as(e) and out[1]["k"].same_as(e)


def test_enum_value_and_repr():
    i = make_enum("ffi.IntEnum", -(2**63), "MIN")
    assert i.value == i._int_index == -(2**63)
    s = make_enum("ffi.StrEnum", 0, "smem")
    assert s.value == s._str_index == "smem"
    assert g("ffi.ReprPrint")(i) == "ffi.IntEnum.MIN"
    assert g("ffi.ReprPrint")(ffi.Array([s])) == "(ffi.StrEnum.smem,)"
