"""Training jobs: the loop, batches, evaluation, health measurements, the numbers model."""
