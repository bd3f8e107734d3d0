"""A record's data, up to rows: locating and fetching its files (hub, GitHub, PhysioNet, URL, local mirror),
reading them (one reader per format, for the whole-file and the streamed read), the read steps and the
template sandbox. Imports point down only: `exports -> instances -> sources -> core`."""
