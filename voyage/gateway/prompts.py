"""Storing prompts compactly: JSON messages, zlib-compressed against a dictionary of the text every
prompt shares (the rules), so a stored action prompt costs a few hundred bytes."""
from __future__ import annotations

import json
import zlib

from world.rules.prompt_text import RULES

_ZDICT = RULES.encode()


def compress_messages(messages: list[dict]) -> bytes:
    c = zlib.compressobj(level=6, zdict=_ZDICT)
    return c.compress(json.dumps(messages, ensure_ascii=False, separators=(",", ":")).encode()) + c.flush()


def decompress_messages(blob: bytes) -> list[dict]:
    d = zlib.decompressobj(zdict=_ZDICT)
    return json.loads(d.decompress(blob) + d.flush())


def prompt_text(messages: list[dict]) -> str:
    return "\n\n".join(m["content"] for m in messages)
