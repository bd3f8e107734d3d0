"""A loopback emulator of the Hugging Face Hub API, standard library only, for driving the real huggingface_hub client.

It serves test repositories (plain folders) at a commit of our choosing, with the endpoints and headers the client
reads:

- `GET /api/datasets/{repo}` and `/api/datasets/{repo}/revision/{rev}`: repo info with `sha` and `siblings`;
- `GET /api/datasets/{repo}/tree/{rev}[/{path}]`: the tree listing (recursive or not), LFS entries with sha256;
- `HEAD` and `GET /datasets/{repo}/resolve/{rev}/{path}`: a 302 to a second port (as the real hub sends file bodies to
  its file servers), with `X-Repo-Commit`, `X-Linked-Etag`, `X-Linked-Size` and `ETag`;
- the second port answers `GET /files/{sha256}` with the bytes.

Every request is logged (method, port, path, Authorization header present or not) so a test can assert what was
asked for. Faults are switched on per path kind: `fault = {"info": 500, "tree": 404, "resolve": 401, "file": 500}`,
with `"stall"` in place of a status to stall for `stall_seconds`; `gated` makes every resolve answer 401 as the real
hub does for a gated repository without a token.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlparse


@dataclass
class Repo:
    folder: Path
    commit: str
    branch: str = "main"

    def files(self) -> dict[str, Path]:
        return {p.relative_to(self.folder).as_posix(): p for p in sorted(self.folder.rglob("*")) if p.is_file()}


@dataclass
class Request:
    method: str
    server: str  # "api" or "files"
    path: str
    authorized: bool


@dataclass
class HubEmulator:
    repos: dict[str, Repo] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    fault: dict[str, object] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)
    stall_seconds: float = 12.0
    fired: list[str] = field(default_factory=list)  # the fault kinds that were answered with a fault
    delay_seconds: float = 0.0  # every API answer waits this long: a slow but working hub

    def add(self, repo_id: str, folder: Path, commit: str | None = None) -> str:
        commit = commit or hashlib.sha1(repo_id.encode()).hexdigest()
        self.repos[repo_id] = Repo(Path(folder), commit)
        return commit

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> "HubEmulator":
        self._files = _server(self, "files")
        self._api = _server(self, "api")
        for server in (self._files, self._api):
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        for server in (self._api, self._files):
            server.shutdown()
            server.server_close()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._api.server_address[1]}"

    @property
    def files_endpoint(self) -> str:
        return f"http://127.0.0.1:{self._files.server_address[1]}"

    def file_requests(self) -> list[Request]:
        """Requests for file contents or file metadata: resolve URLs on the API port and any file-server GET."""
        return [r for r in self.log if r.server == "files" or "/resolve/" in r.path]


def _server(hub: HubEmulator, role: str) -> ThreadingHTTPServer:
    handler = type(f"{role.title()}Handler", (_Handler,), {"hub": hub, "role": role})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    return server


class _Handler(BaseHTTPRequestHandler):
    hub: HubEmulator
    role: str
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def do_HEAD(self) -> None:
        self._route(head=True)

    def do_GET(self) -> None:
        self._route(head=False)

    # ------------------------------------------------------------------ routing

    def _route(self, head: bool) -> None:
        url = urlparse(self.path)
        self.hub.log.append(Request(self.command, self.role, url.path, "Authorization" in self.headers))
        if self.role == "api" and self.hub.delay_seconds:
            time.sleep(self.hub.delay_seconds)
        if self.role == "files" or url.path.startswith("/files/"):  # the API port too, when it stands as a proxy
            return self._file_body(url.path, head)
        parts = [unquote(p) for p in url.path.strip("/").split("/")]
        if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
            repo_id = f"{parts[2]}/{parts[3]}"
            rest = parts[4:]
            if not rest or rest[0] == "revision":
                return self._info(repo_id, rest[1] if len(rest) > 1 else None)
            if rest[0] == "tree" and len(rest) >= 2:
                recursive = parse_qs(url.query).get("recursive", ["false"])[0].lower() == "true"
                return self._tree(repo_id, rest[1], "/".join(rest[2:]), recursive)
        if parts[:1] == ["datasets"] and len(parts) >= 6 and parts[3] == "resolve":
            return self._resolve(f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]), head)
        self._error(404, "Entry not found", "EntryNotFound")

    def _faulted(self, kind: str) -> bool:
        fault = self.hub.fault.get(kind)
        if fault is None:
            return False
        self.hub.fired.append(kind)
        if fault == "stall":
            time.sleep(self.hub.stall_seconds)
            fault = 504
        self._error(int(fault), f"emulated fault on {kind}", "")
        return True

    def _repo(self, repo_id: str, revision: str | None) -> Repo | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._error(404, "Repository not found", "RepoNotFound")
            return None
        if revision not in (None, repo.branch, repo.commit):
            self._error(404, f"Invalid rev id: {revision}", "RevisionNotFound")
            return None
        return repo

    def _info(self, repo_id: str, revision: str | None) -> None:
        if self._faulted("info"):
            return
        repo = self._repo(repo_id, revision)
        if repo is None:
            return
        body = {
            "_id": repo.commit[:24], "id": repo_id, "author": repo_id.split("/")[0], "sha": repo.commit,
            "private": False, "gated": "manual" if repo_id in self.hub.gated else False, "disabled": False,
            "downloads": 0, "likes": 0, "tags": [], "lastModified": "2025-01-01T00:00:00.000Z",
            "createdAt": "2024-01-01T00:00:00.000Z", "cardData": {},
            "siblings": [{"rfilename": name} for name in repo.files()],
        }
        self._json(body, {"X-Repo-Commit": repo.commit})

    def _tree(self, repo_id: str, revision: str, path: str, recursive: bool) -> None:
        if self._faulted("tree"):
            return
        repo = self._repo(repo_id, revision)
        if repo is None:
            return
        prefix = f"{path.strip('/')}/" if path.strip("/") else ""
        entries, folders = [], set()
        for name, file in repo.files().items():
            if not name.startswith(prefix):
                continue
            rest = name[len(prefix):]
            if not recursive and "/" in rest:
                folders.add(prefix + rest.split("/")[0])
                continue
            if recursive:
                parts = rest.split("/")[:-1]
                folders.update(prefix + "/".join(parts[: i + 1]) for i in range(len(parts)))
            data = file.read_bytes()
            sha = hashlib.sha256(data).hexdigest()
            entries.append({
                "type": "file", "oid": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(), "size": len(data),
                "path": name, "lfs": {"oid": sha, "size": len(data), "pointerSize": 134},
            })
        entries += [{"type": "directory", "oid": hashlib.sha1(f.encode()).hexdigest(), "size": 0, "path": f}
                    for f in sorted(folders)]
        if not entries and prefix:
            return self._error(404, f"{path} does not exist", "EntryNotFound")
        self._json(sorted(entries, key=lambda e: e["path"]))

    def _resolve(self, repo_id: str, revision: str, path: str, head: bool) -> None:
        if repo_id in self.hub.gated and "Authorization" not in self.headers:
            return self._error(401, f"Access to dataset {repo_id} is restricted. You must have access to it and be "
                                    "authenticated to access it. Please log in.", "GatedRepo")
        if self._faulted("resolve"):
            return
        repo = self._repo(repo_id, revision)
        if repo is None:
            return
        file = repo.files().get(path)
        if file is None:
            return self._error(404, "Entry not found", "EntryNotFound")
        data = file.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        self.send_response(302)
        self.send_header("Location", f"{self.hub.files_endpoint}/files/{sha}?name={quote(path)}")
        self.send_header("X-Repo-Commit", repo.commit)
        self.send_header("X-Linked-Etag", f'"{sha}"')
        self.send_header("X-Linked-Size", str(len(data)))
        self.send_header("ETag", f'W/"{sha[:20]}"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _file_body(self, path: str, head: bool) -> None:
        if self._faulted("file"):
            return
        sha = path.rsplit("/", 1)[-1]
        for repo in self.hub.repos.values():
            for file in repo.files().values():
                data = file.read_bytes()
                if hashlib.sha256(data).hexdigest() == sha:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.send_header("ETag", f'"{sha}"')
                    self.end_headers()
                    if not head:
                        self.wfile.write(data)
                    return
        self._error(404, "no such object", "")

    # ------------------------------------------------------------------ replies

    def _json(self, body, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, status: int, message: str, code: str) -> None:
        data = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if code:
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
