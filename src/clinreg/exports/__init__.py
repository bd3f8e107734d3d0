"""Writing what other tools read: a harness folder per harness (lm-eval, Inspect AI, HELM), built from what the
export holds (`contents`), with the files they ship (`harness_files/`), and a Croissant description per record.
The instance files of plain `clinreg build` are written by `clinreg.instances.write`."""
