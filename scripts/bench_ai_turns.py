#!/usr/bin/env python3
"""Turns the user-only benchmark corpus into Undertone events with AI replies between them.

Reads the JSON Lines written by ../shared/bench/gen_corpus.py (conv_id, turn, role, ts,
text; user messages only) and writes JSON Lines events of Undertone's input contract
(docs/input.md): after every user message, a seeded AI reply by "support-bot" a few
seconds later, drawn from this file's own templates (helpful answers, apologies,
refusals, clarifying questions, hand-off offers, and verbatim repeats of the bot's
previous reply).

Usage: bench_ai_turns.py [--seed N] CORPUS.jsonl [EVENTS.jsonl]   (default: stdout, seed 42)

The output is deterministic for a given corpus and seed.
"""
import argparse
import json
import random
import sys
from datetime import datetime, timezone

AI_ACTOR = "support-bot"

# Things a support conversation is about; the reply names the first one the user mentions.
SUBJECTS = [
    "order", "invoice", "account", "refund", "subscription", "app", "delivery", "password",
    "payment", "router", "package", "charge", "update", "booking", "reset link", "export",
    "api key", "card",
]

HELPFUL = [
    "I have checked your {s} and everything looks correct on our side. It can take up to 24 hours for the change to show.",
    "Thanks for waiting. Your {s} has been updated, and you should receive a confirmation email within a few minutes.",
    "You can manage your {s} under Settings, then Billing. Select the item and choose the option you need.",
    "I found the problem with your {s}: a temporary sync error. I have reset it, so please try again now.",
    "Here is what usually fixes this: sign out, clear the app cache, sign back in and retry the {s}.",
    "Your {s} is being processed. The usual processing time is 3 to 5 business days.",
    "I have opened ticket {n} for your {s}. Our team will follow up by email.",
    "Good news: the {s} went through successfully. Is there anything else I can help you with?",
    "To download your {s} as a PDF, open the History page and click the export icon next to it.",
    "I have sent a new {s} to the email address on file. Please check your inbox and spam folder.",
]
APOLOGY = [
    "I am sorry for the trouble with your {s}. I understand how frustrating this is.",
    "I apologise for the inconvenience. Let me look into your {s} right away.",
    "Sorry about that! I can see why the {s} issue is annoying, and I will do my best to fix it.",
    "I am really sorry that my last answer did not help. Let me try a different approach with your {s}.",
    "My apologies for the delay with your {s}. Thank you for your patience.",
]
REFUSAL = [
    "I'm sorry, but I can't help with that.",
    "I can't help with that request. Is there anything else I can do for you?",
    "Unfortunately I am not able to change your {s} from this chat.",
    "I'm afraid I don't have access to that information.",
    "That is outside what I can do here, sorry.",
]
CLARIFY = [
    "Could you share the order number or the email address linked to your {s}?",
    "Can you tell me exactly what error message you see with the {s}?",
    "When did you first notice the problem with your {s}?",
    "Which device and app version are you using?",
    "Just to confirm, is this about your {s} or a different one?",
    "Could you describe the steps you took before the {s} failed?",
]
HANDOFF = [
    "Would you like me to connect you with a human agent?",
    "I can transfer you to a member of our support team. Shall I do that?",
    "I have passed your {s} case to a specialist; a person will reply within one business day.",
    "Let me hand this over to a colleague who can look at your {s} in more detail.",
]

# Category weights: (helpful, apology, refusal, clarify, handoff, repeat).
KINDS = ["helpful", "apology", "refusal", "clarify", "handoff", "repeat"]
POOLS = {"helpful": HELPFUL, "apology": APOLOGY, "refusal": REFUSAL,
         "clarify": CLARIFY, "handoff": HANDOFF}
WEIGHTS_DEFAULT = [0.42, 0.14, 0.07, 0.17, 0.06, 0.14]
WEIGHTS_ASKS_HUMAN = [0.20, 0.10, 0.10, 0.10, 0.35, 0.15]
WEIGHTS_UPSET = [0.30, 0.28, 0.07, 0.10, 0.10, 0.15]
ASKS_HUMAN = ("human", "real person", "agent", "manager", "supervisor")
UPSET = ("frustrated", "ridiculous", "terrible", "useless", "angry", "disappointed",
         "did not help", "!!!")


def subject(text):
    low = text.lower()
    for s in SUBJECTS:
        if s in low:
            return s
    return "request"


def rfc3339_ms(ms):
    """Epoch milliseconds as RFC 3339 UTC with milliseconds, e.g. 2023-11-14T22:13:20.123Z."""
    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def reply(rng, text, previous):
    low = text.lower()
    if any(w in low for w in ASKS_HUMAN):
        weights = WEIGHTS_ASKS_HUMAN
    elif any(w in low for w in UPSET):
        weights = WEIGHTS_UPSET
    else:
        weights = WEIGHTS_DEFAULT
    kind = rng.choices(KINDS, weights=weights)[0]
    if kind == "repeat":
        if previous is not None:
            return previous
        kind = "helpful"
    template = rng.choice(POOLS[kind])
    return template.format(s=subject(text), n=rng.randint(100000, 999999))


def event(actor, content, ms, conv_id, role):
    return {"actor_id": actor, "content": content, "timestamp": rfc3339_ms(ms),
            "conversation_id": conv_id, "metadata": {"role": role}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("corpus")
    ap.add_argument("out", nargs="?")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    with open(args.corpus, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    previous = {}  # conv_id -> the bot's last reply there
    humans = ais = 0
    for i, row in enumerate(rows):
        conv = row["conv_id"]
        ms = round(row["ts"] * 1000)
        out.write(json.dumps(event("cust-" + conv, row["text"], ms, conv, "user"),
                             ensure_ascii=False) + "\n")
        humans += 1
        # The reply comes 1-8 s later, and always before the user's next message
        # in the same conversation (gen_corpus.py leaves at least 3 s between them).
        delay = rng.uniform(1.0, 8.0)
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        if nxt is not None and nxt["conv_id"] == conv:
            delay = min(delay, (nxt["ts"] - row["ts"]) / 2)
        text = reply(rng, row["text"], previous.get(conv))
        previous[conv] = text
        out.write(json.dumps(event(AI_ACTOR, text, ms + round(delay * 1000), conv, "assistant"),
                             ensure_ascii=False) + "\n")
        ais += 1
    if out is not sys.stdout:
        out.close()
    print(f"bench_ai_turns: {humans} user + {ais} AI events, seed {args.seed}", file=sys.stderr)


if __name__ == "__main__":
    main()
