#!/usr/bin/env python3
"""Records the spans the reference exports with a TracingConfiguration (issue 33, point 4) into
tests/fixtures/tracing/spans.json: an OTLP/gRPC receiver of its own (grpcio + opentelemetry-proto:
`pip install grpcio opentelemetry-proto`) on a free port, the reference started with
`--tracing-config-file` (samplingRatePerMillion 1000000), a mutating webhook of its own that records
the `traceparent` header it is called with, and a few requests (with and without a W3C
`traceparent`). Per request (the PUT sends the object as read just before it: `fill_current`): its spans as trees (name, kind, attributes, events, status, children;
ids replaced by their role: the client's trace/span id or `<generated>`), the resource attributes,
and the traceparent the webhook saw.
    PEERS_ROOT=$HOME/peers python3 hack/audit-oracle/tracing.py
"""
import base64, http.server, json, os, ssl, sys, threading, time
from concurrent import futures

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(__file__))
import record  # noqa: E402
import scenario  # noqa: E402

FIX = os.path.join(record.ROOT, 'tests', 'fixtures', 'tracing')
TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
PARENT_ID = '00f067aa0ba902b7'
# Spans are exported in batches (the SDK's default schedule is 5 s).
EXPORT_WITHIN = 30


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self):
        self.spans, self.resources, self.lock = [], [], threading.Lock()

    def Export(self, request, context):
        with self.lock:
            for rs in request.resource_spans:
                self.resources.append({kv.key: value(kv.value) for kv in rs.resource.attributes})
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        self.spans.append((ss.scope.name, s))
        return trace_service_pb2.ExportTraceServiceResponse()


def value(v):
    kind = v.WhichOneof('value')
    if kind == 'array_value':
        return [value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


class Webhook:
    """An HTTPS AdmissionReview webhook (backend.crt) that allows and records each call's headers."""

    def __init__(self):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *a):
                pass

            def do_POST(self):
                review = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))))
                seen.append({'path': self.path, 'headers': dict(self.headers.items()),
                             'operation': review['request']['operation']})
                out = json.dumps({'apiVersion': 'admission.k8s.io/v1', 'kind': 'AdmissionReview',
                                  'response': {'uid': review['request']['uid'], 'allowed': True}}).encode()
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(f'{record.PKI}/backend.crt', f'{record.PKI}/backend.key')
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.base = f'https://127.0.0.1:{self.server.server_address[1]}'
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def traceparent(i):
    """A client's W3C traceparent: trace TRACE_ID with its last byte = i, span PARENT_ID, sampled."""
    return f'00-{TRACE_ID[:-2]}{i:02x}-{PARENT_ID}-01'


# (name, method, path, body, with a traceparent): every step but `get_untraced` carries its own
# trace id, so the one trace of our user agent without one is get_untraced's.
STEPS = [
    ('create', 'POST', scenario.CT, scenario.crontab('traced'), True),
    ('get_untraced', 'GET', f'{scenario.CT}/traced', None, False),
    ('get', 'GET', f'{scenario.CT}/traced', None, True),
    ('list', 'GET', scenario.CT, None, True),
    ('get_missing', 'GET', f'{scenario.CT}/missing', None, True),
    ('update', 'PUT', f'{scenario.CT}/traced', None, True),
    ('delete', 'DELETE', f'{scenario.CT}/traced', None, True),
]


def hexid(b):
    return b.hex()


def trees(spans, trace_id, client_parent):
    """The spans of `trace_id` as trees, ids replaced by their role."""
    mine = [(scope, s) for scope, s in spans if hexid(s.trace_id) == trace_id]
    ids = {hexid(s.span_id) for _, s in mine}

    def node(scope, s):
        children = [node(sc, c) for sc, c in mine if hexid(c.parent_span_id) == hexid(s.span_id)]
        children.sort(key=lambda c: (c['start_order'], c['name']))
        return {'name': s.name, 'scope': scope, 'kind': s.SpanKind.Name(s.kind),
                'attributes': {kv.key: value(kv.value) for kv in s.attributes},
                'events': [{'name': e.name, 'attributes': {kv.key: value(kv.value) for kv in e.attributes}} for e in s.events],
                'status': {'code': s.status.StatusCode.Name(s.status.code), 'message': s.status.message},
                'start_order': s.start_time_unix_nano, 'children': children}
    roots = []
    for scope, s in mine:
        parent = hexid(s.parent_span_id)
        if parent not in ids:
            root = node(scope, s)
            root['parent'] = ('<the client span>' if parent == client_parent else
                              '<none>' if not parent else f'<unknown {parent}>')
            roots.append(root)

    def strip(n):
        n.pop('start_order', None)
        for c in n['children']:
            strip(c)
        return n
    return [strip(r) for r in sorted(roots, key=lambda r: r['start_order'])]


