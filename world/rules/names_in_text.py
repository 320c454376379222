"""Which of many names a text contains, in time that follows the text, not the number of names. Pure.

`NamesInText(names).found(text)` is `{n for n in names if n in text}`: a dream asks it of every row
it reads, and a grown world has thousands of room names. One regular expression finds where any
name's first k characters begin (k: the shortest name's length); only the names sharing those k
characters are compared there. Matches may overlap or nest ("Hall" in "Entrance Hall"), as with `in`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable


class NamesInText:
    def __init__(self, names: Iterable[str]):
        self.names = tuple(dict.fromkeys(names))
        self.k = min((len(n) for n in self.names), default=0)
        self.by_prefix: dict[str, list[str]] = {}
        for name in self.names:
            self.by_prefix.setdefault(name[:self.k], []).append(name)
        # A zero-width lookahead matches at every position where a prefix begins, overlapping ones too.
        prefixes = sorted(self.by_prefix)
        self.starts = re.compile("(?=" + "|".join(map(re.escape, prefixes)) + ")") if prefixes else None

    def found(self, text: str) -> set[str]:
        if self.k == 0:  # no names, or an empty one (which every text contains)
            return {n for n in self.names if n in text}
        out = set()
        for m in self.starts.finditer(text):
            i = m.start()
            for name in self.by_prefix[text[i:i + self.k]]:
                if text.startswith(name, i):
                    out.add(name)
        return out
