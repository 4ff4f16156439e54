"""Embedders by name: what ``--embedder NAME`` and ``build(embedder=NAME)`` choose from."""

from __future__ import annotations

import inspect
from typing import Callable

from ..errors import InputError
from .fake import FakeEmbedder
from .minilm import MiniLMEmbedder
from .protocol import Embedder
from .static import StaticEmbedder
from .tfidf import TfidfEmbedder

__all__ = ["EMBEDDERS", "get_embedder"]

EMBEDDERS: dict[str, Callable[..., Embedder]] = {
    "minilm": MiniLMEmbedder,
    "static": StaticEmbedder,
    "tfidf": TfidfEmbedder,
    "fake": FakeEmbedder,
}


def get_embedder(name: str | Embedder, progress: bool = True) -> Embedder:
    """An embedder by registry name, or ``name`` itself when it already follows the protocol.

    ``progress`` goes to the embedders that draw a progress bar (those taking a ``progress``
    option): ``False`` keeps them quiet.
    """
    if not isinstance(name, str):
        if not isinstance(name, Embedder):
            raise InputError(
                f"{name!r} is not an embedder; expected a registry name ({', '.join(EMBEDDERS)}) or an object"
                " with name, version, bound, embed, embed_words and bind_corpus"
                " (subclass workbench.embed.BaseEmbedder for the defaults)"
            )
        return name
    try:
        make = EMBEDDERS[name]
    except KeyError:
        raise InputError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}") from None
    takes_progress = "progress" in inspect.signature(make).parameters
    return make(progress=progress) if takes_progress else make()
