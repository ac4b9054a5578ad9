"""The standard JSON globals of our runtime (ffi.json.Parse/Stringify, ffi.ToJSONGraph*,
ffi.FromJSONGraph*), called through ffi.get_global_func. Expected texts and messages are the
reference runtime's outputs for the same inputs, captured as literals."""

import math

import pytest

import ffi


def g(name):
    return ffi.get_global_func(name)


def parse(text):
    return g("ffi.json.Parse")(text)


def stringify(value, indent=None):
    return g("ffi.json.Stringify")(value, indent)


def to_graph_str(value, metadata=None):
    return g("ffi.ToJSONGraphString")(value, metadata)


def from_graph_str(text):
    return g("ffi.FromJSONGraphString")(text)


def test_parse_values():
    v = parse('{"a":1,"b":[1,2.5,true,false,null,"x"]}')
    assert isinstance(v, ffi.Map)
    assert v["a"] == 1
    assert list(v["b"]) == [1, 2.5, True, False, None, "x"]
    assert isinstance(v["b"], ffi.Array)
    assert isinstance(parse("1"), int) and parse("1") == 1
    assert isinstance(parse("1.0"), float)
    assert isinstance(parse("1e3"), float) and parse("1e3") == 1000.0
    assert parse('"\\u00e9\\n"') == "é\n"
    assert parse('"\\ud83d\\ude00"') == "\U0001f600"
    assert parse('"\\/\\b\\f\\u0041"') == "/\b\fA"
    assert list(parse(" [ ] ")) == [] and len(parse("{}")) == 0
    assert parse('{"a":1,"a":2}')["a"] == 2


@pytest.mark.parametrize(
    "text, expected",
    [("01", 1), ("+1", 1), ("-0", 0), ("00012", 12), ("9223372036854775807", 2**63 - 1)],
)
def test_parse_lenient_ints(text, expected):
    v = parse(text)
    assert isinstance(v, int) and v == expected


