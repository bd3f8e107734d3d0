"""A record's data, up to rows: locating and fetching its files (hub, GitHub, PhysioNet, URL, local mirror),
reading them (one reader per format, for the whole-file and the streamed read) and the read steps, whose
templates and filters the engine in `clinreg.templating` runs. Imports point down only:
`exports -> instances -> sources -> templating -> core`."""
