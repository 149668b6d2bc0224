#!/usr/bin/env python3
"""Records the reference's admission webhook answers (issue 30) into tests/fixtures/admission/:
scenarios.json (each scenario's host objects: Namespaces and webhook configurations, as
templates), compare.jsonl (one line per request: the reference apiextensions-apiserver's
code, Content-Type, Warning headers and body, and the AdmissionReview requests the test
webhook received while it was answered) and metrics.json (per scenario, the reference's
admission metrics afterwards: HELP/TYPE lines, counters, histogram counts). tests/admission_compare.rs replays them.

Needs the reference built (../shared/reference/README.md: PEERS_ROOT, setup-debian.sh) but not
running: for each scenario this script writes the configurations to $STUB_OBJECTS_FILE,
restarts the peers (the reference lists configurations once), creates the CRDs of
tests/fixtures/admission/crontabs.yaml and sends the scenario's requests. The test webhook is
../shared/reference/stub/webhook.py, started once here on a free port.
    PEERS_ROOT=$HOME/peers python3 hack/admission-oracle/record.py [--only NAME] [OUT.jsonl]
(--only NAME re-records one scenario, keeping the others' lines of OUT.jsonl.)
Requests go out over HTTP/1.1 with exactly the recorded path and headers (scenario.py).
"""
import base64, copy, http.client, json, os, signal, socket, ssl, subprocess, sys, time, urllib.parse

import yaml

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(__file__))
import scenario  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'admission')
REFERENCE = os.environ.get('REFERENCE_DIR', os.path.join(ROOT, '..', 'shared', 'reference'))
PEERS = os.environ.get('PEERS_ROOT') or sys.exit('set PEERS_ROOT (../shared/reference/README.md)')
RUN = os.path.join(PEERS, 'run')
PKI = os.path.join(PEERS, 'pki')
OBJECTS = os.path.join(RUN, 'admission-objects.json')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
# Every request must answer within this (the slow webhook sleeps 5 s).
TIMEOUT = 20


class Reference:
    """The running reference: its URL and a TLS context with the admin certificate."""

    def __init__(self):
        env = {}
        for line in open(os.path.join(RUN, 'peers.env')):
            for kv in line.replace('export ', '').split():
                k, _, v = kv.partition('=')
                env[k] = v
        self.url = urllib.parse.urlsplit(env['APIEXT_URL'])
        self.ctx = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
        self.ctx.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')

    def send(self, method, path, body=None, headers=None):
        """One request; returns (code, content type, warnings, body as JSON or text)."""
        conn = http.client.HTTPSConnection(self.url.hostname, self.url.port, context=self.ctx, timeout=TIMEOUT)
        data = None if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
        try:
            conn.request(method, path, body=data, headers=headers or {})
            resp = conn.getresponse()
            raw = resp.read()
            ctype, warnings, code = resp.getheader('Content-Type'), resp.headers.get_all('Warning') or [], resp.status
        finally:
            conn.close()
        text = raw.decode(errors='replace')
        try:
            out = json.loads(text)
        except ValueError:
            out = text
        return code, ctype, warnings, out


