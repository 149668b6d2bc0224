#!/usr/bin/env python3
"""Records tests/fixtures/managed_fields/compare.jsonl from the reference server.

Each line is one request of the server-side apply comparison (tests/managed_fields_compare.rs)
with the reference apiextensions-apiserver's answer: code, body and Warning headers. Run the
reference first (../shared/reference/README.md), then: python3 hack/ssa-oracle/record.py
The scenario is in scenario.py beside this file; the CRD is tests/fixtures/managed_fields/widgets.yaml.
"""
import copy, json, os, ssl, sys, time, urllib.error, urllib.request

import yaml

sys.path.insert(0, os.path.dirname(__file__))
import scenario  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'managed_fields')
ENV = {}
for line in open(os.path.expanduser(os.environ.get('PEERS_ENV', '/root/peers/run/peers.env'))):
    for kv in line.replace('export ', '').split():
        k, _, v = kv.partition('=')
        ENV[k] = v
URL, PKI = ENV['APIEXT_URL'], ENV['PEERS_PKI']
CTX = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
CTX.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'


def send(method, path, body=None, ctype='application/json', headers=None):
    data = None
    if body is not None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
    r = urllib.request.Request(URL + path, data=data, method=method)
    if data is not None:
        r.add_header('Content-Type', ctype)
    if not any(k.lower() == 'accept' for k in (headers or {})):
        r.add_header('Accept', 'application/json')
    for k, v in (headers or {}).items():
        r.add_header(k, v)
    try:
        with urllib.request.urlopen(r, context=CTX) as resp:
            code, raw, hdrs = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        code, raw, hdrs = e.code, e.read(), e.headers
    try:
        out = json.loads(raw)
    except ValueError:
        out = raw.decode(errors='replace')
    return code, out, hdrs.get_all('Warning') or []


def reset_crd():
    crd = yaml.safe_load(open(os.path.join(FIX, 'widgets.yaml')))
    name = crd['metadata']['name']
    if send('DELETE', f'{CRDS}/{name}')[0] == 200:
        while send('GET', f'{CRDS}/{name}')[0] != 404:
            time.sleep(0.2)
    code, out, _ = send('POST', CRDS, crd)
    assert code == 201, out
    while True:
        _, o, _ = send('GET', f'{CRDS}/{name}')
        conds = {c['type']: c['status'] for c in (o.get('status') or {}).get('conditions') or []}
        if conds.get('Established') == 'True':
            break
        time.sleep(0.1)
    # The first requests of a new resource may answer 429 while its storage starts.
    while send('GET', '/apis/ssa.example.com/v1/namespaces/default/widgets')[0] != 200:
        time.sleep(0.2)


def run_step(step):
    body = copy.deepcopy(step.get('body'))
    if step['method'] == 'PUT' and step.get('fill_rv', True):
        # A PUT carries the resourceVersion read just before it (the test does the same).
        path = step['path'].split('?')[0].removesuffix('/status').removesuffix('/scale')
        c, cur, _ = send('GET', path)
        if c == 200:
            body.setdefault('metadata', {})['resourceVersion'] = cur['metadata']['resourceVersion']
    headers = {'User-Agent': step.get('user_agent', scenario.USER_AGENT)}
    if 'accept' in step:
        headers['Accept'] = step['accept']
    return send(step['method'], step['path'], body, step.get('ctype', 'application/json'), headers)


def main():
    reset_crd()
    out = []
    for case, steps in scenario.cases():
        for step in steps:
            code, body, warnings = run_step(step)
            rec = dict(step, case=case, code=code, response=body)
            if warnings:
                rec['warnings'] = warnings
            out.append(rec)
            print(f'{case}: {step["method"]} {step["path"]} -> {code}', file=sys.stderr)
    with open(os.path.join(FIX, 'compare.jsonl'), 'w') as f:
        for rec in out:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    print(f'{len(out)} requests recorded', file=sys.stderr)


if __name__ == '__main__':
    main()
