"""A fake provider with OpenAI's batch interface, beside the fake chat server it extends
(`fake_openai`: each batch line is answered by the same `_completion` a live call gets).

* ``POST /v1/files`` (multipart, purpose=batch), ``GET /v1/files/{id}``, ``GET /v1/files/{id}/content``
* ``POST /v1/batches``, ``GET /v1/batches`` (list), ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``

A batch completes `delay` seconds after it was created (looked at when polled). Settings
(`FakeBatch.configure_batches`): `delay`; `fail_first` {"400": n, "500": m}: in the first
batch created the first n lines answer 400 and the next m answer 500 (a later batch's lines
are all answered: a line sent again succeeds); `expire`: a batch ends expired with the first half of its
lines answered, the rest in the error file as `batch_expired`; `content_delay`: seconds
each file download waits before answering (a worker can be killed in the middle of one);
`cancel_answers`: lines a cancelled batch had answered; `fail_batch`: a batch fails as a
whole when it is due (its file refused: `errors.data`, no output). `batch_stats()` says how many
times each custom_id was answered, and how many downloads were asked for.
"""

from __future__ import annotations

import asyncio
import collections
import json
import time
import uuid

from aiohttp import web

from tests.fakes.fake_openai import STATE, FakeOpenAI, FakeState, _completion, make_app

BATCH_DEFAULTS = {"delay": 0.5, "fail_first": {}, "expire": 0, "content_delay": 0.0, "cancel_answers": 0, "fail_batch": False}


class BatchState:
    """Files and batches, only touched on the server's event loop."""

    def __init__(self):
        self.settings = dict(BATCH_DEFAULTS)
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self.answered: collections.Counter = collections.Counter()  # custom_id -> lines answered 200
        self.content_requests = 0
        self.created = 0

    def stats(self) -> dict:
        return {"answered": dict(self.answered), "content_requests": self.content_requests,
                "batches": {bid: {k: b[k] for k in ("status", "request_counts", "metadata")}
                            for bid, b in self.batches.items()}, "created": self.created}


BATCHES = web.AppKey("batches", BatchState)


def _file(state: BatchState, content: bytes, filename: str, purpose: str) -> dict:
    file_id = f"file-{uuid.uuid4().hex[:20]}"
    state.files[file_id] = {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                            "filename": filename, "purpose": purpose, "status": "processed", "content": content}
    return _public(state.files[file_id])


def _public(file: dict) -> dict:
    return {k: v for k, v in file.items() if k != "content"}


def _line(custom_id: str, status: int | None, body=None, error=None) -> str:
    response = None if status is None else {"status_code": status, "request_id": uuid.uuid4().hex, "body": body}
    return json.dumps({"id": f"batch_req_{uuid.uuid4().hex[:16]}", "custom_id": custom_id, "response": response,
                       "error": error})


def _end(state: BatchState, chat: FakeState, batch: dict, status: str, answer_lines: int | None = None):
    """Run the batch's lines (the first `answer_lines` of them; all when None) and end it."""
    lines = [json.loads(raw) for raw in state.files[batch["input_file_id"]]["content"].decode().splitlines()
             if raw.strip()]
    first = batch["_number"] == 1
    fail_400 = int(state.settings["fail_first"].get("400", 0)) if first else 0
    fail_500 = int(state.settings["fail_first"].get("500", 0)) if first else 0
    output, errors = [], []
    for index, line in enumerate(lines):
        custom_id, body = line["custom_id"], line["body"]
        if answer_lines is not None and index >= answer_lines:
            if status == "expired":
                errors.append(_line(custom_id, None, error={
                    "code": "batch_expired",
                    "message": "This request could not be executed before the completion window expired."}))
            continue
        if index < fail_400:
            errors.append(_line(custom_id, 400, {"error": {"message": "Invalid value for 'messages'.",
                                                           "type": "invalid_request_error", "code": None}}))
        elif index < fail_400 + fail_500:
            errors.append(_line(custom_id, 500, {"error": {"message": "The server had an error.",
                                                           "type": "server_error", "code": None}}))
        else:
            state.answered[custom_id] += 1
            chat.total += 1
            output.append(_line(custom_id, 200, _completion(body, body["messages"])))
    now = int(time.time())
    if output:
        batch["output_file_id"] = _file(state, ("\n".join(output) + "\n").encode(), "output.jsonl",
                                        "batch_output")["id"]
    if errors:
        batch["error_file_id"] = _file(state, ("\n".join(errors) + "\n").encode(), "errors.jsonl",
                                       "batch_output")["id"]
    batch["status"] = status
    batch[f"{status}_at"] = now
    batch["request_counts"] = {"total": len(lines), "completed": len(output), "failed": len(errors)}