def eventually(what, attempt, within=60):
    deadline = time.monotonic() + within
    while not attempt():
        if time.monotonic() > deadline:
            sys.exit(f'timed out waiting for {what}')
        time.sleep(0.1)


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Webhook:
    """stub/webhook.py on a free port; its stdout (one JSON line per review) read as it grows."""

    def __init__(self):
        self.port = free_port()
        self.log = os.path.join(RUN, 'admission-webhook.log')
        self.out = open(self.log, 'w')
        self.proc = subprocess.Popen([sys.executable, os.path.join(REFERENCE, 'stub', 'webhook.py'), str(self.port)],
                                     stdout=self.out, stderr=subprocess.STDOUT, env=dict(os.environ, PEERS_ROOT=PEERS))
        self.offset = 0
        self.base = f'https://127.0.0.1:{self.port}'
        self.closed = f'https://127.0.0.1:{free_port()}'  # nobody listens there
        eventually('the webhook listening', self._up, 10)

    def _up(self):
        try:
            socket.create_connection(('127.0.0.1', self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def reviews(self):
        """The reviews received since the last call: [{path, request}]. webhook.py's threads
        print concurrently and print() writes a line and its newline separately, so two
        reviews can share a line: objects are read one after the other, whatever separates
        them (each is printed whole before the webhook answers)."""
        with open(self.log, 'rb') as f:
            f.seek(self.offset)
            text = f.read().decode()
        decoder, at, out = json.JSONDecoder(), 0, []
        while True:
            start = text.find('{"path": ', at)  # webhook.py's line; stderr may hold tracebacks
            if start < 0:
                break
            try:
                obj, end = decoder.raw_decode(text, start)
            except ValueError:
                break  # not printed whole yet
            out.append(obj)
            at = end
        self.offset += len(text[:at].encode())
        return out

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def ca_bundle():
    return base64.b64encode(open(f'{PKI}/serving-ca.crt', 'rb').read()).decode()


def instantiate(value, webhook):
    """A configuration template with the webhook's URL and CAs filled in."""
    other = base64.b64encode(open(f'{PKI}/ca.crt', 'rb').read()).decode()  # the client CA
    text = (json.dumps(value).replace('$WEBHOOK', webhook.base).replace('$CLOSED', webhook.closed)
            .replace('$OTHER_CA_BUNDLE', other).replace('$CA_BUNDLE', ca_bundle()))
    return json.loads(text)


def peers(command, objects=None):
    env = dict(os.environ, PEERS_ROOT=PEERS)
    if objects is not None:
        env['STUB_OBJECTS_FILE'] = objects
    done = subprocess.run([os.path.join(REFERENCE, 'run-peers.sh'), command], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f'run-peers.sh {command} failed:\n{done.stdout}')


def established(ref, name):
    _, _, _, o = ref.send('GET', f'{CRDS}/{name}', headers={'Accept': 'application/json'})
    conds = {c['type']: c['status'] for c in ((o if isinstance(o, dict) else {}).get('status') or {}).get('conditions') or []}
    return conds.get('Established') == 'True'


def create_crds(ref):
    json_only = {'Accept': 'application/json', 'Content-Type': 'application/json'}
    for crd in yaml.safe_load_all(open(os.path.join(FIX, 'crontabs.yaml'))):
        code, _, _, out = ref.send('POST', CRDS, crd, json_only)
        assert code == 201, out
        eventually(f'{crd["metadata"]["name"]} established', lambda: established(ref, crd['metadata']['name']))
    for base in scenario.LIST_PATHS:
        eventually(f'{base} lists', lambda: ref.send('GET', base, headers={'Accept': 'application/json'})[0] == 200)


def object_path(path):
    return path.split('?')[0].removesuffix('/status').removesuffix('/scale')


def run_step(ref, step):
    body = copy.deepcopy(step.get('body'))
    if step.get('fill_rv') and isinstance(body, dict):
        code, _, _, current = ref.send('GET', object_path(step['path']), headers={'Accept': scenario.JSON})
        if code == 200:
            body.setdefault('metadata', {})['resourceVersion'] = current['metadata']['resourceVersion']
    headers = scenario.headers_of(step)
    text = scenario.body_text(body)
    return headers, text, ref.send(step['method'], step['path'], text, headers)


def record(name, configs, steps, webhook):
    objects = scenario.NAMESPACES + [instantiate(c, webhook) for c in configs]
    with open(OBJECTS, 'w') as f:
        json.dump(objects, f)
    peers('stop')
    peers('start', OBJECTS)
    ref = Reference()
    create_crds(ref)
    webhook.reviews()  # nothing before the first step belongs to it
    out = []
    for i, step in enumerate(steps):
        headers, text, (code, ctype, warnings, body) = run_step(ref, step)
        reviews = webhook.reviews()
        out.append(dict(step, scenario=name, index=i, headers=headers, body_text=text, code=code,
                        content_type=ctype, warnings=warnings, response=body, reviews=reviews,
                        webhook=webhook.base, closed=webhook.closed))
        print(f'{name}: {step["method"]} {step["path"]} -> {code} {warnings or ""} '
              f'reviews: {[r["path"] for r in reviews]}', file=sys.stderr)
    return out, admission_metrics(ref)


# The admission metrics of issue 30, point 7, and the per-plugin histogram kube exports beside them.
METRIC_PREFIXES = ('apiserver_admission_webhook_', 'apiserver_admission_step_admission_duration_seconds',
                   'apiserver_admission_controller_admission_duration_seconds')


def admission_metrics(ref):
    """The reference's admission metrics after a scenario: HELP and TYPE lines, counters, and
    histograms' and summaries' `_count` series (durations vary from run to run; their counts
    do not)."""
    _, _, _, text = ref.send('GET', '/metrics', headers={'Accept': 'text/plain'})
    kept = []
    for line in text.splitlines():
        name = line.split(' ')[2] if line.startswith('# ') else line.split('{')[0].split(' ')[0]
        if not name.startswith(METRIC_PREFIXES):
            continue
        if line.startswith('# ') or not (name.endswith(('_bucket', '_sum')) or 'quantile=' in line):
            kept.append(line)
    return kept


def main():
    # Stopped with SIGTERM, still stop the peers and the webhook (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    args = sys.argv[1:]
    only = None
    if args[:1] == ['--only']:
        only, args = args[1], args[2:]
    target = args[0] if args else os.path.join(FIX, 'compare.jsonl')
    os.makedirs(RUN, exist_ok=True)
    subprocess.run([os.path.join(REFERENCE, 'gen-pki.sh')], env=dict(os.environ, PEERS_ROOT=PEERS), check=True)
    webhook = Webhook()
    lines, templates, metrics = [], {}, {}
    try:
        for name, configs, steps in scenario.scenarios():
            assert name not in templates, f'duplicate scenario {name}'
            templates[name] = {'namespaces': scenario.NAMESPACES, 'configurations': configs}
            if only is None or only == name:
                recorded, metrics[name] = record(name, configs, steps, webhook)
                lines += recorded
    finally:
        peers('stop')
        webhook.stop()
    if only is not None and os.path.exists(target):
        # One scenario re-recorded: the other scenarios' lines stay, in scenario order.
        order = list(templates)
        kept = [json.loads(l) for l in open(target) if json.loads(l)['scenario'] != only]
        lines = sorted(kept + lines, key=lambda r: (order.index(r['scenario']), r['index']))
    with open(target, 'w') as f:
        for rec in lines:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    with open(os.path.join(FIX, 'scenarios.json'), 'w') as f:
        json.dump(templates, f, indent=1, sort_keys=True)
        f.write('\n')
    if len(args) == 0:
        path = os.path.join(FIX, 'metrics.json')
        if only is not None and os.path.exists(path):
            metrics = dict(json.load(open(path)), **metrics)
        with open(path, 'w') as f:
            json.dump(metrics, f, indent=1, sort_keys=True)
            f.write('\n')
    print(f'{len(lines)} requests recorded in {len(set(r["scenario"] for r in lines))} scenarios', file=sys.stderr)


if __name__ == '__main__':
    main()
