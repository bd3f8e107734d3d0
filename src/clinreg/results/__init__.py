"""Evaluation results: read HELM, lm-eval and Inspect outputs into one normalised file, rank models by them, and
write a results file in another tool's format (`convert`)."""
