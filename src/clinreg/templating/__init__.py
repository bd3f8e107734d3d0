"""The input template engine: a record's `render` templates and `keep:` filters, run on untrusted rows.

`sandbox` (`InputTemplate`: the capped jinja2 sandbox, and the fast paths it picks), `compiled` (the loop-free
subset as Python closures), `vectorized` (that subset over a whole Arrow batch), `rowfilters` (`FilterExpression`,
the `keep:` filters) and `columns` (Arrow column helpers the engine and the build share). It knows nothing of
records' files or of instances: `sources` (the read steps) and `instances` (the mapping build) call it. The
package imports none of its modules itself, so importing one loads jinja2 or pyarrow only where that one needs it.
"""

__all__ = ["columns", "compiled", "rowfilters", "sandbox", "vectorized"]
