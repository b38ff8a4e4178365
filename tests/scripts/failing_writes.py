"""A child process of ``test_saves.py``: commands whose writes fail as on a full disk, by a
file-size limit (``RLIMIT_FSIZE``, SIGXFSZ ignored: a write past the limit is ``EFBIG``,
"File too large"). Each case runs in its own folder: its first command without the limit
(the files a user already has), then the command under the limit. Prints one JSON object:
per case the exit code, the stderr lines, the files the failed run changed and the
temporary files it left.

    python -m tests.scripts.failing_writes FOLDER
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import sys
from pathlib import Path

from tabletop_zoo.baselines import commands

TRAIN = "train --game mole_hill --name r --timesteps 64 --n-envs 2 --n-steps 32 --batch-size 64"
TRAIN += " --n-epochs 1 --net-arch 8 --eval-every 0 --snapshot-every 0 --final-eval-games 1"
AZ = "train-alphazero --game mole_hill --out az.npz --iterations 1 --games-per-iteration 2"
AZ += " --simulations 4 --hidden 8"
EVALUATE = "evaluate --game mole_hill --agents random,greedy --games 2 --out ."
RATE = "rate --game mole_hill --agent greedy --against random --rounds 10 --no-progress --out ."
RATE += " --csv games.csv"
RECORD = "record --game mole_hill --agents random,greedy --out g.gif"
ADD = "make-reference add --name mole_hill-2p-alphazero --game mole_hill --num-players 2"
ADD += " --command test --commit abc --az source.npz"
CASES = {  # name: the command, its limit in bytes, the command run first without it
    # the second checkpoint (Adam's moments added) is past the limit, the first is not
    "train": (f"{TRAIN} --checkpoint-every 0 --no-progress", 200_000, None),
    "train-alphazero": (f"{AZ} --checkpoint-every 0 --overwrite", 1000, AZ),
    "evaluate": (f"{EVALUATE} --no-progress", 2000, EVALUATE),  # its chart is past the limit
    "rate": (RATE, 2000, RATE),  # its record of the games grows past the limit
    "record": (RECORD, 1000, RECORD.replace("random,", "greedy,")),
    "make-reference": (ADD, 1000, ADD),
}


def run(command: str) -> tuple[int, list[str]]:
    """The console script with ``command`` in this process: its exit code, stderr lines."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            commands.main(command.split())
        except SystemExit as exc:
            code = exc.code
    return code, err.getvalue().splitlines()


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def main(root: Path) -> dict[str, dict]:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    make_reference = commands.command_module("make-reference")
    from tabletop_zoo.baselines.agents.reference import reference_path

    results = {}
    for name, (command, limit, first) in CASES.items():
        folder = root / name
        folder.mkdir()
        os.chdir(folder)
        if name == "make-reference":  # the shipped files of a copy, in the case's folder
            make_reference.MANIFEST_PATH = folder / "manifest.json"
            make_reference.REFERENCE_DIR = folder
            (folder / "source.npz").write_bytes(reference_path(ADD.split()[3]).read_bytes())
        if first is not None:
            assert run(first)[0] == 0, name
        before = files(folder)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            code, err = run(command)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        after = files(folder)
        changed = sorted(k for k in before if after.get(k) != before[k])
        left = sorted(k for k in after if ".tmp-" in k)
        results[name] = {"code": code, "err": err, "changed": changed, "temporaries": left}
    return results


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
