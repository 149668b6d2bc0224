#!/usr/bin/env python3
"""Records the reference's CRD conversion behaviour (issue 32) into tests/fixtures/conversion/:
scenarios.json (each scenario's definition template), compare.jsonl (one line per step: the
request, the reference apiextensions-apiserver's code, Content-Type, Warning headers and body,
watch events, and the ConversionReviews the converter received meanwhile: path, headers, raw
body, parsed review) and metrics.json (per scenario, the reference's conversion metrics after
it: HELP/TYPE lines, counters, histogram counts). tests/conversion_compare.rs replays them.

Needs the reference built (../shared/reference/README.md: PEERS_ROOT, setup-debian.sh) but not
running: for each scenario this script restarts the peers in its own run directory
($PEERS_ROOT/run-conversion, so other users of $PEERS_ROOT/run are left alone), creates the
scenario's definition (hack/conversion-oracle/scenario.py) calling converter.py (started once
here, on a free port) and sends the scenario's steps.
    PEERS_ROOT=$HOME/peers python3 hack/conversion-oracle/record.py [--only NAME] [OUT.jsonl]
(--only NAME re-records one scenario, keeping the others' lines of OUT.jsonl.)
"""
import base64, copy, http.client, json, os, signal, socket, ssl, subprocess, sys, time, urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(__file__))
import scenario  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'conversion')
REFERENCE = os.environ.get('REFERENCE_DIR', os.path.join(ROOT, '..', 'shared', 'reference'))
PEERS = os.environ.get('PEERS_ROOT') or sys.exit('set PEERS_ROOT (../shared/reference/README.md)')
RUN = os.path.join(PEERS, 'run-conversion')
PKI = os.path.join(PEERS, 'pki')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
TIMEOUT = 70  # a slow converter fails after its 30 s client timeout
# Conversions the reference's caches make after an answer (each version's cacher converts
# every event) land within this; the step's reviews are read after it.
SETTLE = 0.4


def env_of():
    env = {}
    for line in open(os.path.join(RUN, 'peers.env')):
        for kv in line.replace('export ', '').split():
            k, _, v = kv.partition('=')
            env[k] = v
    return env


class Reference:
    """The running reference: its URL and a TLS context with the admin certificate."""

    def __init__(self):
        self.env = env_of()
        self.url = urllib.parse.urlsplit(self.env['APIEXT_URL'])
        self.ctx = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
        self.ctx.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')

    def connect(self):
        return http.client.HTTPSConnection(self.url.hostname, self.url.port, context=self.ctx, timeout=TIMEOUT)

    def send(self, method, path, body=None, headers=None):
        """One request; returns (code, content type, warnings, body as JSON or text)."""
        conn = self.connect()
        data = None if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
        try:
            conn.request(method, path, body=data, headers=headers or {})
            resp = conn.getresponse()
            raw = resp.read()
            ctype, warnings, code = resp.getheader('Content-Type'), resp.headers.get_all('Warning') or [], resp.status
        except (TimeoutError, socket.timeout):
            return 0, None, [], 'no answer within %ds' % TIMEOUT
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


