#!/usr/bin/env python3
"""Records tests/fixtures/compat/metadata.jsonl: metadata-only reads and writes as the
garbage collector, the namespace controller and the quota controllers send them
(`Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1|v1beta1`, and
YAML), kube's 406 and 500 answers when the form does not fit, and the GC's and namespace
controller's request flows, answered by the reference apiextensions-apiserver (issue 12,
point 2). Replayed by tests/metadata_reads.rs.

The first line holds the CRDs (created here, named so that no other recording uses them);
each other line is one request with the reference's answer: code, Content-Type, Warning
headers and body (JSON when it parses, a watch's list of events, else the text). Templates
in paths and bodies, filled by the recorder and by the replay alike:
  {continue}    the previous answer's metadata.continue, URL-encoded
  {rv:LABEL}    metadata.resourceVersion of the answer of the step labelled LABEL
  {uid:NAME}    metadata.uid of the object NAME as last answered
Run the reference first (../shared/reference/README.md), then:
    python3 hack/compat-oracle/metadata.py
"""
import http.client, json, os, re, ssl, sys, time, urllib.parse

sys.dont_write_bytecode = True

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'tests', 'fixtures', 'compat', 'metadata.jsonl')
ENV = {}
for line in open(os.path.expanduser(os.environ.get('PEERS_ENV', '/root/peers/run/peers.env'))):
    for kv in line.replace('export ', '').split():
        k, _, v = kv.partition('=')
        ENV[k] = v
URL, PKI = urllib.parse.urlsplit(ENV['APIEXT_URL']), ENV['PEERS_PKI']
CTX = ssl.create_default_context(cafile=f'{PKI}/serving-ca.crt')
CTX.load_cert_chain(f'{PKI}/admin.crt', f'{PKI}/admin.key')
CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'
TIMEOUT = 10
USER_AGENT = 'metadata-reads/v1.0.0 (linux/amd64) kubernetes/0000000'

GROUP = 'metareads.example.com'
GV = f'/apis/{GROUP}/v1'
GD = f'{GV}/namespaces/default/gadgets'
GD_PUBLIC = f'{GV}/namespaces/kube-public/gadgets'
RK = f'{GV}/racks'
OBJECT_PATHS = [GD, GD_PUBLIC, RK]
JSON = 'application/json'
MERGE = 'application/merge-patch+json'
APPLY = 'application/apply-patch+yaml'


def meta(kind, version='v1', yaml=False):
    return f'application/{"yaml" if yaml else "json"};as={kind};g=meta.k8s.io;v={version}'


M, ML = meta('PartialObjectMetadata'), meta('PartialObjectMetadataList')
M_BETA, ML_BETA = meta('PartialObjectMetadata', 'v1beta1'), meta('PartialObjectMetadataList', 'v1beta1')
M_YAML, ML_YAML = meta('PartialObjectMetadata', yaml=True), meta('PartialObjectMetadataList', yaml=True)
# What client-go's metadata client sends, without its first (protobuf) choice.
METADATA_CLIENT_GET = f'{M},{JSON}'
METADATA_CLIENT_LIST = f'{ML},{JSON}'
# The body the metadata client's Delete and DeleteCollection send.
BACKGROUND = {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'propagationPolicy': 'Background'}


def schema():
    return {'openAPIV3Schema': {'type': 'object', 'properties': {
        'spec': {'type': 'object', 'properties': {'size': {'type': 'integer'}}}}}}


def crd(plural, kind, scope):
    return {'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
            'metadata': {'name': f'{plural}.{GROUP}'},
            'spec': {'group': GROUP, 'scope': scope,
                     'names': {'plural': plural, 'singular': kind.lower(), 'kind': kind, 'listKind': f'{kind}List'},
                     'versions': [{'name': 'v1', 'served': True, 'storage': True, 'schema': schema(),
                                   'additionalPrinterColumns': [
                                       {'name': 'Size', 'type': 'integer', 'jsonPath': '.spec.size'}]}]}}


CRD_DEFS = [crd('gadgets', 'Gadget', 'Namespaced'), crd('racks', 'Rack', 'Cluster')]


def obj(kind, name, size=1, **metadata):
    return {'apiVersion': f'{GROUP}/v1', 'kind': kind, 'metadata': dict(name=name, **metadata), 'spec': {'size': size}}


def gadget(name, **metadata):
    return obj('Gadget', name, **metadata)


def rack(name, **metadata):
    return obj('Rack', name, **metadata)


def owned_by(kind, name):
    return [{'apiVersion': f'{GROUP}/v1', 'kind': kind, 'name': name, 'uid': f'{{uid:{name}}}',
             'controller': True, 'blockOwnerDeletion': True}]