def main():
    os.makedirs(FIX, exist_ok=True)
    os.makedirs(record.RUN, exist_ok=True)
    receiver = Receiver()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(receiver, server)
    port = server.add_insecure_port('127.0.0.1:0')
    server.start()
    config = os.path.join(record.RUN, 'tracing.yaml')
    with open(config, 'w') as f:
        f.write(f'apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n'
                f'endpoint: 127.0.0.1:{port}\nsamplingRatePerMillion: 1000000\n')
    webhook = Webhook()
    hook = scenario.hook('trace.example.com', '/mutate', mutating=True)
    objects = os.path.join(record.RUN, 'tracing-objects.json')
    ca = base64.b64encode(open(f'{record.PKI}/serving-ca.crt', 'rb').read()).decode()
    configuration = json.loads(json.dumps(scenario.mutating('trace-mutate', hook))
                               .replace('$WEBHOOK', webhook.base).replace('$CA_BUNDLE', ca))
    with open(objects, 'w') as f:
        json.dump([configuration], f)
    out = {'config': open(config).read().replace(str(port), '$PORT'), 'steps': []}
    try:
        record.peers('stop')
        record.peers('start', objects, ['--tracing-config-file', config])
        ref = record.Reference()
        record.create_crds(ref)
        sent = []
        for i, (name, method, path, body, traced) in enumerate(STEPS):
            headers = {'Accept': 'application/json', 'User-Agent': scenario.USER_AGENT}
            if traced:
                headers['traceparent'] = traceparent(i)
            text = None
            if method == 'PUT':
                _, _, _, current = ref.send('GET', path, None, {'Accept': 'application/json'})
                text = json.dumps(current)
            elif body is not None:
                text = json.dumps(body)
            if text is not None:
                headers['Content-Type'] = 'application/json'
            before = len(webhook.seen)
            code, audit_id, _, _ = ref.send(method, path, text, headers)
            sent.append((name, method, path, headers, code, webhook.seen[before:], text))
            print(name, code, file=sys.stderr)
        deadline = time.monotonic() + EXPORT_WITHIN
        while time.monotonic() < deadline:
            with receiver.lock:
                ours = [s for _, s in receiver.spans
                        if any(kv.key == 'user_agent.original' or kv.key == 'http.user_agent' for kv in s.attributes)]
            if len(ours) >= len(STEPS):
                break
            time.sleep(0.5)
        time.sleep(6)  # the batch processor's next export: the requests' inner spans too
        with receiver.lock:
            spans = list(receiver.spans)
            resources = list(receiver.resources)
        client_traces = {h['traceparent'].split('-')[1] for _, _, _, h, _, _, _ in sent if 'traceparent' in h}
        untraced = set()
        for _, s in spans:
            attrs = {kv.key: value(kv.value) for kv in s.attributes}
            ours = scenario.USER_AGENT in (attrs.get('user_agent.original'), attrs.get('http.user_agent'))
            if ours and hexid(s.trace_id) not in client_traces:
                untraced.add(hexid(s.trace_id))
        for name, method, path, headers, code, calls, text in sent:
            tp = headers.get('traceparent')
            trace_ids = [tp.split('-')[1]] if tp else sorted(untraced)
            out['steps'].append({'name': name, 'method': method, 'path': path, 'headers': headers, 'code': code,
                                 'body_text': text if method == 'POST' else None, 'fill_current': method == 'PUT',
                                 'webhook_calls': calls,
                                 'traces': [{'trace_id': '<client>' if tp else '<generated>',
                                             'spans': trees(spans, t, PARENT_ID)} for t in trace_ids]})
        out['resources'] = [r for i, r in enumerate(resources) if r not in resources[:i]]
        out['all_span_names'] = sorted({s.name for _, s in spans})
    finally:
        record.peers('stop')
        server.stop(0)
    with open(os.path.join(FIX, 'spans.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
