"""The grammar engines vLLM and SGLang constrain decoding with, run on CPU with no model: llguidance
(vLLM's `guidance` backend, SGLang's `llguidance`) and outlines-core (vLLM's and SGLang's `outlines`).
Pinned in the test extra (pyproject.toml): llguidance 1.9.1, outlines-core 0.2.14.

- llguidance: the schema compiled to a grammar, checked (`validate_grammar`), and a matcher driven
  byte by byte by a 256-token tokenizer: an answer is taken when every byte is allowed and the
  grammar accepts at its end, exactly as a sampler masked by it could have written it.
- outlines-core: the schema compiled to a regular expression; an answer is taken when it matches whole.
"""
from __future__ import annotations

import functools
import json
import re

from llguidance import LLMatcher, LLTokenizer, TokenizerWrapper
from outlines_core.json_schema import build_regex_from_schema


class _Bytes:
    """One token per byte, and an end-of-sequence token."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"</s>"]
    special_token_ids = [256]

    def __call__(self, data: bytes):
        return list(data)


@functools.lru_cache(maxsize=1)
def byte_tokenizer() -> LLTokenizer:
    return LLTokenizer(TokenizerWrapper(_Bytes()))


class Llguidance:
    def __init__(self, schema: dict):
        self.grammar = LLMatcher.grammar_from_json_schema(json.dumps(schema))
        self.error = LLMatcher.validate_grammar(self.grammar, byte_tokenizer())

    def accepts(self, text: str) -> bool:
        matcher = LLMatcher(byte_tokenizer(), self.grammar, log_level=0)
        return matcher.consume_tokens(list(text.encode())) and matcher.is_accepting()


class Outlines:
    def __init__(self, schema: dict):
        self.regex = build_regex_from_schema(json.dumps(schema))
        self.pattern = re.compile(self.regex)

    def accepts(self, text: str) -> bool:
        return self.pattern.fullmatch(text) is not None