def step(method, path, body=None, accept=JSON, ctype=None, **extra):
    s = {'method': method, 'path': path, 'accept': accept, **extra}
    if body is not None:
        s['body'] = body
        s['ctype'] = ctype or JSON
    return s


def get(path, accept=JSON, **extra):
    return step('GET', path, accept=accept, **extra)


def watch(path, accept=M, **extra):
    sep = '&' if '?' in path else '?'
    return step('GET', f'{path}{sep}watch=1&timeoutSeconds=1', accept=accept, stream=True, **extra)


def post(base, body, accept=JSON, **extra):
    return step('POST', base, body, accept=accept, **extra)


def merge(path, body, accept=M, **extra):
    return step('PATCH', path, body, accept=accept, ctype=MERGE, **extra)


def delete(path, accept=JSON, body=None, **extra):
    return step('DELETE', path, body, accept=accept, **extra)


def cases():
    yield 'metadata_get', [
        post(RK, rack('r1')),
        post(GD, gadget('g1', labels={'app': 'a'}, annotations={'note': 'n'},
                        ownerReferences=owned_by('Rack', 'r1'))),
        get(f'{GD}/g1', M),
        get(f'{GD}/g1', M_BETA),
        get(f'{GD}/g1', M_YAML),
        get(f'{GD}/g1', meta('PartialObjectMetadata', 'v1beta1', yaml=True)),
        get(f'{GD}/g1', METADATA_CLIENT_GET),
        get(f'{GD}/g1', f'*/*;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'),
        get(f'{RK}/r1', M),
        get(f'{GD}/g1', ML),
        get(f'{GD}/g1', ML_YAML),
        get(f'{GD}/g1', meta('PartialObjectMetadata', 'v2')),
        get(f'{GD}/g1', 'application/json;as=PartialObjectMetadata'),
        get(f'{GD}/g1', 'application/json;as=PartialObjectMetadata;g=meta.k8s.io'),
        get(f'{GD}/g1', f'application/json;as=Status;g=meta.k8s.io;v=v1,{JSON}'),
        get(f'{GD}/g1', f'{meta("PartialObjectMetadata", "v2")},{M_BETA}'),
        get(f'{GD}/missing', M),
    ]
    yield 'metadata_list', [
        post(GD, gadget('l1', labels={'app': 'a'})),
        post(GD, gadget('l2')),
        post(GD, gadget('l3')),
        post(RK, rack('lr1')),
        post(RK, rack('lr2')),
        get(GD, ML),
        get(GD, ML_BETA),
        get(GD, ML_YAML),
        get(GD, meta('PartialObjectMetadataList', 'v1beta1', yaml=True)),
        get(GD, METADATA_CLIENT_LIST),
        get(GD, M),
        get(GD, meta('PartialObjectMetadataList', 'v2')),
        get(f'{GD}?limit=2', ML),
        get(f'{GD}?limit=2&continue={{continue}}', ML),
        get(f'{GD}?limit=1&labelSelector=app%3Da', ML),
        get(f'{GD}?limit=1&resourceVersion=0', ML),
        get(f'{GV}/gadgets?limit=2', ML),
        get(f'{RK}?limit=1', ML),
        get(f'{RK}?limit=1', meta('Table', 'v1beta1', yaml=True)),
        get(GD_PUBLIC, ML),
        get(GD_PUBLIC, ML_YAML),
        get(f'{GD}?fieldSelector=metadata.name%3Dl2', ML),
    ]
    yield 'metadata_watch', [
        post(GD, gadget('w1')),
        post(RK, rack('wr1')),
        get(GD, ML, label='start'),
        merge(f'{GD}/w1', {'metadata': {'labels': {'seen': 'yes'}}}),
        post(GD, gadget('w2')),
        delete(f'{GD}/w2'),
        watch(f'{GD}?resourceVersion={{rv:start}}'),
        watch(f'{GD}?resourceVersion={{rv:start}}', M_BETA),
        watch(GD),
        watch(f'{GD}?sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan'),
        watch(RK),
        watch(f'{GD}?resourceVersion={{rv:start}}', meta('Table', 'v1beta1')),
        watch(GD, ML),
        watch(GD, M_YAML),
        watch(GD, meta('Table', yaml=True)),
        watch(GD, meta('PartialObjectMetadata', 'v2')),
    ]
    yield 'metadata_writes', [
        post(GD, gadget('m1'), M),
        post(GD, gadget('m2'), M_YAML),
        post(GD, gadget('m3'), ML),
        step('PUT', f'{GD}/m1', gadget('m1', labels={'put': 'yes'}), accept=M, fill_rv=True),
        merge(f'{GD}/m1', {'metadata': {'annotations': {'patched': 'yes'}}}),
        step('PATCH', f'{GD}/m1?fieldManager=meta-apply', 'apiVersion: metareads.example.com/v1\n'
             'kind: Gadget\nmetadata:\n  name: m1\n  labels:\n    applied: "yes"\n',
             accept=M_BETA, ctype=APPLY),
        merge(f'{GD}/m2', {'metadata': {'finalizers': ['example.com/hold']}}, ML),
        get(f'{GD}/m2', M),
        delete(f'{GD}/m2', ML),
        get(f'{GD}/m2', M),
        delete(f'{GD}/m1', M),
        delete(f'{GD}/m3', 'application/json;as=Unknown;g=meta.k8s.io;v=v1'),
        get(f'{GD}/m3', M),
        delete(f'{GD}/m3', M_YAML),
        get(f'{GD}/m3', M),
        post(RK, rack('mr1')),
        post(RK, rack('mr2')),
        delete(RK, ML, BACKGROUND),
        post(RK, rack('mr3')),
        delete(RK, M, BACKGROUND),
        get(RK, ML),
        delete(GD_PUBLIC, ML, BACKGROUND),
    ]
    yield 'foreground_deletion', [
        post(GD, gadget('fo1')),
        post(GD, gadget('fd1', ownerReferences=owned_by('Gadget', 'fo1'))),
        post(GD, gadget('fd2', ownerReferences=owned_by('Gadget', 'fo1'))),
        delete(f'{GD}/fo1?propagationPolicy=Foreground', M),
        get(f'{GD}/fo1', METADATA_CLIENT_GET),
        get(GD, METADATA_CLIENT_LIST, label='listed'),
        delete(f'{GD}/fd1', JSON, dict(BACKGROUND, preconditions={'uid': '{uid:fd1}'})),
        delete(f'{GD}/fd2', JSON, dict(BACKGROUND, preconditions={'uid': '{uid:fd2}'})),
        watch(f'{GD}?resourceVersion={{rv:listed}}'),
        get(f'{GD}/fo1', METADATA_CLIENT_GET, label='owner'),
        merge(f'{GD}/fo1', {'metadata': {'resourceVersion': '{rv:owner}', 'finalizers': None}},
              METADATA_CLIENT_GET),
        get(f'{GD}/fo1', METADATA_CLIENT_GET),
        get(GD, METADATA_CLIENT_LIST),
    ]
    yield 'orphan_deletion', [
        post(RK, rack('oo1')),
        post(GD, gadget('od1', ownerReferences=owned_by('Rack', 'oo1'))),
        delete(f'{RK}/oo1', M, {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'propagationPolicy': 'Orphan'}),
        get(f'{GD}/od1', METADATA_CLIENT_GET, label='dependent'),
        merge(f'{GD}/od1', {'metadata': {'resourceVersion': '{rv:dependent}', 'ownerReferences': None}},
              METADATA_CLIENT_GET),
        get(f'{RK}/oo1', METADATA_CLIENT_GET, label='owner'),
        merge(f'{RK}/oo1', {'metadata': {'resourceVersion': '{rv:owner}', 'finalizers': None}},
              METADATA_CLIENT_GET),
        get(f'{RK}/oo1', METADATA_CLIENT_GET),
        get(f'{GD}/od1', METADATA_CLIENT_GET),
    ]
    yield 'namespace_deletion', [
        post(GD, gadget('n1')),
        post(GD, gadget('n2', finalizers=['example.com/hold'])),
        get(GD, METADATA_CLIENT_LIST, label='before'),
        delete(GD, JSON, BACKGROUND),
        get(GD, METADATA_CLIENT_LIST),
        merge(f'{GD}/n2', {'metadata': {'finalizers': None}}, METADATA_CLIENT_GET),
        get(GD, METADATA_CLIENT_LIST),
        watch(f'{GD}?resourceVersion={{rv:before}}'),
    ]


