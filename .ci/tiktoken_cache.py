"""Put tiktoken's o200k_base file into a cache folder, rebuilt from the npm `tiktoken` package (CI is offline).

Inspect AI's mock model counts tokens with tiktoken's o200k_base, which tiktoken downloads from a blob store
that CI cannot reach. The npm package ships the same ranks in a compact form; this expands them and writes
the file only if its sha256 equals the hash tiktoken itself checks, so the result is the genuine file.

usage: python .ci/tiktoken_cache.py TIKTOKEN_NPM_TGZ CACHE_DIR   (then TIKTOKEN_CACHE_DIR=CACHE_DIR)
"""

import hashlib
import json
import sys
import tarfile
from pathlib import Path

URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def main(tgz: str, cache_dir: str) -> int:
    with tarfile.open(tgz) as archive:
        member = archive.getmember("package/encoders/o200k_base.json")
        compact = json.load(archive.extractfile(member))["bpe_ranks"]
    ranks: dict[str, int] = {}
    for line in compact.split("\n"):
        if line:
            _, offset, *tokens = line.split(" ")
            ranks.update((token, int(offset) + i) for i, token in enumerate(tokens))
    data = "".join(f"{token} {rank}\n" for token, rank in sorted(ranks.items(), key=lambda item: item[1])).encode()
    if hashlib.sha256(data).hexdigest() != SHA256:
        print("tiktoken_cache: the rebuilt o200k_base does not match tiktoken's hash; not written", file=sys.stderr)
        return 1
    target = Path(cache_dir) / hashlib.sha1(URL.encode()).hexdigest()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    print(f"tiktoken_cache: wrote o200k_base ({len(ranks)} ranks) to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
