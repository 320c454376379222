"""Django's JSON Lines format, registered in its place (settings.SERIALIZATION_MODULES), with two
changes on the loading side that matter for a run's fixture:

- a natural-key reference is looked up once per fixture file, not once per row (a run's rows name
  the same run, agents and rooms tens of thousands of times; the lookups were most of the cost);
  a failed lookup is not remembered, so forward references still work;
- a line that is not JSON is reported by its number, with the reason (a damaged file).
Writing is Django's own."""
from __future__ import annotations

import json

from django.core.serializers import base
from django.core.serializers.jsonl import Deserializer as DjangoDeserializer
from django.core.serializers.jsonl import Serializer  # noqa: F401  (the format's writer, unchanged)
from django.core.serializers.python import Deserializer as PythonDeserializer


class Deserializer(DjangoDeserializer):
    def __init__(self, stream_or_string, **options):
        if isinstance(stream_or_string, bytes):
            stream_or_string = stream_or_string.decode()
        if isinstance(stream_or_string, str):
            stream_or_string = stream_or_string.splitlines()
        # Django's JSONL __init__ names its own _get_lines; ours reports the line number.
        PythonDeserializer.__init__(self, self._get_lines(stream_or_string), **options)
        self._keys: dict[tuple, object] = {}

    def _handle_fk_field_node(self, field, field_value):
        if not isinstance(field_value, list):
            return super()._handle_fk_field_node(field, field_value)
        key = (field.remote_field.model, field.target_field.attname, tuple(field_value))
        if key not in self._keys:
            value = super()._handle_fk_field_node(field, field_value)
            if value == base.DEFER_FIELD:
                return value
            self._keys[key] = value
        return self._keys[key]

    @staticmethod
    def _get_lines(stream):
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except ValueError as exc:
                raise base.DeserializationError(f"line {number} is not a JSON object ({exc}): the file is "
                                                f"damaged or cut short") from exc
