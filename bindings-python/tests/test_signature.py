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
