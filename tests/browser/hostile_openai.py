"""A chat-completions server on 127.0.0.1 whose every answer is hostile: the dialogue, the
monologue and every piece of prose (reflections, bulletin, diary) carry markup and script
payloads. A run made through it shows whether a page would ever run model output as code."""
from __future__ import annotations

import json

from voyage.bench.fake_openai_server import FakeOpenAI, wants_json

TITLE_PAYLOAD = "pwned"
PAYLOADS = (
    f"<script>document.title='{TITLE_PAYLOAD}'</script>",
    f"<img src=x onerror=\"document.title='{TITLE_PAYLOAD}'\">",
    f"javascript:document.title='{TITLE_PAYLOAD}'",
)
SAID = "Mind the ice " + " ".join(PAYLOADS)  # the dialogue every agent shouts
THOUGHT = "They must not know " + " ".join(PAYLOADS)


class HostileOpenAI(FakeOpenAI):
    def _content(self, body: dict, fault: str | None) -> str:
        if not wants_json(body):
            system = body["messages"][0]["content"] if body.get("messages") else ""
            prefix = "[reflection] " if "[reflection]" in system else ""
            return prefix + "A quiet day, they say. " + " ".join(PAYLOADS)
        return json.dumps({"action_type": "communicate", "target_character": None, "volume": "shout",
                           "dialogue": SAID, "duration_minutes": 3, "internal_monologue": THOUGHT})
