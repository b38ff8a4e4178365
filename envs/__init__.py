"""tabletop_zoo.envs: PettingZoo AEC environments for Arktia and Mole Hill."""
