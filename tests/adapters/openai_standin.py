"""A small deterministic stand-in for an OpenAI-compatible service, on 127.0.0.1, for the
adapters' tests: the memory libraries are real, the model behind them is this.

- POST …/embeddings: each input's words hashed into as many buckets as the request's
  `dimensions` (UNNAMED_DIMENSIONS if it has none), normalised (texts sharing words are near, as a
  real embedding's would be);
- POST …/chat/completions: an answer whose content is the JSON `reply` the test set (mem0's
  fact extraction asks for JSON).
"""

import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 64
# What an embedding request that names no size gets: OpenAI's text-embedding-3-small's, which
# a library's default configuration expects.
UNNAMED_DIMENSIONS = 1536


def embedding(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.casefold()):
        bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
        vector[bucket % dimensions] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class OpenAIStandIn:
    """Serves until stopped; `url` is the base URL to give a client (…/v1)."""

    def __init__(self):
        self.reply: dict = {"memory": []}
        self.requests: list[tuple[str, dict]] = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"] or 0)))
                standin.requests.append((self.path, body))
                if self.path.endswith("/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    size = body.get("dimensions", UNNAMED_DIMENSIONS)
                    answer = {
                        "object": "list",
                        "model": body.get("model", "standin"),
                        "data": [
                            {
                                "object": "embedding",
                                "index": n,
                                "embedding": embedding(text, size),
                            }
                            for n, text in enumerate(inputs)
                        ],
                        "usage": {"prompt_tokens": 0, "total_tokens": 0},
                    }
                elif self.path.endswith("/chat/completions"):
                    answer = {
                        "id": "standin",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "standin"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {
                                    "role": "assistant",
                                    "content": json.dumps(standin.reply),
                                },
                            }
                        ],
                        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                    }
                else:
                    self.send_error(404)
                    return
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
