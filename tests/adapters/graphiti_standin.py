"""A deterministic stand-in for the model Graphiti asks (an LLM, an embedder, a reranker), in
process: Graphiti itself and its embedded Kuzu graph are real.

The "LLM" reads the episode between <CURRENT_MESSAGE> tags: its entities are the first two
capitalised words, and its one fact relates them and is the episode's text, so that a search
finds the fact and a test can restate it. Every other answer is the smallest one the asked
model accepts (no duplicates, no summaries, no dates)."""

import hashlib
import math
import re
import types
import typing

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig

DIMENSIONS = 64
_WORD = re.compile(r"\w+")


def _episode(messages) -> str:
    text = messages[-1].content
    found = re.search(r"<CURRENT_MESSAGE>\s*(.*?)\s*</CURRENT_MESSAGE>", text, re.S)
    return found.group(1) if found else ""


def _entities(episode: str) -> list[str]:
    names = []
    for word in re.findall(r"\b[A-Z][a-z]{2,}\b", episode):
        if word not in names:
            names.append(word)
    return (names + ["Ana", "Memory"])[:2] if len(names) < 2 else names[:2]


def _smallest(annotation):
    """The smallest value of a field's type: an empty list, "", 0, False, None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        return None if type(None) in args else _smallest(args[0])
    if origin in (list, tuple, set):
        return []
    if origin is dict:
        return {}
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return _minimal(annotation)
    return {str: "", int: 0, float: 0.0, bool: False}.get(annotation)


def _minimal(model) -> dict:
    return {
        name: _smallest(field.annotation)
        for name, field in model.model_fields.items()
        if field.is_required()
    }


class StandInLLM(LLMClient):
    def __init__(self):
        super().__init__(LLMConfig(api_key="standin", model="standin"), cache=False)

    async def _generate_response(self, messages, response_model=None, *args, **kwargs):
        name = response_model.__name__ if response_model else ""
        episode = _episode(messages)
        first, second = _entities(episode)
        if name == "ExtractedEntities":
            entities = [{"name": n, "entity_type_id": 0} for n in (first, second)]
            return {"extracted_entities": entities}
        if name == "ExtractedEdges":
            edge = {
                "source_entity_name": first,
                "target_entity_name": second,
                "relation_type": "NOTED",
                "fact": episode,
            }
            return {"edges": [edge] if episode else []}
        return _minimal(response_model) if response_model else {}


def _vector(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in _WORD.findall(text.casefold()):
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class StandInEmbedder(EmbedderClient):
    async def create(self, input_data):
        text = input_data if isinstance(input_data, str) else " ".join(map(str, input_data))
        return _vector(text)

    async def create_batch(self, input_data_list):
        return [_vector(text) for text in input_data_list]


class StandInReranker(CrossEncoderClient):
    async def rank(self, query, passages):
        asked = set(_WORD.findall(query.casefold()))

        def score(passage):
            words = set(_WORD.findall(passage.casefold()))
            return len(asked & words) / (len(asked) or 1)

        return sorted(((p, score(p)) for p in passages), key=lambda pair: -pair[1])