class Converter:
    """converter.py on a free port; its stdout (one JSON line per review) read as it grows."""

    def __init__(self):
        self.port = free_port()
        self.log = os.path.join(RUN, 'converter.log')
        self.out = open(self.log, 'w')
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, 'converter.py'), str(self.port)],
                                     stdout=self.out, stderr=subprocess.STDOUT, env=dict(os.environ, PEERS_ROOT=PEERS))
        self.offset = 0
        self.base = f'https://127.0.0.1:{self.port}'
        self.closed = f'https://127.0.0.1:{free_port()}'  # nobody listens there
        eventually('the converter listening', self._up, 10)

    def _up(self):
        try:
            socket.create_connection(('127.0.0.1', self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def reviews(self):
        """The reviews received since the last call (converter.py's lines; two threads' lines may
        interleave, so objects are read one after the other whatever separates them)."""
        with open(self.log, 'rb') as f:
            f.seek(self.offset)
            text = f.read().decode()
        decoder, at, out = json.JSONDecoder(), 0, []
        while True:
            start = text.find('{"path": ', at)
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


def instantiate(value, converter):
    text = (json.dumps(value).replace('$CONVERTER', converter.base).replace('$CLOSED', converter.closed)
            .replace('$CA_BUNDLE', ca_bundle()))
    return json.loads(text)


def peers(command):
    env = dict(os.environ, PEERS_ROOT=PEERS, PEERS_RUN=RUN)
    done = subprocess.run([os.path.join(REFERENCE, 'run-peers.sh'), command], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f'run-peers.sh {command} failed:\n{done.stdout}')


JSON_ONLY = {'Accept': 'application/json', 'Content-Type': 'application/json'}


def established(ref, name):
    _, _, _, o = ref.send('GET', f'{CRDS}/{name}', headers={'Accept': 'application/json'})
    conds = {c['type']: c['status'] for c in ((o if isinstance(o, dict) else {}).get('status') or {}).get('conditions') or []}
    return conds.get('Established') == 'True'


def lists(ref):
    for base in (scenario.V1, scenario.V2):
        eventually(f'{base} lists', lambda: ref.send('GET', base, headers={'Accept': 'application/json'})[0] == 200)


def create_crd(ref, definition):
    code, _, _, out = ref.send('POST', CRDS, definition, JSON_ONLY)
    assert code == 201, out
    eventually(f'{scenario.NAME} established', lambda: established(ref, scenario.NAME))
    lists(ref)


def replace_crd(ref, definition):
    """PUTs a new definition over the current one; waits until it is served."""
    _, _, _, current = ref.send('GET', f'{CRDS}/{scenario.NAME}', headers={'Accept': 'application/json'})
    definition = dict(definition, metadata=dict(definition['metadata'],
                                                resourceVersion=current['metadata']['resourceVersion']))
    code, _, _, out = ref.send('PUT', f'{CRDS}/{scenario.NAME}', definition, JSON_ONLY)
    assert code == 200, out
    time.sleep(2)  # the reference swaps a changed definition's storage asynchronously
    lists(ref)
    return out


def object_path(path):
    return path.split('?')[0].removesuffix('/status').removesuffix('/scale')


def fill(ref, step):
    """The step's body with the current object's uid and resourceVersion where asked."""
    body = copy.deepcopy(step.get('body'))
    if (step.get('fill_rv') or step.get('fill_uid')) and isinstance(body, dict):
        code, _, _, current = ref.send('GET', object_path(step['path']), headers={'Accept': scenario.JSON})
        if code == 200:
            meta = body.setdefault('metadata', {})
            if step.get('fill_rv'):
                meta['resourceVersion'] = current['metadata']['resourceVersion']
            if step.get('fill_uid'):
                meta['uid'] = current['metadata']['uid']
    return body


def watch(ref, step, converter, record_step):
    """Opens the watch, reads `initial` events, runs the `during` steps, reads to the end."""
    conn = ref.connect()
    headers = scenario.headers_of(step)
    conn.request('GET', step['path'], headers=headers)
    resp = conn.getresponse()
    code, events, during = resp.status, [], []
    if code != 200:
        body = resp.read().decode(errors='replace')
        conn.close()
        return dict(code=code, headers=headers, response=json.loads(body), events=[], during=[])
    while len(events) < step['initial']:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
    for inner in step['during']:
        during.append(record_step(inner))
    while True:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
    conn.close()
    return dict(code=code, headers=headers, events=events, during=during, content_type=resp.getheader('Content-Type'))


def stored(ref, names):
    """The apiVersion each object is stored at in etcd (absent: null)."""
    out = {}
    for name in names:
        key = f'/registry/apiext/{scenario.GROUP}/widgets/default/{name}'
        done = subprocess.run([os.path.join(PEERS, 'etcd', 'usr', 'bin', 'etcdctl'), '--endpoints', ref.env['ETCD_URL'],
                               'get', key, '--print-value-only'], stdout=subprocess.PIPE, text=True, check=True)
        out[name] = json.loads(done.stdout)['apiVersion'] if done.stdout.strip() else None
    return out


def run_step(ref, step, template, converter):
    """One step's recording (without its reviews)."""
    method = step['method']
    if method == 'WATCH':
        return watch(ref, step, converter, lambda inner: recorded(ref, inner, template, converter))
    if method == 'STORED':
        return dict(stored=stored(ref, step['names']))
    if method == 'CRD':
        definition = scenario.definition(template, step['crd'])
        out = replace_crd(ref, instantiate(definition, converter))
        return dict(stored_versions=out.get('status', {}).get('storedVersions'))
    if method == 'DEFINE':
        definition = instantiate(scenario.definition(template, step['crd']), converter)
        code, ctype, warnings, body = ref.send('POST', CRDS, definition, JSON_ONLY)
        if code == 201:
            ref.send('DELETE', f'{CRDS}/{scenario.NAME}', headers=JSON_ONLY)
            eventually('the definition deleted', lambda: ref.send('GET', f'{CRDS}/{scenario.NAME}')[0] == 404)
        return dict(definition=definition, code=code, content_type=ctype, warnings=warnings, response=body)
    body = fill(ref, step)
    headers = scenario.headers_of(step)
    text = scenario.body_text(body)
    code, ctype, warnings, out = ref.send(method, step['path'], text, headers)
    return dict(headers=headers, body_text=text, code=code, content_type=ctype, warnings=warnings, response=out)


def summarized(reviews):
    """Reviews as kept: each with path, desired, count and `objects` ([apiVersion, name] of each
    object sent); the first one of a step also with its headers and raw bytes (the request as
    sent; the others differ only in their objects and uid)."""
    out = []
    for i, r in enumerate(reviews):
        review = r.pop('review')
        r['objects'] = [[o.get('apiVersion'), o.get('metadata', {}).get('name')]
                        for o in review.get('request', {}).get('objects', [])]
        if i > 0:
            r.pop('raw')
            r.pop('headers')
        out.append(r)
    return out


def recorded(ref, step, template, converter):
    converter.reviews()  # a previous step's late conversions are not this one's
    out = dict(step, **run_step(ref, step, template, converter))
    time.sleep(SETTLE)
    out['reviews'] = summarized(converter.reviews())
    print(f'  {step["method"]} {step.get("path", "")} -> {out.get("code", "")} {out.get("warnings") or ""} '
          f'reviews: {[(r["path"], r["count"]) for r in out["reviews"]]}', file=sys.stderr)
    return out


def record(name, template, steps, converter):
    print(f'{name}:', file=sys.stderr)
    peers('stop')
    peers('start')
    ref = Reference()
    if name != 'invalid_definitions':
        create_crd(ref, instantiate(template, converter))
    converter.reviews()  # nothing before the first step belongs to it
    out = []
    for i, step in enumerate(steps):
        rec = recorded(ref, step, template, converter)
        out.append(dict(rec, scenario=name, index=i, converter=converter.base, closed=converter.closed))
    return out, conversion_metrics(ref)


METRIC_PREFIXES = ('apiserver_conversion_webhook_', 'apiserver_crd_conversion_webhook_',
                   'apiserver_webhooks_conversion_')


def conversion_metrics(ref):
    """The reference's conversion metrics after a scenario: HELP and TYPE lines, counters, and
    histograms' `_count` series and the `le` bounds of one series per histogram."""
    _, _, _, text = ref.send('GET', '/metrics', headers={'Accept': 'text/plain'})
    kept, bounds = [], {}
    for line in text.splitlines():
        name = line.split(' ')[2] if line.startswith('# ') else line.split('{')[0].split(' ')[0]
        if not name.startswith(METRIC_PREFIXES):
            continue
        if name.endswith('_bucket'):
            series = line.split('le=')[0]
            if bounds.setdefault(name, series) == series:
                kept.append(line.rsplit(' ', 1)[0] + ' <count>')
            continue
        if line.startswith('# ') or not name.endswith('_sum'):
            kept.append(line)
    return kept


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    args = sys.argv[1:]
    only = None
    if args[:1] == ['--only']:
        only, args = args[1], args[2:]
    target = args[0] if args else os.path.join(FIX, 'compare.jsonl')
    os.makedirs(RUN, exist_ok=True)
    os.makedirs(FIX, exist_ok=True)
    subprocess.run([os.path.join(REFERENCE, 'gen-pki.sh')], env=dict(os.environ, PEERS_ROOT=PEERS), check=True)
    converter = Converter()
    lines, templates, metrics = [], {}, {}
    try:
        for name, template, steps in scenario.scenarios():
            assert name not in templates, f'duplicate scenario {name}'
            templates[name] = template
            if only is None or only == name:
                got, metrics[name] = record(name, template, steps, converter)
                lines += got
    finally:
        peers('stop')
        converter.stop()
    if only is not None and os.path.exists(target):
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
    print(f'{len(lines)} steps recorded in {len(set(r["scenario"] for r in lines))} scenarios', file=sys.stderr)


if __name__ == '__main__':
    main()
