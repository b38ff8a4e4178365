"""Outside policies as agents (``py:FILE:FACTORY``): the spec form, the file's loading and
its one-line errors, and :class:`PolicyAgent`'s checks of what the policy answers."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import absolute_spec, make_agent, parse_agent_spec
from tabletop_zoo.baselines.agents.checks import check_agent_spec
from tabletop_zoo.baselines.agents.outside import PolicyAgent, load_policy
from tabletop_zoo.baselines.cli import check_agents
from tabletop_zoo.baselines.evaluation.arena import make_env, play_game
from tabletop_zoo.baselines.training.config import TrainConfig
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, ModelFileError

POLICIES = '''
import os

import numpy as np
from helper_beside_it import FIRST  # the file's folder is on sys.path while it imports

class First:
    """Plays the first legal action; counts its resets."""
    def __init__(self):
        self.seeds = []
    def __call__(self, observation, action_mask):
        return np.flatnonzero(action_mask)[FIRST]  # a NumPy integer
    def probabilities(self, observation, action_mask):
        return action_mask / action_mask.sum()
    def reset(self, seed):
        self.seeds.append(seed)

def first(rows=None):
    return First()

number = 3
def raising(): raise OSError("no weights at model.pt")
def three(): return 3
def needs_a_path(path): return First()
'''


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "helper_beside_it.py").write_text("FIRST = 0\n")
    (tmp_path / "policies.py").write_text(POLICIES)
    (tmp_path / "broken.py").write_text("def policy(:\n")
    (tmp_path / "raising.py").write_text("import json\njson.loads('{')\n")
    (tmp_path / "notes.txt").write_text("x")
    return tmp_path


def test_the_spec_form_and_its_absolute_path(tmp_path, monkeypatch) -> None:
    assert parse_agent_spec("py:my_policy.py:policy") == ("py", "my_policy.py:policy", None)
    assert parse_agent_spec("PY:C:/x/p.py:make") == ("py", "C:/x/p.py:make", None)
    for bad in ("py:", "py:my_policy.py", "py:my_policy.py:", "py::policy", "py:p.py:1x"):
        with pytest.raises(InvalidOptionError, match="'py:FILE:FACTORY' needs a Python file"):
            parse_agent_spec(bad)
    monkeypatch.chdir(tmp_path)
    assert absolute_spec("py:a/p.py:make") == f"py:{tmp_path}/a/p.py:make"


def test_a_policy_file_plays_whole_games_with_analysis_and_resets(folder) -> None:
    agent = make_agent(f"py:{folder}/policies.py:first")
    assert isinstance(agent, PolicyAgent) and agent.name == f"py:{folder}/policies.py:first"
    agent.keep_analysis = True
    env = make_env("mole_hill")
    result = play_game(env, [agent, make_agent("random", seed=1)], seed=5)
    assert result.num_steps > 0 and len(agent.policy.seeds) == 1  # reset(seed) once a game
    analysis = agent.last_analysis
    assert analysis is not None and analysis["probs"] == pytest.approx(
        [1 / len(analysis["actions"])] * len(analysis["actions"])
    )


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("missing.py:first", "missing.py': no such file"),
        ("notes.txt:first", "notes.txt': not a .py file"),
        ("broken.py:policy", "importing it failed: SyntaxError: "),
        ("raising.py:policy", "importing it failed: json.decoder.JSONDecodeError: Expecting"),
        ("policies.py:nothing", "has no 'nothing'"),
        ("policies.py:number", "number is not callable"),
        ("policies.py:raising", "raising() raised OSError: no weights at model.pt"),
        ("policies.py:three", "three() returned 3, not a policy"),
        ("policies.py:needs_a_path", "needs_a_path() raised TypeError: "),
    ],
)
def test_bad_files_and_factories_get_one_line(folder, argument, message) -> None:
    with pytest.raises(ModelFileError) as caught:
        load_policy(f"{folder}/{argument}")
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"agent spec 'py:{folder}/{argument}': ")


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (99, "chose 99: not a legal action now"),
        (-1, "chose -1: not a legal"),
        (0, "chose 0: not a legal"),
        (1.0, "chose 1.0: not an integer"),
        (True, "chose True: not an integer"),
        ("up", "chose 'up': not an integer"),
    ],
)
def test_an_answer_that_is_not_a_legal_action_names_the_agent(answer, message) -> None:
    agent = PolicyAgent(lambda observation, mask: answer, name="py:p.py:make")
    with pytest.raises(IllegalActionError, match=f"agent 'py:p.py:make' {message}"):
        agent.act(np.zeros(3), np.array([0, 1, 1], np.int8))


def test_probabilities_of_another_size_are_one_line() -> None:
    policy = lambda observation, mask: 1  # noqa: E731
    policy.probabilities = lambda observation, mask: [0.5, 0.5]
    agent = PolicyAgent(policy, name="p")
    assert agent.act(None, np.array([0, 1, 1])) == 1  # no analysis asked: not called
    agent.keep_analysis = True
    with pytest.raises(IllegalActionError, match="gave 2 numbers for 3 actions"):
        agent.act(None, np.array([0, 1, 1]))


def test_specs_kept_in_files_refuse_py(folder) -> None:
    spec = f"py:{folder}/policies.py:first"
    assert check_agent_spec(spec) == spec
    with pytest.raises(InvalidOptionError, match="--members: agent spec .*'py:' is not allowed"):
        check_agents(["random", spec], flag="--members", code=False)
    with pytest.raises(InvalidOptionError, match="opponent pool: .*'py:' is not allowed"):
        TrainConfig(game="mole_hill", baselines=("random", spec), runs_dir=str(folder)).resolved()


def test_a_file_is_imported_once_until_it_changes(tmp_path) -> None:
    path = tmp_path / "counted.py"
    path.write_text(
        "import builtins\nbuiltins.imports = getattr(builtins, 'imports', 0) + 1\n"
        "def make(): return lambda observation, mask: 1\n"
    )
    import builtins

    first = load_policy(f"{path}:make")
    assert load_policy(f"{path}:make")(None, None) == first(None, None) == 1
    assert builtins.imports == 1
    path.write_text("def make(): return lambda observation, mask: 2\n")
    os.utime(path, ns=(0, path.stat().st_mtime_ns + 10**9))  # a later version
    assert load_policy(f"{path}:make")(None, None) == 2
    del builtins.imports
