"""What kimi-cli does with a context.jsonl, for the compatibility test.

A stand-in for kimi-cli 1.49 / kosong 0.55, which are not installed here:
kosong's `Message` model restated with pydantic 2 (same fields, defaults,
content coercion and content serializer) and kimi-cli's `Context.restore()`
loop (text mode, blank lines skipped, `json.loads` per line, `_system_prompt`,
`_usage` and `_checkpoint` folded, anything else validated as a message,
a message that does not validate dropped).

Usage: python3 kimi_context_restore.py FILE...
Prints one JSON object per file: the restored state, and every message line
that kosong would not write back byte for byte
(`model_dump_json(exclude_none=True)`, as kimi-cli appends messages), and
the line numbers of dropped messages.
"""

import json
import sys
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, field_serializer, field_validator


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ThinkPart(BaseModel):
    type: Literal["think"] = "think"
    think: str
    encrypted: str | None = None


class MediaURL(BaseModel):
    url: str
    id: str | None = None


class ImageURLPart(BaseModel):
    type: Literal["image_url"] = "image_url"
    image_url: MediaURL


class AudioURLPart(BaseModel):
    type: Literal["audio_url"] = "audio_url"
    audio_url: MediaURL


class VideoURLPart(BaseModel):
    type: Literal["video_url"] = "video_url"
    video_url: MediaURL


PART_TYPES = {"text": TextPart, "think": ThinkPart, "image_url": ImageURLPart, "audio_url": AudioURLPart, "video_url": VideoURLPart}


class FunctionBody(BaseModel):
    name: str
    arguments: str | None  # required key, as in kosong


class ToolCall(BaseModel):
    type: Literal["function"] = "function"
    id: str
    function: FunctionBody
    extras: dict[str, Any] | None = None


class Message(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    name: str | None = None
    content: list[TextPart | ThinkPart | ImageURLPart | AudioURLPart | VideoURLPart]
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    partial: bool | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _coerce(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [TextPart(text=value)]
        # kosong dispatches each part on its "type" through a registry (a KeyError for an unknown one).
        return [PART_TYPES[part["type"]].model_validate(part) if isinstance(part, dict) else part for part in value]

    @field_serializer("content")
    def _serialize_content(self, content: list[Any]) -> Any:
        if len(content) == 1 and isinstance(content[0], TextPart):
            return content[0].text
        return [part.model_dump() for part in content]


def restore(path: str) -> dict[str, Any]:
    history: list[Message] = []
    token_count = 0
    next_checkpoint_id = 0
    system_prompt = None
    not_rewritten: list[dict[str, Any]] = []
    dropped: list[int] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            line_json = json.loads(line)
            if line_json["role"] == "_system_prompt":
                system_prompt = line_json["content"]
                continue
            if line_json["role"] == "_usage":
                token_count = line_json["token_count"]
                continue
            if line_json["role"] == "_checkpoint":
                next_checkpoint_id = line_json["id"] + 1
                continue
            try:
                message = Message.model_validate(line_json)
            except ValidationError:
                # kimi-cli 1.49 drops a line that does not validate (the fixtures show it).
                dropped.append(number)
                continue
            history.append(message)
            written = message.model_dump_json(exclude_none=True)
            if written + "\n" != line:
                not_rewritten.append({"line": number, "kimi": written})
    return {
        "history": [json.loads(m.model_dump_json(exclude_none=True)) for m in history],
        "token_count": token_count,
        "n_checkpoints": next_checkpoint_id,
        "system_prompt": system_prompt,
        "not_rewritten": not_rewritten,
        "dropped": dropped,
    }


if __name__ == "__main__":
    for file in sys.argv[1:]:
        print(json.dumps(restore(file)))
