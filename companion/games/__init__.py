"""The registry of games the box referees, by code name."""

from __future__ import annotations

from .base import Rules

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
    return list(_GAMES.values())


def _load() -> None:
    from . import paytoplay  # noqa: F401  (registers itself)