def send(method, path, data=None, headers=None, stream=False):
    conn = http.client.HTTPSConnection(URL.hostname, URL.port, context=CTX, timeout=TIMEOUT)
    try:
        conn.request(method, path, body=None if data is None else data.encode(), headers=headers or {})
        resp = conn.getresponse()
        raw = resp.read()
        ctype, warnings, code = resp.getheader('Content-Type'), resp.headers.get_all('Warning') or [], resp.status
    finally:
        conn.close()
    text = raw.decode(errors='replace')
    if stream and code == 200:
        return code, ctype, warnings, [json.loads(line) for line in text.splitlines() if line]
    try:
        return code, ctype, warnings, json.loads(text)
    except ValueError:
        return code, ctype, warnings, text


def json_send(method, path, body=None):
    headers = {'Accept': JSON, 'Content-Type': JSON}
    return send(method, path, None if body is None else json.dumps(body), headers)


def eventually(what, attempt, within=60):
    deadline = time.monotonic() + within
    while not attempt():
        if time.monotonic() > deadline:
            sys.exit(f'timed out waiting for {what}')
        time.sleep(0.1)


def established(name):
    o = json_send('GET', f'{CRDS}/{name}')[3]
    conds = {c['type']: c['status'] for c in ((o if isinstance(o, dict) else {}).get('status') or {}).get('conditions') or []}
    return conds.get('Established') == 'True'


