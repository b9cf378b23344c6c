"""What both the app and the training jobs use: tasks with known answers (copy and reverse, the numbers
grammar and its gold alignment), the paper's update step they are learnt with, and the built-in sentences."""
