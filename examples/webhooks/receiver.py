import hashlib, hmac, http.server, os, sys
SECRET = os.environ["UNDERTONE_WEBHOOK_SECRET"].encode()  # the `secret` POST /webhooks returned
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
        ok = hmac.compare_digest(expected, self.headers.get("X-Undertone-Signature", ""))
        self.send_response(204 if ok else 401); self.end_headers()
        print(self.headers["X-Undertone-Delivery"], self.headers["X-Undertone-Event"], "verified" if ok else "REJECTED", body[:120], flush=True)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 9000), Hook).serve_forever()
