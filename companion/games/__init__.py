"""The registry of games the box referees, by code name.

Every module in this package that defines a game registers it at import; :func:`_load` imports
them all, so adding a game is adding its module.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import Rules

LOBBY_ORDER = ("triangle", "trio", "pictomania", "closest", "paytoplay", "quiz")
"""The order of the lobby's game menu; games not listed come after, by name."""

_GAMES: dict[str, Rules] = {}


def register(rules: Rules) -> Rules:
    if rules.name in _GAMES:
        raise ValueError(f"game {rules.name!r} is registered twice")
    _GAMES[rules.name] = rules
    return rules


def get(name: str) -> Rules:
    """The rules of game ``name``; KeyError naming the known games otherwise."""
    _load()
    try:
        return _GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games are {', '.join(sorted(_GAMES))}") from None


def all_games() -> list[Rules]:
    """Every registered game, in lobby order."""
    _load()
    rank = {name: i for i, name in enumerate(LOBBY_ORDER)}
    return sorted(_GAMES.values(), key=lambda g: (rank.get(g.name, len(rank)), g.name))


def _load() -> None:
    for module in pkgutil.iter_modules(__path__):
        if module.name not in ("base", "options"):
            importlib.import_module(f"{__name__}.{module.name}")
