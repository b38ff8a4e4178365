"""The Wilson interval always contains the observed rate (no rounding past it)."""

from tabletop_zoo.baselines.evaluation.stats import wilson_interval


def test_interval_contains_the_rate_for_every_count():
    for trials in range(1, 201):
        for successes in range(trials + 1):
            low, high = wilson_interval(successes, trials)
            rate = successes / trials
            assert 0.0 <= low <= rate <= high <= 1.0, (successes, trials, low, high)


def test_all_wins_reach_one_exactly():
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 10)[0] == 0.0
