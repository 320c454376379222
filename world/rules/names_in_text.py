"""Which of many names a text contains, in time that follows the text, not the number of names. Pure.

`NamesInText(names).found(text)` is `{n for n in names if n in text}`: a dream asks it of every row
it reads, and a grown world has thousands of room names. One regular expression finds where any
name's first k characters begin (k: the shortest name's length, at most PREFIX); there, the text is
cut at each length the names sharing those characters have, and each cut looked up in a set. The
copies of a grown world ("Salon (1)" ... "Salon (256)") share a prefix and a few lengths, so a
mention costs a few lookups however many copies there are. Matches may overlap or nest ("Hall" in
"Entrance Hall"), as with `in`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable


PREFIX = 4


class NamesInText:
    def __init__(self, names: Iterable[str]):
        self.names = tuple(dict.fromkeys(names))
        self.order = {name: i for i, name in enumerate(self.names)}  # to give what is found in the names' order
        self.k = min(min((len(n) for n in self.names), default=0), PREFIX)
        # prefix -> [(length, the names of that length with that prefix)], lengths ascending
        by_prefix: dict[str, dict[int, set[str]]] = {}
        for name in self.names:
            by_prefix.setdefault(name[:self.k], {}).setdefault(len(name), set()).add(name)
        self.by_prefix = {prefix: sorted(lengths.items()) for prefix, lengths in by_prefix.items()}
        # A zero-width lookahead matches at every position where a prefix begins, overlapping ones too.
        prefixes = sorted(self.by_prefix)
        self.starts = re.compile("(?=" + "|".join(map(re.escape, prefixes)) + ")") if prefixes else None

    def found(self, text: str) -> set[str]:
        if self.k == 0:  # no names, or an empty one (which every text contains)
            return {n for n in self.names if n in text}
        out = set()
        for m in self.starts.finditer(text):
            i = m.start()
            for length, names in self.by_prefix[text[i:i + self.k]]:
                if (cut := text[i:i + length]) in names:
                    out.add(cut)
        return out
