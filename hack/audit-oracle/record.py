#!/usr/bin/env python3
"""Records the audit events the reference writes (issue 33) into tests/fixtures/audit/:
scenarios.json (each scenario's policy, flags and host objects as templates) and
webhook.json (per scenario with the webhook backend, what it POSTed: path, headers, the
EventList as sent) and compare.jsonl (one line per request: what was sent, the reference's code, `Audit-Id` response
header and body, and the lines its log backend wrote for that request's events, as written:
Go's field order, the json or the legacy format). tests/audit_compare.rs replays them.

Needs the reference built (../shared/reference/README.md: PEERS_ROOT, setup-debian.sh) but not
running: for each scenario this script writes the policy and the host objects, restarts the
peers in its own run directory ($PEERS_ROOT/run-audit, so other recorders' peers are left
alone) with `--audit-policy-file`/`--audit-log-path` and the scenario's flags, creates the CRDs
of tests/fixtures/admission/crontabs.yaml and sends the scenario's requests (scenario.py). The
test webhook is ../shared/reference/stub/webhook.py on a free port.
    PEERS_ROOT=$HOME/peers python3 hack/audit-oracle/record.py [--only NAME,NAME...]
Events are told apart by auditID: the `Audit-Id` the reference answers for the request.
"""
import base64, copy, http.client, json, os, re, signal, socket, ssl, subprocess, sys, time, urllib.parse

import yaml

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(__file__))
import scenario  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
# AUDIT_FIXTURES: another directory to record into (e.g. to compare two recordings).
FIX = os.environ.get('AUDIT_FIXTURES', os.path.join(ROOT, 'tests', 'fixtures', 'audit'))
CRD_FILE = os.path.join(ROOT, 'tests', 'fixtures', 'admission', 'crontabs.yaml')
REFERENCE = os.environ.get('REFERENCE_DIR', os.path.join(ROOT, '..', 'shared', 'reference'))
PEERS = os.environ.get('PEERS_ROOT') or sys.exit('set PEERS_ROOT (../shared/reference/README.md)')
RUN = os.environ.get('PEERS_RUN', os.path.join(PEERS, 'run-audit'))
PKI = os.path.join(PEERS, 'pki')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
TIMEOUT = 20
# A request's events are complete once this stage is written, or once the log has not grown
# for QUIET seconds (a level None request, or omitStages ResponseComplete).
FINAL_STAGES = ('ResponseComplete', 'Panic')
QUIET = 1.5


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


class Reference:
    """The running reference: its URL and TLS contexts with and without the admin certificate."""

    def __init__(self):
        env = {}
        for line in open(os.path.join(RUN, 'peers.env')):
            for kv in line.replace('export ', '').split():
                k, _, v = kv.partition('=')
                env[k] = v
        self.env = env
        self.url = urllib.parse.urlsplit(env['APIEXT_URL'])
        self.admin = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
        self.admin.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')
        self.bare = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')

    def send(self, method, path, body=None, headers=None, certificate=True):
        """One request; returns (code, Audit-Id header or None, Warning headers, body)."""
        ctx = self.admin if certificate else self.bare
        conn = http.client.HTTPSConnection(self.url.hostname, self.url.port, context=ctx, timeout=TIMEOUT)
        data = None if body is None else body.encode()
        try:
            conn.request(method, path, body=data, headers=headers or {})
            resp = conn.getresponse()
            raw = resp.read()
            audit_id, warnings, code = resp.getheader('Audit-Id'), resp.headers.get_all('Warning') or [], resp.status
        finally:
            conn.close()
        text = raw.decode(errors='replace')
        try:
            out = json.loads(text)
        except ValueError:
            out = text
        return code, audit_id, warnings, out


class AuditLog:
    """The reference's audit log, read as it grows; events grouped by auditID."""

    def __init__(self, path, legacy):
        self.path, self.legacy, self.offset = path, legacy, 0
        self.by_id = {}

    def _read(self):
        if not os.path.exists(self.path):
            return False
        with open(self.path, 'rb') as f:
            f.seek(self.offset)
            text = f.read().decode()
        complete = text[:text.rfind('\n') + 1]
        self.offset += len(complete.encode())
        for line in complete.splitlines():
            if self.legacy:
                m = re.search(r'AUDIT: id="([^"]*)"', line)
                key, event = (m.group(1) if m else ''), line
            else:
                key = json.loads(line)['auditID']
            self.by_id.setdefault(key, []).append(line)
        return bool(complete)

    def _final(self, audit_id):
        for e in self.by_id.get(audit_id, []):
            stage = re.search(r'stage="([^"]*)"', e).group(1) if self.legacy else json.loads(e)['stage']
            if stage in FINAL_STAGES:
                return True
        return False

    def events(self, audit_id):
        """The lines of `audit_id`'s events as written (Go's field order), once complete."""
        quiet_since = time.monotonic()
        deadline = quiet_since + 30
        while time.monotonic() < deadline:
            if self._read():
                quiet_since = time.monotonic()
            if self._final(audit_id) or time.monotonic() - quiet_since > QUIET:
                break
            time.sleep(0.05)
        return self.by_id.pop(audit_id, [])


