"""The contributor path: the new-dataset scaffold, the GitHub issue form and the JSON Schemas editors use."""
