"""A small Chrome DevTools Protocol client over --remote-debugging-pipe (no websocket library needed)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from reports.helpers import FLAGS


class CDPError(AssertionError):
    pass


class Browser:
    """Headless Chromium driven through fds 3 (commands in) and 4 (replies out), NUL-delimited JSON."""

    def __init__(self, executable: str, profile: Path, width: int = 1280, height: int = 900):
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        # The child must see the pipes as fds 3 and 4 exactly.
        def remap():
            high_r, high_w = os.dup(cmd_r), os.dup(out_w)  # neither may be clobbered by the other's dup2
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        flags = [f for f in FLAGS if not f.startswith(("--enable-logging", "--v="))]
        self.proc = subprocess.Popen(
            [executable, *flags, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            close_fds=False, preexec_fn=remap, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 - the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("chromium did not answer in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise CDPError("chromium closed the pipe")
                self._buf += chunk
        raw, _, self._buf = self._buf.partition(b"\0")
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, *, session: bool = False, timeout: float = 30) -> dict:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def open(self, url: str, width: int, height: int = 900) -> None:
        """A new tab showing `url` at the given viewport, its console problems collected in self.events."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=True)
        self.send("Runtime.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=True)
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True,
                                                "userGesture": True}, session=True)
        if "exceptionDetails" in result:
            raise CDPError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the element's centre (after scrolling it into view)."""
        box = self.eval(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
            if (!el) return null; el.scrollIntoView({{block: "center"}}); const r = el.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        if box is None:
            raise CDPError(f"no element {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1}, session=True)

    def type(self, selector: str, text: str) -> None:
        self.click(selector)
        self.send("Input.insertText", {"text": text}, session=True)

    def console_problems(self) -> list[str]:
        return [json.dumps(e)[:300] for e in self.events
                if e.get("method") in ("Runtime.exceptionThrown", "Runtime.consoleAPICalled")]
