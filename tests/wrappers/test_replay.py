"""HTML replays without a browser: one self-contained file holding every position's picture,
written by RecordEpisode and by ``tabletop-zoo record --html``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.evaluation.arena import play_game
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import make_env
from tabletop_zoo.wrappers.recording import RecordEpisode
from tests.envs.svg_positions import check_picture


def page_data(path: Path) -> dict:
    """The replay's data, its pictures put back together."""
    text = path.read_text()
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', text)
    data = json.loads(found.group(1))
    for frame in data["frames"]:
        frame["svg"] = "".join(data["parts"][k] for k in frame["svg"])
    return data


def test_a_replay_is_one_file_that_needs_nothing_from_outside(tmp_path: Path) -> None:
    path = tmp_path / "game.html"
    env = RecordEpisode(make_env("mole_hill"), path=path)  # no render mode needed
    states = []
    agents = [make_agent("random", seed=0), make_agent("random", seed=1)]
    play_game(env, agents, seed=4, on_start=lambda e: states.append(e.game_state.clone()),
              on_step=lambda e, s, a: states.append(e.game_state.clone()))  # fmt: skip
    assert env.saved == [path]
    text = path.read_text()
    outside = re.findall(r"https?://(?!www\.w3\.org/2000/svg)|\bsrc=|\bhref=|@import|url\(", text)
    assert not outside
    data = page_data(path)
    frames = data["frames"]
    assert data["result"].startswith("game over")
    # one picture per position, plus round 1's finished garden before round 2 clears it
    (start,) = [k for k, f in enumerate(frames) if f["move"] is None and k > 0]
    assert len(frames) == len(states) + 1 and frames[start]["lines"][0] == "round 2 begins"
    assert frames[start - 1]["lines"][1] == "round 1 is over"
    assert len(re.findall("data-piece=", frames[start - 1]["svg"])) == len(
        states[start - 2].trail
    ) + (frames[start - 1]["label"] == "player_0 (mole)")
    for k in (0, start - 2, start, len(frames) - 1):
        check_picture("mole_hill", frames[k]["svg"], states[k - (k >= start)])
    assert [f["move"] for f in data["frames"][1:3]] == [
        states[0].action_to_string(states[1].trail[0]),
        data["frames"][2]["move"],
    ]


def test_record_episode_refuses_a_replay_to_another_file_type() -> None:
    with pytest.raises(InvalidOptionError, match="use a .html file name"):
        RecordEpisode(make_env("mole_hill"), path="game.gif", format="html")
    with pytest.raises(InvalidOptionError, match="'gif', 'mp4' or 'html'"):
        RecordEpisode(make_env("mole_hill"), format="pdf")
