"""verify_signature against signatures made here with hmac, and the Standard
Webhooks specification's example."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import undertone

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = b'{"test": 2432232314}'


def signed(body: bytes, ts: int, msg_id: str = "msg_1") -> dict[str, str]:
    plain = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return {
        "X-Undertone-Signature": plain,
        "webhook-id": msg_id,
        "webhook-timestamp": str(ts),
        "webhook-signature": "v1," + base64.b64encode(mac).decode(),
    }


def test_a_delivery_signed_here_verifies() -> None:
    now = int(time.time())
    headers = signed(BODY, now)
    assert undertone.verify_signature(SECRET, BODY, headers) is True
    assert undertone.verify_signature(SECRET, BODY.decode(), list(headers.items())) is True
    lower = {k.lower(): v for k, v in headers.items()}
    assert undertone.verify_signature(SECRET, BODY, lower) is True


def test_tampering_replays_and_wrong_secrets_fail() -> None:
    now = int(time.time())
    headers = signed(BODY, now)
    assert undertone.verify_signature(SECRET, BODY + b" ", headers) is False
    assert undertone.verify_signature("whsec_b3RoZXI=", BODY, headers) is False
    stale = signed(BODY, now - 301)
    assert undertone.verify_signature(SECRET, BODY, stale) is False
    assert undertone.verify_signature(SECRET, BODY, stale, tolerance_secs=600) is True
    assert undertone.verify_signature(SECRET, BODY, {}) is False


def test_standard_webhooks_spec_example() -> None:
    headers = {
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    assert undertone.verify_signature(SECRET, BODY, headers, now=1614265330 + 10) is True
    assert undertone.verify_signature(SECRET, BODY, headers, now=1614265330 + 400) is False


def test_a_float_now_is_floored_to_whole_seconds_like_the_clock() -> None:
    ts = 1_700_000_000
    headers = signed(BODY, ts)
    # 300.9 s after the timestamp floors to 300: inside the default tolerance.
    assert undertone.verify_signature(SECRET, BODY, headers, now=ts + 300.9) is True
    assert undertone.verify_signature(SECRET, BODY, headers, now=ts + 301.0) is False
    # Before the timestamp, flooring moves away from it: -300.5 is -301.
    assert undertone.verify_signature(SECRET, BODY, headers, now=ts - 300.0) is True
    assert undertone.verify_signature(SECRET, BODY, headers, now=ts - 300.5) is False


def test_a_now_that_is_not_a_finite_number_is_a_validation_error_at_now() -> None:
    headers = signed(BODY, 1_700_000_000)
    expected = {
        float("nan"): "must be a finite number, got nan",
        float("inf"): "must be a finite number, got inf",
        "1700000000": "must be a whole number, got string",
        True: "must be a whole number, got boolean",
    }
    for now, message in expected.items():
        try:
            undertone.verify_signature(SECRET, BODY, headers, now=now)  # type: ignore[arg-type]
        except undertone.ValidationError as e:
            assert e.code == "VALIDATION_ERROR"
            assert e.details == [{"path": "now", "message": message}], now
            assert str(e) == f"now: {message}"
        else:
            raise AssertionError(f"now={now!r} was accepted")


def test_arguments_of_the_wrong_type_are_validation_errors_at_their_name() -> None:
    headers = signed(BODY, 1_700_000_000)
    cases: list[tuple[tuple[object, object, object], str, str]] = [
        ((None, BODY, headers), "secret", "must be a str, got NoneType"),
        ((SECRET, None, headers), "body", "must be bytes or a str, got NoneType"),
        ((SECRET, -1, headers), "body", "must be bytes or a str, got int"),
        ((SECRET, [1, 2], headers), "body", "must be bytes or a str, got list"),
        (
            (SECRET, BODY, None),
            "headers",
            "must be a mapping of header names to values, or an iterable of (name, value) "
            "pairs, got NoneType",
        ),
        ((SECRET, BODY, "ab"), "headers", "must be a mapping of header names to values, "
         "or an iterable of (name, value) pairs, got str"),
        ((SECRET, BODY, [("a", "b", "c")]), "headers", "must be (name, value) pairs, got tuple"),
        ((SECRET, BODY, {1: "x"}), "headers", "must be a str, got int"),
        ((SECRET, BODY, {"webhook-id": 7}), "headers.webhook-id", "must be a str or a list of str, got int"),
        ((SECRET, "b\ud800", headers), "body", "holds half of a UTF-16 surrogate pair (U+D800 to "
         "U+DFFF) on its own, which is no character; it cannot be read as text"),
        (("s\ud800", BODY, headers), "secret", "holds half of a UTF-16 surrogate pair (U+D800 to "
         "U+DFFF) on its own, which is no character; it cannot be read as text"),
    ]
    for (secret, body, hdrs), path, message in cases:
        try:
            undertone.verify_signature(secret, body, hdrs)  # type: ignore[arg-type]
        except undertone.ValidationError as e:
            assert e.code == "VALIDATION_ERROR"
            assert e.details == [{"path": path, "message": message}], (secret, body, hdrs)
        else:
            raise AssertionError(f"{(secret, body, hdrs)!r} was accepted")


def test_a_repeated_header_is_one_value_each_and_none_is_no_header() -> None:
    now = int(time.time())
    headers: dict[str, object] = dict(signed(BODY, now))
    good = headers["X-Undertone-Signature"]
    # As in Node and wasm: a list is the header given once per value, the last one read.
    headers["X-Undertone-Signature"] = ["sha256=00", good]
    assert undertone.verify_signature(SECRET, BODY, headers) is True  # type: ignore[arg-type]
    headers["X-Undertone-Signature"] = None
    assert undertone.verify_signature(SECRET, BODY, headers) is True  # type: ignore[arg-type]
    assert undertone.webhooks.delivery_id({"webhook-id": ["a", "b"]}) == "b"  # type: ignore[dict-item]
