"""N DP Lab replicas behind nginx, on one machine: `python -m deploy.replicas`.

    export DPLAB_DATABASE_URL=postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME
    python -m deploy.replicas --replicas 2 --listen 0.0.0.0:8080

Starts `--replicas` Streamlit processes with `python -m serve` (app.py with the repo's config
and TCP_NODELAY, docs/NAGLE.md) on 127.0.0.1:BASE_PORT, BASE_PORT+1, …, and nginx in front
with deploy/nginx.conf (cookie stickiness, websockets, limits), each in the foreground; Ctrl-C
(or SIGTERM) stops them all, and so does any one of them dying.

- **One cookie secret.** Every replica gets the same STREAMLIT_SERVER_COOKIE_SECRET (taken
  from the environment, or made up for this run), which Streamlit reads only from its config
  file or that variable.
- **One database.** The class poll's answers must be shared, so the replicas need PostgreSQL:
  `--database-url` or DPLAB_DATABASE_URL (README, "Where the answers are stored").
- **nginx's files** (rendered config, pid, logs, temp files) go to `--prefix`, a fresh
  temporary directory by default, so the system's nginx is not touched.
  `--print-nginx-conf` prints the `http`-level file for a system nginx instead of running.

Options after `--` go to every replica's `streamlit run`, e.g. `-- --server.maxMessageSize 50`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DATABASE_URL_ENV = "DPLAB_DATABASE_URL"
COOKIE_SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"
START_TIMEOUT = 90.0  # seconds for a replica to answer its health check


class DeployError(RuntimeError):
    """Something that stops the deployment from starting, said for the person running it."""


def render_nginx_site(listen: str, replica_ports: list[int], access_log: str,
                      replica_host: str = "127.0.0.1") -> str:
    """deploy/nginx.conf with its markers filled in (nginx `http` context)."""
    upstreams = "\n".join(f"    server {replica_host}:{port} max_fails=1 fail_timeout=10s;"
                          for port in replica_ports)
    names = "\n".join(f"    {replica_host}:{port}  {i};" for i, port in enumerate(replica_ports, 1))
    text = TEMPLATE.read_text()
    for marker, value in {"@LISTEN@": listen, "@UPSTREAM_SERVERS@": upstreams,
                          "@REPLICA_NAMES@": names, "@ACCESS_LOG@": access_log}.items():
        text = text.replace(marker, value)
    return text


def render_nginx_main(prefix: Path, site: Path) -> str:
    """A whole nginx.conf that keeps every file nginx writes under `prefix`."""
    temp = {name: prefix / "temp" / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    return f"""# Written by deploy/replicas.py; the site itself is {site.name} (from deploy/nginx.conf).
daemon off;
worker_processes 1;
worker_rlimit_nofile 16384;
pid {prefix / 'nginx.pid'};
error_log {prefix / 'error.log'} warn;

events {{
    worker_connections 8192;
}}