def _look(state: BatchState, chat: FakeState, batch: dict):
    """Move the batch on as time has passed."""
    if batch["status"] == "in_progress" and time.time() >= batch["_due"]:
        if state.settings["fail_batch"]:
            batch.update(status="failed", failed_at=int(time.time()), errors={"object": "list", "data": [
                {"code": "invalid_json_line", "message": "This line is not parseable as valid JSON.", "line": 1,
                 "param": None}]})
        elif batch["_number"] <= int(state.settings["expire"]):
            total = batch["request_counts"]["total"]
            _end(state, chat, batch, "expired", answer_lines=total // 2)
        else:
            _end(state, chat, batch, "completed")
    elif batch["status"] == "cancelling":
        _end(state, chat, batch, "cancelled", answer_lines=int(state.settings["cancel_answers"]))


def _batch_view(batch: dict) -> dict:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


async def _create_file(request: web.Request) -> web.Response:
    form = await request.post()
    upload, purpose = form.get("file"), form.get("purpose")
    if purpose != "batch" or upload is None or not hasattr(upload, "file"):
        return web.json_response({"error": {"message": "a file with purpose=batch is required",
                                            "type": "invalid_request_error", "code": None}}, status=400)
    return web.json_response(_file(request.app[BATCHES], upload.file.read(), upload.filename, purpose))


async def _get_file(request: web.Request) -> web.Response:
    file = request.app[BATCHES].files.get(request.match_info["file_id"])
    if file is None:
        return web.json_response({"error": {"message": "No such file", "type": "invalid_request_error"}}, status=404)
    return web.json_response(_public(file))


async def _file_content(request: web.Request) -> web.Response:
    state = request.app[BATCHES]
    file = state.files.get(request.match_info["file_id"])
    if file is None:
        return web.json_response({"error": {"message": "No such file", "type": "invalid_request_error"}}, status=404)
    state.content_requests += 1
    if state.settings["content_delay"]:
        await asyncio.sleep(state.settings["content_delay"])
    return web.Response(body=file["content"], content_type="application/octet-stream")


async def _create_batch(request: web.Request) -> web.Response:
    state = request.app[BATCHES]
    body = await request.json()
    file = state.files.get(body.get("input_file_id"))
    if file is None or body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
        return web.json_response({"error": {"message": "bad batch request", "type": "invalid_request_error"}},
                                 status=400)
    lines = [raw for raw in file["content"].decode().splitlines() if raw.strip()]
    now = int(time.time())
    batch_id = f"batch_{uuid.uuid4().hex[:20]}"
    state.batches[batch_id] = {
        "id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
        "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "in_progress",
        "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": now,
        "expires_at": now + 86400, "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
        "metadata": body.get("metadata") or {}, "_due": time.time() + float(state.settings["delay"]),
        "_number": state.created + 1}
    state.created += 1
    return web.json_response(_batch_view(state.batches[batch_id]))


async def _get_batch(request: web.Request) -> web.Response:
    state = request.app[BATCHES]
    batch = state.batches.get(request.match_info["batch_id"])
    if batch is None:
        return web.json_response({"error": {"message": "No such batch", "type": "invalid_request_error"}},
                                 status=404)
    _look(state, request.app[STATE], batch)
    return web.json_response(_batch_view(batch))


async def _list_batches(request: web.Request) -> web.Response:
    batches = list(request.app[BATCHES].batches.values())[::-1]
    return web.json_response({"object": "list", "data": [_batch_view(b) for b in batches], "has_more": False,
                              "first_id": batches[0]["id"] if batches else None,
                              "last_id": batches[-1]["id"] if batches else None})


async def _cancel_batch(request: web.Request) -> web.Response:
    state = request.app[BATCHES]
    batch = state.batches.get(request.match_info["batch_id"])
    if batch is None:
        return web.json_response({"error": {"message": "No such batch", "type": "invalid_request_error"}},
                                 status=404)
    if batch["status"] in ("validating", "in_progress", "finalizing"):
        batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
    return web.json_response(_batch_view(batch))


def make_batch_app(state: FakeState) -> web.Application:
    app = make_app(state)
    app[BATCHES] = BatchState()
    app.router.add_post("/v1/files", _create_file)
    app.router.add_get("/v1/files/{file_id}", _get_file)
    app.router.add_get("/v1/files/{file_id}/content", _file_content)
    app.router.add_post("/v1/batches", _create_batch)
    app.router.add_get("/v1/batches", _list_batches)
    app.router.add_get("/v1/batches/{batch_id}", _get_batch)
    app.router.add_post("/v1/batches/{batch_id}/cancel", _cancel_batch)
    return app


class FakeBatch(FakeOpenAI):
    """The fake chat server with OpenAI's batch interface, in a background thread."""

    app_factory = staticmethod(make_batch_app)

    def _batches(self) -> BatchState:
        return self._runner.app[BATCHES]

    def configure_batches(self, **settings) -> dict:
        unknown = set(settings) - set(BATCH_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown batch settings: {sorted(unknown)}")

        def change():
            self._batches().settings.update(settings)
            return dict(self._batches().settings)
        return self._call(change)

    def batch_stats(self) -> dict:
        return self._call(lambda: self._batches().stats())