def reset_crds():
    # A CRD is deleted only once its objects are: none may be left with finalizers.
    for base in OBJECT_PATHS:
        if json_send('GET', base)[0] == 200:
            empty(base)
    for c in CRD_DEFS:
        name = c['metadata']['name']
        if json_send('DELETE', f'{CRDS}/{name}')[0] == 200:
            eventually(f'{name} deleted', lambda: json_send('GET', f'{CRDS}/{name}')[0] == 404)
        code, _, _, out = json_send('POST', CRDS, c)
        assert code == 201, out
        eventually(f'{name} established', lambda: established(name))
    for base in OBJECT_PATHS:
        eventually(f'{base} lists', lambda: json_send('GET', base)[0] == 200)


def empty(base):
    """Deletes every object under base, finalizers first."""
    for item in json_send('GET', base)[3]['items']:
        path = f'{base}/{item["metadata"]["name"]}'
        if item['metadata'].get('finalizers'):
            send('PATCH', path, '{"metadata":{"finalizers":null}}', {'Content-Type': MERGE})
        json_send('DELETE', path)
    eventually(f'{base} empty', lambda: json_send('GET', base)[3]['items'] == [])


def empty_storage():
    for base in OBJECT_PATHS:
        empty(base)


class Filler:
    """Fills a step's templates from the answers seen so far in its case."""

    def __init__(self):
        self.uids, self.labelled, self.previous = {}, {}, None

    def learn(self, body, label=None):
        self.previous = body
        if label:
            self.labelled[label] = body
        for o in [body] + ((body.get('items') or []) if isinstance(body, dict) else []):
            m = o.get('metadata') if isinstance(o, dict) else None
            if isinstance(m, dict) and m.get('uid') and m.get('name'):
                self.uids[m['name']] = m['uid']

    def fill(self, text, quote_continue=False):
        def one(match):
            what, _, arg = match.group(1).partition(':')
            if what == 'continue':
                return urllib.parse.quote(self.previous['metadata']['continue'], safe='')
            if what == 'rv':
                return self.labelled[arg]['metadata']['resourceVersion']
            return self.uids[arg]
        return re.sub(r'\{(continue|rv:[a-z]+|uid:[a-z0-9]+)\}', one, text)


def body_text(body):
    if body is None or isinstance(body, str):
        return body
    return json.dumps(body, separators=(',', ':'))


def run_step(s, filler):
    text = body_text(s.get('body'))
    text = None if text is None else filler.fill(text)
    if s.get('fill_rv'):
        current = json_send('GET', s['path'])[3]
        body = json.loads(text)
        body['metadata']['resourceVersion'] = current['metadata']['resourceVersion']
        text = body_text(body)
    path = filler.fill(s['path'])
    headers = {'Accept': s['accept'], 'User-Agent': USER_AGENT}
    if text is not None:
        headers['Content-Type'] = s['ctype']
    answer = send(s['method'], path, text, headers, s.get('stream', False))
    return headers, text, path, answer


def main():
    reset_crds()
    out = [{'crds': CRD_DEFS}]
    for case, steps in cases():
        empty_storage()
        filler = Filler()
        for s in steps:
            headers, text, path, (code, ctype, warnings, body) = run_step(s, filler)
            filler.learn(body, s.get('label'))
            out.append(dict(s, case=case, headers=headers, body_text=text, sent_path=path, code=code,
                            content_type=ctype, warnings=warnings, response=body))
            print(f'{case}: {s["method"]} {path} [{s["accept"]}] -> {code} {ctype}', file=sys.stderr)
    empty_storage()
    with open(sys.argv[1] if len(sys.argv) > 1 else OUT, 'w') as f:
        for rec in out:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    print(f'{len(out) - 1} requests recorded', file=sys.stderr)


if __name__ == '__main__':
    main()
