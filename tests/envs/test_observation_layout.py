"""The ``observation_layout="chw"`` option: the same planes, channels first, for every game
and player count (and AgileRL's own channels check, where AgileRL is installed)."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import make_env


def test_chw_is_the_hwc_planes_transposed(game_case) -> None:
    spec, n = game_case
    hwc, chw = make_env(spec.name, n), make_env(spec.name, n, observation_layout="chw")
    rows, cols, planes = hwc.observation_space("player_0")["observation"].shape
    assert chw.observation_space("player_0")["observation"].shape == (planes, rows, cols)
    assert chw.unwrapped.state_space.shape == (planes, rows, cols)
    hwc.reset(seed=3)
    chw.reset(seed=3)
    rng = random.Random(0)
    for _ in range(12):
        (a, _, done, cut, _), b = hwc.last(), chw.last()[0]
        assert b["observation"].flags.c_contiguous
        assert np.array_equal(b["observation"], np.moveaxis(a["observation"], -1, 0))
        assert np.array_equal(a["action_mask"], b["action_mask"])
        assert chw.observation_space(chw.agent_selection).contains(b)
        assert np.array_equal(chw.state(), np.moveaxis(hwc.state(), -1, 0))
        if done or cut:
            break
        action = rng.choice(np.flatnonzero(a["action_mask"]).tolist())
        hwc.step(action)
        chw.step(action)
    copy = pickle.loads(pickle.dumps(chw.unwrapped))  # EzPickle keeps the option
    assert copy.observation_space("player_0")["observation"].shape == (planes, rows, cols)


@pytest.mark.parametrize("bad", ["CHW", "nhwc", None, 1])
def test_a_bad_layout_is_one_clear_error(bad) -> None:
    with pytest.raises(InvalidOptionError, match="observation_layout must be 'hwc' or 'chw'"):
        make_env("mole_hill", observation_layout=bad)


def test_agilerl_reads_the_layouts_as_documented(game_case) -> None:
    """AgileRL guesses an image's layout (``is_channels_last``: the smallest axis last means
    channels last, and it transposes). Our planes outnumber rows and columns, so it never
    transposes the default (rows, cols, planes) and takes rows for channels; "chw" it takes as
    meant unless the board has fewer columns than rows (docs/ecosystem.md#agilerl)."""
    utils = pytest.importorskip("agilerl.utils.algo_utils", reason="agilerl not installed")
    spec, n = game_case
    hwc = make_env(spec.name, n).observation_space("player_0")["observation"]
    chw = make_env(spec.name, n, observation_layout="chw").observation_space("player_0")
    rows, cols, planes = hwc.shape
    if planes <= max(rows, cols):
        pytest.skip("the toy's planes are not an image")
    assert utils.is_image_space(hwc) and not utils.is_channels_last(hwc)  # the silent trap
    assert utils.needs_image_transpose(chw) == (cols < rows)
