"""Training-side helpers: health measurements and tasks with known answers."""
