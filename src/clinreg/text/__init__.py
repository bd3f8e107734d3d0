"""Text and file utilities with no knowledge of the registry: safe writes, safe output, the JSON envelope,
YAML scalars, regular-expression guards, did-you-mean suggestions and running git."""
