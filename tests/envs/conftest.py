"""Fixtures of the env tests: ``game_case`` gives ``(spec, num_players)`` of every game."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tabletop_zoo.envs.registry import GameSpec
from tests.envs.contract_cases import CASE_IDS, CASES, registered


@pytest.fixture(params=CASES, ids=CASE_IDS)
def game_case(request: pytest.FixtureRequest) -> Iterator[tuple[GameSpec, int]]:
    """``(spec, num_players)``; the Nim toy is in ``GAMES`` while the test runs."""
    name, num_players = request.param
    with registered(name) as spec:
        yield spec, num_players
