"""A remote agent written from docs/remote.md alone: the Python standard library, nothing else.

    python remote_agent_minimal.py --port 8700 [--token TOKEN]

It answers every decision with a random legal answer (seeded by the seed /start gives it),
keeps each session's events as the protocol says (truncate to ``events_from``, append), and
speaks a line of its own where a decision allows words. It prints ``ready <port>`` once it
listens.
"""

import argparse
import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SESSIONS = {}
LOCK = threading.Lock()


def answer(session, decision):
    rng = session["rng"]
    ids = [o["id"] for o in decision["options"]]
    if decision["belief_only"]:
        if decision["silent_option"] is not None:
            return decision["silent_option"]
        return {"belief": {}}
    if decision["free_text"] and (not ids or rng.random() < 0.3):
        line = f"I have seen {len(session['events'])} events so far."
        return {"text": line[: decision["max_chars"]]}
    low = max(decision["min_choices"], 1)
    high = min(decision["max_choices"], len(ids))
    return {"choice": rng.sample(ids, rng.randint(low, high))}


class Handler(BaseHTTPRequestHandler):
    token = None

    def log_message(self, *args):
        pass  # quiet

    def reply(self, status, body):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorised(self):
        if self.token is None:
            return True
        return self.headers.get("Authorization") == f"Bearer {self.token}"

    def do_GET(self):
        if not self.authorised():
            return self.reply(401, {"error": "bad token"})
        if self.path == "/info":
            return self.reply(200, {"protocol": 1, "name": "minimal"})
        return self.reply(404, {"error": "no such call"})

    def do_POST(self):
        if not self.authorised():
            return self.reply(401, {"error": "bad token"})
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length).decode("utf-8"))
        if body.get("protocol") != 1:
            return self.reply(400, {"error": "I speak protocol 1"})
        with LOCK:
            if self.path == "/start":
                SESSIONS[body["session"]] = {"rng": random.Random(body["seed"]), "events": []}
                return self.reply(200, {"ok": True, "text": False})
            session = SESSIONS.get(body["session"])
            if session is None:
                return self.reply(404, {"error": "unknown session"})
            view = body["observation"]
            del session["events"][view["events_from"] :]
            session["events"].extend(view["events"])
            if self.path == "/decide":
                return self.reply(200, {"answer": answer(session, body["decision"])})
            if self.path == "/end":
                del SESSIONS[body["session"]]
                return self.reply(200, {"ok": True})
        return self.reply(404, {"error": "no such call"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8700)
    parser.add_argument("--token")
    args = parser.parse_args()
    Handler.token = args.token
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"ready {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
