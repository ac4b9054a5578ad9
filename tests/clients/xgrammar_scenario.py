"""xgrammar on a runtime: grammars from EBNF, JSON schema, regex and the builtin JSON grammar
compile against a small vocabulary; matchers accept tokens and strings, fill token bitmasks
(PyTorch CPU tensors, batched too), roll back, fork and find jump-forward strings; grammars and
compiled grammars round-trip through JSON; bad grammars raise. Prints one JSON object of results.

    python xgrammar_scenario.py ours|reference      (see scenario.py)
"""

import json

from scenario import report, select_runtime

out = select_runtime()

import torch
import xgrammar as xgr

vocab = ["<s>", "</s>", "a", "b", "ab", "{", "}", '"', ":", ",", " ", "1", "2", "true", "x", '{"']
vocab += [f"tok{i}" for i in range(48)]
info = xgr.TokenizerInfo(vocab, stop_token_ids=[1])
out["vocab_size"] = info.vocab_size
out["tokenizer_json"] = json.loads(info.serialize_json())
compiler = xgr.GrammarCompiler(info, max_threads=1)


def allowed(bitmask, row=0):
    """Token ids whose bit is set in one row of a bitmask."""
    words = bitmask[row].tolist()
    return [i for i in range(info.vocab_size) if (words[i // 32] >> (i % 32)) & 1]


grammar = xgr.Grammar.from_ebnf('root ::= ("a" | "b")+ "ab"?')
out["ebnf_printed"] = str(grammar)
compiled = compiler.compile_grammar(grammar)
matcher = xgr.GrammarMatcher(compiled)
bitmask = xgr.allocate_token_bitmask(1, info.vocab_size)
matcher.fill_next_token_bitmask(bitmask)
out["ebnf_first_allowed"] = allowed(bitmask)
out["ebnf_accept"] = [matcher.accept_token(t) for t in (2, 3, 4, 5)]
matcher.fill_next_token_bitmask(bitmask)
out["ebnf_next_allowed"] = allowed(bitmask)
matcher.rollback(1)
fork = matcher.fork()
out["fork_accepts_stop"] = fork.accept_token(1)
out["fork_terminated"] = fork.is_terminated()
out["original_terminated"] = matcher.is_terminated()

schema = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}},
    "required": ["a", "b"],
}
compiled = compiler.compile_json_schema(json.dumps(schema), any_whitespace=False)
matcher = xgr.GrammarMatcher(compiled)
out["schema_accept_string"] = matcher.accept_string('{"a": 12, "b": ')
out["schema_jump_forward"] = matcher.find_jump_forward_string()
matcher.fill_next_token_bitmask(bitmask)
out["schema_allowed"] = allowed(bitmask)
logits = torch.arange(info.vocab_size, dtype=torch.float32).reshape(1, -1)
xgr.apply_token_bitmask_inplace(logits, bitmask)
out["masked_logits"] = [v if v != float("-inf") else "-inf" for v in logits[0].tolist()]
out["schema_rejects"] = matcher.accept_string("false}x")

regex = compiler.compile_regex("[ab]{2,3}x")
json_grammar = compiler.compile_builtin_json_grammar()
matchers = [xgr.GrammarMatcher(regex), xgr.GrammarMatcher(json_grammar)]
batch = xgr.allocate_token_bitmask(2, info.vocab_size)
for i, m in enumerate(matchers):
    m.fill_next_token_bitmask(batch, i)
out["batch_allowed"] = [allowed(batch, 0), allowed(batch, 1)]
out["regex_accepts"] = [matchers[0].accept_string(s) for s in ("ab", "b", "x")]
out["regex_completed"] = matchers[0].is_completed()

text = grammar.serialize_json()
out["grammar_json_round_trip"] = str(xgr.Grammar.deserialize_json(text)) == str(grammar)
text = regex.serialize_json()
again = xgr.CompiledGrammar.deserialize_json(text, info)
out["compiled_json_round_trip"] = again.serialize_json() == text
out["memory_size_positive"] = regex.memory_size_bytes > 0

try:
    xgr.Grammar.from_ebnf("root ::= undefined_rule")
except Exception as e:  # noqa: BLE001 - the type is what is compared
    # The message starts with a time stamp ("[08:45:30] file:line: ..."): keep what follows it.
    out["bad_grammar_error"] = [type(e).__name__, str(e).splitlines()[0].split("] ", 1)[-1]]
try:
    matcher.fill_next_token_bitmask(torch.zeros(1, 2, dtype=torch.int64))
except Exception as e:  # noqa: BLE001
    out["bad_bitmask_error"] = type(e).__name__

report(out)