class Webhook:
    """stub/webhook.py on a free port."""

    def __init__(self):
        self.port = free_port()
        self.out = open(os.path.join(RUN, 'audit-webhook.log'), 'w')
        self.proc = subprocess.Popen([sys.executable, os.path.join(REFERENCE, 'stub', 'webhook.py'), str(self.port)],
                                     stdout=self.out, stderr=subprocess.STDOUT, env=dict(os.environ, PEERS_ROOT=PEERS))
        self.base = f'https://127.0.0.1:{self.port}'
        self.closed = f'https://127.0.0.1:{free_port()}'
        eventually('the webhook listening', self._up, 10)

    def _up(self):
        try:
            socket.create_connection(('127.0.0.1', self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class AuditReceiver:
    """An HTTPS server (backend.crt) recording what the audit webhook backend POSTs: path,
    headers and body, in arrival order."""

    def __init__(self):
        import http.server, threading
        received = self.received = []
        receiver = self
        self.closing = False

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                received.append({'method': 'POST', 'path': self.path, 'headers': list(self.headers.items()),
                                 'body': body.decode(errors='replace')})
                if receiver.closing:  # a failing backend: the connection closes without an answer
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'{}')

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(f'{PKI}/backend.crt', f'{PKI}/backend.key')
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def kubeconfig(self):
        path = os.path.join(RUN, 'audit-webhook.kubeconfig')
        with open(path, 'w') as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters:
- cluster: {{server: "https://127.0.0.1:{self.port}/audit/events", certificate-authority: {PKI}/serving-ca.crt}}
  name: audit
users:
- user: {{token: audit-webhook-token}}
  name: u
contexts:
- context: {{cluster: audit, user: u}}
  name: ctx
current-context: ctx
""")
        return path

    def events_of(self, ids):
        """The POSTs holding an event of `ids`, once every id's ResponseComplete came."""
        def done():
            seen = set()
            for r in self.received:
                for e in json.loads(r['body']).get('items', []):
                    if e['stage'] in FINAL_STAGES:
                        seen.add(e['auditID'])
            return set(ids) <= seen
        eventually('the audit webhook receiving every event', done, 30)
        return [r for r in self.received if any(e['auditID'] in ids for e in json.loads(r['body']).get('items', []))]


def instantiate(value, webhook):
    ca = base64.b64encode(open(f'{PKI}/serving-ca.crt', 'rb').read()).decode()
    other = base64.b64encode(open(f'{PKI}/ca.crt', 'rb').read()).decode()
    text = (json.dumps(value).replace('$WEBHOOK', webhook.base).replace('$CLOSED', webhook.closed)
            .replace('$OTHER_CA_BUNDLE', other).replace('$CA_BUNDLE', ca))
    return json.loads(text)


def peers(command, objects=None, flags=()):
    env = dict(os.environ, PEERS_ROOT=PEERS, PEERS_RUN=RUN, SAR_DENY_USERS=','.join(scenario.DENY_USERS),
               APIEXT_EXTRA_FLAGS=' '.join(flags))
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
    for crd in yaml.safe_load_all(open(CRD_FILE)):
        code, _, _, out = ref.send('POST', CRDS, json.dumps(crd), json_only)
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
    text = body_text(body)
    certificate = step.get('as', 'admin') == 'admin'
    return headers, text, ref.send(step['method'], step['path'], text, headers, certificate)


def body_text(body):
    return scenario.body_text(body)


def record(name, policy, flags, objects, steps, webhook, receiver):
    log_path = os.path.join(RUN, f'audit-{name}.log')
    receiver.received.clear()
    receiver.closing = '$AUDIT_WEBHOOK_CLOSING' in flags
    flags = [receiver.kubeconfig() if f in ('$AUDIT_WEBHOOK', '$AUDIT_WEBHOOK_CLOSING') else f for f in flags]
    if os.path.exists(log_path):
        os.remove(log_path)
    all_flags = list(flags)
    if policy is not None:
        policy_path = os.path.join(RUN, f'audit-{name}-policy.yaml')
        with open(policy_path, 'w') as f:
            yaml.safe_dump(policy, f, sort_keys=False)
        all_flags += ['--audit-policy-file', policy_path, '--audit-log-path', log_path]
    objects_path = os.path.join(RUN, 'audit-objects.json')
    with open(objects_path, 'w') as f:
        json.dump([instantiate(o, webhook) for o in objects], f)
    peers('stop')
    peers('start', objects_path, all_flags)
    ref = Reference()
    create_crds(ref)
    log = AuditLog(log_path, '--audit-log-format' in flags and 'legacy' in flags)
    log.events('')  # the start-up's and the CRDs' events are not the scenario's
    log.by_id.clear()
    out = []
    for i, step in enumerate(steps):
        headers, text, (code, audit_id, warnings, body) = run_step(ref, step)
        events = log.events(audit_id) if audit_id else []
        if policy is None:
            events = []
        out.append(dict(step, scenario=name, index=i, headers=headers, body_text=text, code=code,
                        audit_id=audit_id, warnings=warnings, response=body, events=events,
                        webhook=webhook.base))
        print(f'{name}: {step["method"]} {step["path"]} -> {code} audit-id {audit_id} '
              f'{[stage_of(e) for e in events]}', file=sys.stderr)
    # Events of no step (another auditID) would be a recorder error.
    log.events('')
    stray = {k: v for k, v in log.by_id.items() if any(scenario.USER_AGENT in e for e in v)}
    assert not stray, f'events of no step: {stray}'
    posts = []
    if receiver.closing:
        time.sleep(QUIET)  # retries still under way are not the recording's
        posts = [p for p in receiver.received if any(e['auditID'] in [r['audit_id'] for r in out]
                                                     for e in json.loads(p['body']).get('items', []))]
    elif any('audit-webhook' in f for f in flags):
        posts = receiver.events_of([r['audit_id'] for r in out])
        print(f'{name}: the audit webhook received {len(posts)} POSTs', file=sys.stderr)
    return out, posts


def stage_of(line):
    m = re.search(r'stage="([^"]*)"', line)
    return m.group(1) if m else json.loads(line)['stage']


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    args = sys.argv[1:]
    only = None
    if args[:1] == ['--only']:
        only, args = set(args[1].split(',')), args[2:]
    os.makedirs(RUN, exist_ok=True)
    os.makedirs(FIX, exist_ok=True)
    target = os.path.join(FIX, 'compare.jsonl')
    subprocess.run([os.path.join(REFERENCE, 'gen-pki.sh')], env=dict(os.environ, PEERS_ROOT=PEERS), check=True)
    webhook = Webhook()
    receiver = AuditReceiver()
    lines, templates, posts = [], {}, {}
    try:
        for name, policy, flags, objects, steps in scenario.scenarios():
            templates[name] = {'policy': policy, 'flags': flags, 'objects': objects,
                               'deny_users': scenario.DENY_USERS}
            if only is None or name in only:
                recorded, posts[name] = record(name, policy, flags, objects, steps, webhook, receiver)
                lines += recorded
    finally:
        peers('stop')
        webhook.stop()
    if only is not None and os.path.exists(target):
        order = list(templates)
        kept = [json.loads(l) for l in open(target) if json.loads(l)['scenario'] not in only]
        lines = sorted(kept + lines, key=lambda r: (order.index(r['scenario']), r['index']))
    with open(target, 'w') as f:
        for rec in lines:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    webhook_path = os.path.join(FIX, 'webhook.json')
    if only is not None and os.path.exists(webhook_path):
        posts = dict(json.load(open(webhook_path)), **posts)
    with open(webhook_path, 'w') as f:
        json.dump({k: v for k, v in posts.items() if v}, f, indent=1, sort_keys=True)
        f.write('\n')
    with open(os.path.join(FIX, 'scenarios.json'), 'w') as f:
        json.dump(templates, f, indent=1, sort_keys=True)
        f.write('\n')
    print(f'{len(lines)} requests recorded in {len(set(r["scenario"] for r in lines))} scenarios', file=sys.stderr)


if __name__ == '__main__':
    main()
