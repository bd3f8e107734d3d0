"""One reader per file format, each for the whole-file read (`sources.read`) and, where the format streams, the
batched read (`sources.streams`): csv (CSV, TSV), json, jsonl, arrow (parquet, feather, Arrow IPC), office
(xlsx, docx), text (text files, line-aligned files) and xml."""