http {{
    client_body_temp_path {temp['body']};
    proxy_temp_path {temp['proxy']};
    fastcgi_temp_path {temp['fastcgi']};
    uwsgi_temp_path {temp['uwsgi']};
    scgi_temp_path {temp['scgi']};
    server_tokens off;
    include {site};
}}
"""


@dataclass
class Deployment:
    url: str  # nginx's address, e.g. http://127.0.0.1:8080
    replica_ports: list[int]
    replica_pids: list[int]
    nginx_pid: int
    prefix: Path
    processes: list[subprocess.Popen]  # the replicas, then nginx


def _wait_healthy(url: str, process: subprocess.Popen, what: str, deadline: float) -> None:
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            raise DeployError(f"{what} exited with status {process.returncode} while starting")
        if time.monotonic() > deadline:
            raise DeployError(f"{what} did not answer {url}/_stcore/health in {START_TIMEOUT:.0f} s")
        time.sleep(0.3)


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _listen_url(listen: str) -> str:
    host, _, port = listen.rpartition(":")
    if not port.isdigit():
        raise DeployError(f"--listen needs HOST:PORT or PORT, got {listen!r}")
    host = host or "127.0.0.1"
    if host in ("0.0.0.0", "*", "[::]"):
        host = "127.0.0.1"
    return f"http://{host}:{port}"


@contextlib.contextmanager
def deployment(replicas: int = 2, listen: str = "127.0.0.1:8080", base_port: int = 8501,
               database_url: str | None = None, prefix: Path | None = None,
               streamlit_options: tuple[str, ...] = (), log_to: Path | None = None):
    """Start the replicas and nginx; yield a Deployment; stop everything on exit.

    `log_to` (a directory) keeps each replica's output in replica-N.log; by default it goes
    to this process's stderr, so that stdout carries only the launcher's own lines.
    """
    if replicas < 1:
        raise DeployError("--replicas must be at least 1")
    database_url = database_url or os.environ.get(DATABASE_URL_ENV)
    if not database_url:
        raise DeployError(
            f"Replicas need one shared database for the class poll: set {DATABASE_URL_ENV} (or "
            "--database-url) to postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME")
    if not Path(NGINX).exists():
        raise DeployError("nginx not found: apt-get install -y nginx (Debian's package)")
    listen = listen if ":" in listen else f"0.0.0.0:{listen}"
    url = _listen_url(listen)
    own_prefix = prefix is None
    prefix = Path(tempfile.mkdtemp(prefix="dplab-nginx.")) if own_prefix else Path(prefix)
    prefix.mkdir(parents=True, exist_ok=True)
    if own_prefix:  # readable like /var/lib/nginx (a worker started by root runs as nobody)
        prefix.chmod(0o755)
    env = {**os.environ, DATABASE_URL_ENV: database_url,
           COOKIE_SECRET_ENV: os.environ.get(COOKIE_SECRET_ENV) or secrets.token_hex(32)}
    ports = [base_port + i for i in range(replicas)]
    processes: list[subprocess.Popen] = []
    logs = []
    try:
        for i, port in enumerate(ports, 1):
            out = sys.stderr
            if log_to is not None:
                out = open(Path(log_to) / f"replica-{i}.log", "wb")  # noqa: SIM115 (closed below)
                logs.append(out)
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "serve", "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true",
                 *streamlit_options],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + START_TIMEOUT
        for i, (port, process) in enumerate(zip(ports, processes, strict=True), 1):
            _wait_healthy(f"http://127.0.0.1:{port}", process, f"replica {i} (port {port})",
                          deadline)

        site = prefix / "dplab.conf"
        site.write_text(render_nginx_site(listen, ports, str(prefix / "access.log")))
        main = prefix / "nginx.conf"
        main.write_text(render_nginx_main(prefix, site))
        (prefix / "temp").mkdir(exist_ok=True)
        check = subprocess.run([NGINX, "-t", "-q", "-p", str(prefix), "-c", str(main)],
                               capture_output=True, text=True)
        if check.returncode != 0:
            raise DeployError(f"nginx rejected the configuration:\n{check.stderr}")
        nginx = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(main)], stdout=sys.stderr)
        processes.append(nginx)
        _wait_healthy(url, nginx, "nginx", time.monotonic() + 20)
        yield Deployment(url=url, replica_ports=ports,
                         replica_pids=[p.pid for p in processes[:-1]], nginx_pid=nginx.pid,
                         prefix=prefix, processes=processes)
    finally:
        _stop(processes)
        for log in logs:
            log.close()
        if own_prefix:
            shutil.rmtree(prefix, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    streamlit_options: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, streamlit_options = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(
        prog="python -m deploy.replicas", description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Options after -- go to every replica's `streamlit run`.")
    parser.add_argument("--replicas", type=int, default=2, help="Streamlit processes (one per core)")
    parser.add_argument("--listen", default="127.0.0.1:8080",
                        help="nginx's address, HOST:PORT (default 127.0.0.1:8080; 0.0.0.0:80 for a hall)")
    parser.add_argument("--base-port", type=int, default=8501,
                        help="the first replica's port on 127.0.0.1; the others follow")
    parser.add_argument("--database-url", help=f"PostgreSQL URL (default: ${DATABASE_URL_ENV})")
    parser.add_argument("--prefix", type=Path,
                        help="directory for nginx's config, logs and temp files (default: a fresh "
                             "temporary one, deleted at exit)")
    parser.add_argument("--print-nginx-conf", action="store_true",
                        help="print the http-level nginx file for a system nginx, then exit")
    args = parser.parse_args(argv)

    if args.print_nginx_conf:
        ports = [args.base_port + i for i in range(args.replicas)]
        listen = args.listen if ":" in args.listen else f"0.0.0.0:{args.listen}"
        print(render_nginx_site(listen, ports, "/var/log/nginx/dplab.access.log"), end="")
        return 0

    stop = {"signal": None}

    def on_signal(number, _frame) -> None:
        stop["signal"] = number

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        with deployment(args.replicas, args.listen, args.base_port, args.database_url,
                        args.prefix, tuple(streamlit_options)) as running:
            print(f"DP Lab ready at {running.url} ({args.replicas} replicas on ports "
                  f"{', '.join(map(str, running.replica_ports))}; nginx files in "
                  f"{running.prefix}). Ctrl-C stops everything.", flush=True)
            while stop["signal"] is None:
                dead = [process for process in running.processes if process.poll() is not None]
                if dead:
                    print(f"{' '.join(map(str, dead[0].args[:3]))} (pid {dead[0].pid}) exited "
                          f"with status {dead[0].returncode}; stopping the others", file=sys.stderr)
                    return 1
                time.sleep(0.5)
    except DeployError as problem:
        print(f"deploy.replicas: {problem}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
