#!/usr/bin/env python3
"""The conversion oracle's test converter: ../shared/reference/stub/converter.py (ConversionReview
v1 and v1beta1), extended. Same paths and answers, plus:
  /convert-wrong-uid          answers response.uid "not-<request uid>"
  /convert-wrong-kind         every converted object's kind is "WrongKind"
  /convert-wrong-apiversion   every converted object's apiVersion is "wrong.example.com/v2"
  /convert-review-kind        the answer's kind is "ConversionResponse" (not a ConversionReview)
  /convert-labels             sets label converted-to=<desired version> (a valid label change)
  /convert-bad-label          sets label converted-to="not a label value!" (an invalid value)
  /convert-annotation-number  sets annotation converted-count to the number 1 (not a string)
  /convert-slow               never answers; returns when the caller closes the connection
and it prints, per review, one JSON line {path, desired, count, headers, raw, review}: the
request's path with query, its headers in order, the body as received and parsed.
tests/common/stub_converter.rs is its Rust port.
   usage: converter.py PORT        (TLS with $PEERS_ROOT/pki/backend.crt, CA $PEERS_ROOT/pki/serving-ca.crt)"""
import json, os, select, ssl, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
ANN = "convert.example.com/shape"
LABEL = "converted-to"

def convert(o, desired):
    o = json.loads(json.dumps(o)); src = o["apiVersion"].split("/")[-1]; dst = desired.split("/")[-1]
    o["apiVersion"] = desired
    spec = o.setdefault("spec", {}); ann = o.setdefault("metadata", {}).setdefault("annotations", {})
    if src == dst: return o
    if dst == "v2":
        if ANN in ann: spec["shape"] = ann.pop(ANN)
        spec.setdefault("shape", "round" if spec.get("color") == "red" else "square")
    elif dst == "v1" and "shape" in spec:
        ann[ANN] = spec.pop("shape")
    if not ann: o["metadata"].pop("annotations")
    return o

class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def wait_for_close(self):
        # The caller never gets an answer; when its side closes, the connection is readable.
        while not select.select([self.connection], [], [], 1.0)[0]:
            pass
        self.close_connection = True
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        review = json.loads(raw or b"{}")
        req = review.get("request", {}); path = self.path.split("?")[0]
        print(json.dumps({"path": self.path, "desired": req.get("desiredAPIVersion"), "count": len(req.get("objects", [])),
                          "headers": [[k, v] for k, v in self.headers.items()], "raw": raw.decode(errors="replace"),
                          "review": review}), flush=True)
        objs = [convert(o, req.get("desiredAPIVersion", "")) for o in req.get("objects", [])]
        resp = {"uid": req.get("uid", ""), "result": {"status": "Success"}, "convertedObjects": objs}
        kind = "ConversionReview"
        version = str(req.get("desiredAPIVersion", "")).split("/")[-1]
        if path == "/convert-fail":
            resp = {"uid": req.get("uid", ""), "result": {"status": "Failure", "message": "the test converter refuses"}}
        elif path == "/convert-wrong-count":
            resp["convertedObjects"] = objs[:-1]
        elif path == "/convert-rename":
            for o in objs: o["metadata"]["name"] += "-renamed"
        elif path == "/convert-wrong-uid":
            resp["uid"] = f"not-{req.get('uid', '')}"
        elif path == "/convert-wrong-kind":
            for o in objs: o["kind"] = "WrongKind"
        elif path == "/convert-wrong-apiversion":
            for o in objs: o["apiVersion"] = "wrong.example.com/v2"
        elif path == "/convert-review-kind":
            kind = "ConversionResponse"
        elif path == "/convert-labels":
            for o in objs: o["metadata"].setdefault("labels", {})[LABEL] = version
        elif path == "/convert-bad-label":
            for o in objs: o["metadata"].setdefault("labels", {})[LABEL] = "not a label value!"
        elif path == "/convert-annotation-number":
            for o in objs: o["metadata"].setdefault("annotations", {})["converted-count"] = 1
        elif path == "/convert-slow":
            return self.wait_for_close()
        out = (b"not a ConversionReview" if path == "/convert-garbage" else
               json.dumps({"apiVersion": review.get("apiVersion", "apiextensions.k8s.io/v1"), "kind": kind, "response": resp}).encode())
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)

port = int(sys.argv[1]); d = os.environ["PEERS_ROOT"] + "/pki/"
srv = ThreadingHTTPServer(("127.0.0.1", port), H)
srv.daemon_threads = True
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(d + "backend.crt", d + "backend.key")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
