"""A throw-away JupyterLab on 127.0.0.1, for the browser tests and the map benchmark.

Settings, runtime and workspaces live under the given folder; every cell is rendered (no
windowing, so a map far down the notebook is in the page) and Lab asks nothing about news or
updates. The server is stopped by its PID.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

__all__ = ["ThrowawayLab"]

_SETTINGS = (
    ("notebook-extension", "tracker", '{"windowingMode": "none"}'),
    ("apputils-extension", "notification", '{"fetchNews": "false", "checkForUpdates": false}'),
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayLab:
    """JupyterLab serving ``ws``; ``url`` and ``token`` once started, :meth:`stop` to end it."""

    def __init__(self, ws: Path, token: str, env: dict | None = None, timeout: float = 120):
        self.ws, self.port, self.token = Path(ws), _free_port(), token
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(self.ws / ".jupyter"),
            "JUPYTER_RUNTIME_DIR": str(self.ws / ".runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(self.ws / ".settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(self.ws / ".workspaces"),
            **(env or {}),
        }
        for ext, name, value in _SETTINGS:
            folder = self.ws / ".settings" / "@jupyterlab" / ext
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.jupyterlab-settings").write_text(value)
        self.log = open(self.ws / "lab.log", "w")
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={self.ws}", "--allow-root",
                "--LabApp.extension_manager=readonly",
                "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=self.ws,
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + timeout
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={token}", timeout=2)
                return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError("JupyterLab did not start:\n" + (self.ws / "lab.log").read_text()[-3000:])
                time.sleep(0.5)

    def stop(self) -> None:
        """Stop the server we started, by its PID."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
