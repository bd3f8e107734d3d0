"""clinreg: a versioned registry of clinical evaluation tasks and the datasets that measure them."""
__version__ = "0.1.0"