def test_parse_numbers_as_floats():
    assert parse("9223372036854775808") == 9.223372036854776e18
    assert isinstance(parse("9223372036854775808"), float)
    assert parse("1.") == 1.0 and parse(".5") == 0.5 and parse("-01.5") == -1.5
    assert math.isnan(parse("NaN"))
    assert parse("Infinity") == math.inf and parse("-Infinity") == -math.inf


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "Expecting value: line 1 column 1 (char 0)"),
        (" ", "Expecting value: line 1 column 2 (char 1)"),
        ("nul", "Expecting value: line 1 column 1 (char 0)"),
        ("[1,", "Syntax error near: line 1 column 4 (char 3)"),
        ('{"a":1,', "Syntax error near: line 1 column 8 (char 7)"),
        ('{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"),
        ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
        ('"abc', "Unterminated string starting at: line 1 column 1 (char 0)"),
        ("1 2", "Extra data: line 1 column 3 (char 2)"),
        ('"\\x"', "Invalid \\escape: line 1 column 3 (char 2)"),
        ('"a\tb"', "Invalid control character at: line 1 column 3 (char 2)"),
        ("{1:2}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ('"\\ud800"', "Invalid surrogate pair of \\uXXXX escapes: line 1 column 3 (char 2)"),
        (
            '"\\ud83d\\u0041"',
            "Invalid surrogate pair of \\uXXXX escapes: line 1 column 10 (char 9)",
        ),
        ('"\\u12"', "Invalid \\uXXXX escape: line 1 column 3 (char 2)"),
        ("1e400", "Expecting value: line 1 column 1 (char 0)"),
        ("1.5.5", "Expecting value: line 1 column 1 (char 0)"),
        ("0x10", "Extra data: line 1 column 2 (char 1)"),
        ("[1,2", "Expecting ',' delimiter: line 1 column 5 (char 4)"),
        ('{"a":1,}', "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"),
        ("\n\n  [1,\n x]", "Expecting value: line 4 column 2 (char 9)"),
        ("-Infinityx", "Extra data: line 1 column 10 (char 9)"),
        ("[-]", "Expecting value: line 1 column 2 (char 1)"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(ValueError) as info:
        parse(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "value, text",
    [
        (1, "1"),
        (-5, "-5"),
        (1.0, "1.0"),
        (0.1, "0.10000000000000001"),
        (1e20, "1e+20"),
        (1e-7, "9.9999999999999995e-08"),
        (123456789.123, "123456789.123"),
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (1e16, "10000000000000000"),
        (1e15, "1000000000000000.0"),
        (9007199254740992.0, "9007199254740992"),
        (9007199254740991.0, "9007199254740991.0"),
        (5e-324, "4.9406564584124654e-324"),
        (True, "true"),
        (None, "null"),
        ('é\n"\x01\x7f/\b\f', '"é\\n\\"\\u0001\\u007f\\/\\b\\f"'),
        ([1, [2, {}]], "[1,[2,{}]]"),
        ({"b": 1, "a": [1, 2]}, '{"b":1,"a":[1,2]}'),
        ({f"k{i}": i for i in range(12)}, "{" + ",".join(f'"k{i}":{i}' for i in range(12)) + "}"),
    ],
)
def test_stringify_matches_reference(value, text):
    assert stringify(value) == text


def test_stringify_indent():
    v = {"a": [1, {"b": 2}], "c": "d"}
    assert stringify(v, 2) == '{\n  "a": [\n    1,\n    {\n      "b": 2\n    }\n  ],\n  "c": "d"\n}'
    assert stringify([], 2) == "[\n]"
    assert stringify({"a": []}, 4) == '{\n    "a": [\n    ]\n}'
    assert stringify([1], 0) == "[1]"
    assert stringify([1, 2], -1) == "[\n1,\n2\n]"


def test_stringify_errors():
    with pytest.raises(ValueError, match="Expect key to be string, got `int`"):
        stringify({1: 2})
    with pytest.raises(ValueError, match="Unsupported type: `ffi.Shape`"):
        stringify(ffi.Shape((1, 2)))


def test_parse_stringify_round_trip():
    text = '{"z":[1,2.5,"s\\/",null,true],"a":{"n":-3,"f":1e+20}}'
    assert stringify(parse(text)) == text


GRAPHS = [
    (None, '{"root_index":0,"nodes":[{"type":"None"}]}'),
    (True, '{"root_index":0,"nodes":[{"type":"bool","data":true}]}'),
    (3, '{"root_index":0,"nodes":[{"type":"int","data":3}]}'),
    (2.5, '{"root_index":0,"nodes":[{"type":"float","data":2.5}]}'),
    ("hi", '{"root_index":0,"nodes":[{"type":"ffi.String","data":"hi"}]}'),
    (b"by\x00\xff", '{"root_index":0,"nodes":[{"type":"ffi.Bytes","data":"YnkA\\/w=="}]}'),
    (
        [1, "a", [1]],
        '{"root_index":3,"nodes":[{"type":"int","data":1},{"type":"ffi.String","data":"a"},'
        '{"type":"ffi.Array","data":[0]},{"type":"ffi.Array","data":[0,1,2]}]}',
    ),
    (
        {"a": 1, "b": [2]},
        '{"root_index":5,"nodes":[{"type":"ffi.String","data":"a"},{"type":"int","data":1},'
        '{"type":"ffi.String","data":"b"},{"type":"int","data":2},{"type":"ffi.Array","data":[3]},'
        '{"type":"ffi.Map","data":[0,1,2,4]}]}',
    ),
    (
        [42, 42, 42],
        '{"root_index":1,"nodes":[{"type":"int","data":42},{"type":"ffi.Array","data":[0,0,0]}]}',
    ),
    (
        [1.5, 1.5, 1, True, 1.0],
        '{"root_index":4,"nodes":[{"type":"float","data":1.5},{"type":"int","data":1},'
        '{"type":"bool","data":true},{"type":"float","data":1.0},'
        '{"type":"ffi.Array","data":[0,0,1,2,3]}]}',
    ),
]


@pytest.mark.parametrize("value, text", GRAPHS)
def test_graph_matches_reference_and_round_trips(value, text):
    assert to_graph_str(value) == text
    back = from_graph_str(text)
    assert to_graph_str(back) == text


def test_graph_of_special_values():
    assert (
        to_graph_str(ffi.Shape((1, 2)))
        == '{"root_index":0,"nodes":[{"type":"ffi.Shape","data":[1,2]}]}'
    )
    assert list(from_graph_str(to_graph_str(ffi.Shape((1, 2))))) == [1, 2]
    dt = ffi.dtype("float32x4")
    assert to_graph_str(dt) == '{"root_index":0,"nodes":[{"type":"DataType","data":"float32x4"}]}'
    assert str(from_graph_str(to_graph_str(dt))) == "float32x4"
    dev = ffi.Device("cuda", 1)
    assert to_graph_str(dev) == '{"root_index":0,"nodes":[{"type":"Device","data":[2,1]}]}'
    back = from_graph_str(to_graph_str(dev))
    assert back.index == 1


def test_graph_metadata_and_structured_form():
    text = to_graph_str(ffi.convert({"x": [1, 2], "y": "s"}), {"version": "1.0", "list": [1, 2]})
    assert text == (
        '{"root_index":6,"nodes":[{"type":"ffi.String","data":"x"},{"type":"int","data":1},'
        '{"type":"int","data":2},{"type":"ffi.Array","data":[1,2]},'
        '{"type":"ffi.String","data":"y"},{"type":"ffi.String","data":"s"},'
        '{"type":"ffi.Map","data":[0,3,4,5]}],"metadata":{"version":"1.0","list":[1,2]}}'
    )
    graph = g("ffi.ToJSONGraph")(ffi.convert([1, 2]), None)
    assert graph["root_index"] == 2 and len(graph["nodes"]) == 3
    assert g("ffi.FromJSONGraph")(graph)[1] == 2


def test_graph_shares_nodes_and_reads_lazily():
    back = from_graph_str(
        '{"root_index": 1, "nodes": [{"type":"int","data":7},{"type":"ffi.Array","data":[0,0]}]}'
    )
    assert list(back) == [7, 7]
    # Node 0 is never reached from the root, so its bad reference is never read.
    assert (
        from_graph_str(
            '{"root_index": 1, "nodes": [{"type":"ffi.Array","data":[9]},{"type":"int","data":1}]}'
        )
        == 1
    )


@pytest.mark.parametrize(
    "text, kind, message",
    [
        ("not valid json", ValueError, "Expecting value"),
        ('{"nodes": []}', ValueError, "expected `root_index` integer field"),
        ('{"root_index": 0}', ValueError, "expected `nodes` array field"),
        ("[1]", ValueError, "Invalid JSON Object Graph, expected an object"),
        ('{"root_index": 1, "nodes": [{"type":"int","data":1}]}', ValueError, "node index 1"),
        ('{"root_index": -1, "nodes": []}', ValueError, "invalid node index -1"),
        ('{"root_index": 0, "nodes": [{"type":"foo.Bar","data":1}]}', RuntimeError, "foo.Bar"),
        ('{"root_index": 0, "nodes": [{"type":"int"}]}', KeyError, "data"),
        ('{"root_index": 0, "nodes": [{"type":"int","data":"x"}]}', TypeError, "int"),
        (
            '{"root_index": 0, "nodes": [{"type":"ffi.Map","data":[0]}]}',
            ValueError,
            "even number of [key, value] entries, got 1",
        ),
        ('{"root_index": 0, "nodes": [{"type":"ffi.Array","data":[0]}]}', ValueError, "itself"),
    ],
)
def test_graph_errors(text, kind, message):
    with pytest.raises(kind) as info:
        from_graph_str(text)
    assert message in str(info.value)


def test_graph_of_function_is_refused():
    with pytest.raises(TypeError, match="does not support ToJSONGraph"):
        to_graph_str(g("ffi.json.Parse"))


def test_graph_shares_equal_leaves_and_keeps_mutable_containers():
    values = ["x", ffi.convert("x"), b"x", ffi.convert(b"x"), 1, True, 1.0, None, None]
    text = (
        '{"root_index":6,"nodes":[{"type":"ffi.String","data":"x"},'
        '{"type":"ffi.Bytes","data":"eA=="},{"type":"int","data":1},{"type":"bool","data":true},'
        '{"type":"float","data":1.0},{"type":"None"},'
        '{"type":"ffi.Array","data":[0,0,1,1,2,3,4,5,5]}]}'
    )
    assert to_graph_str(values) == text
    nested = ffi.Dict({"a": ffi.List([1])})
    text = (
        '{"root_index":3,"nodes":[{"type":"ffi.String","data":"a"},{"type":"int","data":1},'
        '{"type":"ffi.List","data":[1]},{"type":"ffi.Dict","data":[0,2]}]}'
    )
    assert to_graph_str(nested) == text
    back = from_graph_str(text)
    assert isinstance(back, ffi.Dict) and isinstance(back["a"], ffi.List)
    assert list(back["a"]) == [1]
