"""An outside policy for the agent spec py:docs/examples/my_policy.py:policy."""

import numpy as np


def policy():
    """Plays the first legal action (load your network here instead)."""

    def act(observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])

    act.probabilities = lambda observation, action_mask: action_mask / action_mask.sum()
    return act
