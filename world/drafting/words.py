"""Words of a drafted world: the default world's words a new world must not borrow (the voice
audit's list), and the nouns of a paragraph (the offline drafter builds its world from them). Pure."""
from __future__ import annotations

import functools
import re

# The 1912 world's words: a drafted world speaks them only if the storyteller's paragraph does.
DEFAULT_WORLD_WORDS = ("ship", "aboard", "steward", "cabin", "deck", "voyage", "liner", "New York", "purser")

DETERMINERS = frozenset("the a an its their his her our my every each some this that these those".split())
NOT_NOUNS = frozenset("""old new small little big great long short cold warm hot dark bright high low young same other
only last first few many much more most wooden stone grey gray white black red blue green quiet loud deep narrow
wide empty full whole half own very one two three four five six seven eight nine ten island school hut
off on in at of to by with from for into over under where which who whom and or but not all any both""".split())


def words_in(text: str, words=DEFAULT_WORLD_WORDS) -> set[str]:
    """Which of `words` the text uses, as whole words, in lower case."""
    return {found.lower() for found in _alternation(tuple(words)).findall(text)}


@functools.lru_cache(maxsize=8)
def _alternation(words: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)


def nouns(paragraph: str) -> list[str]:
    """The paragraph's nouns, by a plain rule: the word after a determiner, past any adjective
    (`the old harbour` -> harbour), lower case, first use first, each once."""
    tokens = re.findall(r"[^\W\d_]+", paragraph)
    found: list[str] = []
    for i, token in enumerate(tokens[:-1]):
        if token.lower() not in DETERMINERS:
            continue
        j = i + 1
        while j < len(tokens) - 1 and tokens[j].lower() in NOT_NOUNS:
            j += 1
        word = tokens[j].lower()
        if len(word) >= 3 and word not in DETERMINERS and word not in NOT_NOUNS and word not in found:
            found.append(word)
    return found


def place_name(paragraph: str) -> str:
    """The first capitalised word that does not open a sentence (a proper name), else ''."""
    opens = True
    for token in re.findall(r"[^\W\d_]+|[.!?]", paragraph):
        if token in ".!?":
            opens = True
            continue
        if not opens and token[0].isupper() and len(token) >= 3:
            return token
        opens = False
    return ""
