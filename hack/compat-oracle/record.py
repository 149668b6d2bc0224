#!/usr/bin/env python3
"""Records tests/fixtures/compat/compare.jsonl from the reference server.

Each line is one request of the client-visible differences comparison (issue 12, points
3-11; replayed by tests/compat_compare.rs) with the reference apiextensions-apiserver's
answer: code, Content-Type, Warning headers and body (JSON when it parses, else the raw
text). Run the reference first (../shared/reference/README.md), then:
    python3 hack/compat-oracle/record.py
A second recording to another file (python3 hack/compat-oracle/record.py /tmp/again.jsonl)
checks the replay's masking: COMPAT_SECOND_RECORDING=/tmp/again.jsonl cargo test --test
compat_compare -- --ignored must find no differences.
The cases are in scenario.py beside this file; the CRDs are tests/fixtures/compat/crontabs.yaml.
Requests go out over HTTP/1.1 with exactly the recorded path (no dot-segment cleaning) and
only the recorded headers besides Host, Content-Length and Accept-Encoding.
"""
import copy, http.client, json, os, ssl, sys, time, urllib.parse

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(__file__))
import scenario  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'compat')
ENV = {}
for line in open(os.path.expanduser(os.environ.get('PEERS_ENV', '/root/peers/run/peers.env'))):
    for kv in line.replace('export ', '').split():
        k, _, v = kv.partition('=')
        ENV[k] = v
URL, PKI = urllib.parse.urlsplit(ENV['APIEXT_URL']), ENV['PEERS_PKI']
CTX = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
CTX.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
# Every request must answer within this; a watch that starts streaming is a scenario bug.
TIMEOUT = 10


def send(method, path, body=None, headers=None, stream=False):
    """One request; returns (code, content type, warnings, body as JSON or text). A
    stream's body is its list of JSON events."""
    conn = http.client.HTTPSConnection(URL.hostname, URL.port, context=CTX, timeout=TIMEOUT)
    data = None if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
    try:
        conn.request(method, path, body=data, headers=headers or {})
        resp = conn.getresponse()
        raw = resp.read()
        ctype = resp.getheader('Content-Type')
        warnings = resp.headers.get_all('Warning') or []
        code = resp.status
    finally:
        conn.close()
    text = raw.decode(errors='replace')
    if stream and code == 200:
        return code, ctype, warnings, [json.loads(line) for line in text.splitlines() if line]
    try:
        out = json.loads(text)
    except ValueError:
        out = text
    return code, ctype, warnings, out


def eventually(what, attempt, within=60):
    """Calls attempt until it returns true; fails after `within` seconds."""
    deadline = time.monotonic() + within
    while not attempt():
        if time.monotonic() > deadline:
            sys.exit(f'timed out waiting for {what}')
        time.sleep(0.1)


def crds():
    return list(yaml.safe_load_all(open(os.path.join(FIX, 'crontabs.yaml'))))


def established(name):
    _, _, _, o = send('GET', f'{CRDS}/{name}', headers={'Accept': 'application/json'})
    conds = {c['type']: c['status'] for c in ((o if isinstance(o, dict) else {}).get('status') or {}).get('conditions') or []}
    return conds.get('Established') == 'True'


def reset_crds():
    """Deletes and creates the fixture's CRDs, then waits until every served version lists."""
    json_only = {'Accept': 'application/json', 'Content-Type': 'application/json'}
    for crd in crds():
        name = crd['metadata']['name']
        if send('DELETE', f'{CRDS}/{name}', headers=json_only)[0] == 200:
            eventually(f'{name} deleted', lambda: send('GET', f'{CRDS}/{name}', headers=json_only)[0] == 404)
        code, _, _, out = send('POST', CRDS, crd, json_only)
        assert code == 201, out
        eventually(f'{name} established', lambda: established(name))
    # The first requests of a new resource may answer 429 while its storage starts.
    for base in scenario.LIST_PATHS:
        eventually(f'{base} lists', lambda: send('GET', base, headers={'Accept': 'application/json'})[0] == 200)


def empty_storage():
    """Removes every object left by the previous case, finalizers first, so that each
    case sees the empty storage the replay's fresh server has."""
    accept = {'Accept': 'application/json'}
    for base in scenario.OBJECT_PATHS:
        _, _, _, listed = send('GET', base, headers=accept)
        for item in listed['items']:
            path = f'{base}/{item["metadata"]["name"]}'
            if item['metadata'].get('finalizers'):
                patch = {'metadata': {'finalizers': None}}
                send('PATCH', path, patch, dict(accept, **{'Content-Type': 'application/merge-patch+json'}))
            send('DELETE', path, headers=accept)
        eventually(f'{base} empty', lambda: send('GET', base, headers=accept)[3]['items'] == [])


def object_path(path):
    """The object a PUT's resourceVersion is read from: its path without query or subresource."""
    return path.split('?')[0].removesuffix('/status').removesuffix('/scale')


def run_step(step, previous):
    """Sends one step; returns (headers, body text, path) sent and the answer."""
    body = copy.deepcopy(step.get('body'))
    if step.get('fill_rv') and isinstance(body, dict) and isinstance(body.get('metadata', {}), dict):
        # A PUT carries the resourceVersion read just before it (the replay does the same);
        # a body whose metadata is not an object is sent as it is.
        code, _, _, current = send('GET', object_path(step['path']), headers={'Accept': scenario.JSON})
        if code == 200:
            body.setdefault('metadata', {})['resourceVersion'] = current['metadata']['resourceVersion']
    path = step['path']
    if '{continue}' in path:
        token = previous['metadata']['continue']
        path = path.replace('{continue}', urllib.parse.quote(token, safe=''))
    headers = scenario.headers_of(step)
    text = scenario.body_text(body)
    return headers, text, path, send(step['method'], path, text, headers, step.get('stream', False))


def main():
    reset_crds()
    out = []
    names = set()
    for case, point, steps in scenario.cases():
        assert case not in names, f'duplicate case {case}'
        names.add(case)
        empty_storage()
        previous = None
        for step in steps:
            headers, text, path, (code, ctype, warnings, body) = run_step(step, previous)
            previous = body
            rec = dict(step, case=case, point=point, headers=headers, body_text=text, sent_path=path,
                       code=code, content_type=ctype, warnings=warnings, response=body)
            out.append(rec)
            print(f'{case}: {step["method"]} {path} -> {code} {ctype} {warnings or ""}', file=sys.stderr)
    empty_storage()
    # Another file (argument) for a second recording, to check that the replay's masking
    # finds no differences between two runs of the reference (tests/compat_compare.rs).
    with open(sys.argv[1] if len(sys.argv) > 1 else os.path.join(FIX, 'compare.jsonl'), 'w') as f:
        for rec in out:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    per_point = {}
    for rec in out:
        per_point[rec['point']] = per_point.get(rec['point'], 0) + 1
    print(f'{len(out)} requests recorded; per point: {per_point}', file=sys.stderr)


if __name__ == '__main__':
    main()
