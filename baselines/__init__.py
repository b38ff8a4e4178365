"""tabletop_zoo.baselines: agents (random, greedy, MCTS, PPO)."""
