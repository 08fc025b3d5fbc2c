"""``python -m kenning.testing.wire``: serve a scripted conversation from a JSON file.

For end-to-end tests that run Kenning in another process (a pseudo-terminal
session of ``kenning chat``). Prints the base URL as the first line of
stdout once the server listens, then serves until SIGINT or SIGTERM; with
``--requests FILE`` every request received is appended to FILE as one JSON
line (path, headers, body) as it arrives.

    python -m kenning.testing.wire openai --port 0 --script chat.json
    http://127.0.0.1:40123/v1
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from kenning.testing.wire import SERVERS, RecordedRequest, ScriptError, load_script


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m kenning.testing.wire",
        description="Serve a scripted model conversation over the OpenAI or Anthropic wire format.",
    )
    parser.add_argument("format", choices=sorted(SERVERS), help="which wire format to speak")
    parser.add_argument("--script", type=Path, help="JSON list of replies and behaviours")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--api-key", help="require this key (else any key is accepted)")
    parser.add_argument("--requests", type=Path, help="append each request to FILE as JSON lines")
    parser.add_argument(
        "--chunk-delay", type=float, default=0.0, help="seconds between streamed events"
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        dest="models",
        help="list this model at GET /v1/models (repeatable)",
    )
    return parser


def _logger(path: Path) -> Any:
    lock = threading.Lock()

    def log(request: RecordedRequest) -> None:
        record = {
            "method": request.method,
            "path": request.path,
            "headers": dict(request.headers),
            "body": request.body,
        }
        line = json.dumps(record)
        with lock, path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    return log


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        script = load_script(json.loads(args.script.read_text("utf-8"))) if args.script else []
    except (OSError, ValueError, ScriptError) as exc:
        print(f"cannot load the script {args.script}: {exc}", file=sys.stderr)
        return 2
    listed = [{"id": m, "object": "model"} for m in args.models]
    info = {"/v1/models": {"object": "list", "data": listed}} if args.models else None
    server = SERVERS[args.format](
        script,
        api_key=args.api_key,
        host=args.host,
        port=args.port,
        chunk_delay_s=args.chunk_delay,
        info=info,
    )
    if args.requests:
        server.on_request = _logger(args.requests)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    print(server.base_url, flush=True)
    try:
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    print(
        f"served {len(server.requests)} requests; {server.remaining} script items left",
        file=sys.stderr,
    )
    for error in server.errors:
        print(error, file=sys.stderr)
    return 1 if server.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
