"""The conversion comparison (issue 32): scenarios as data for record.py.

A scenario is one CustomResourceDefinition (`widgets.conversion.example.com`, versions v1 and v2
of kind Widget, a conversion webhook calling hack/conversion-oracle/converter.py) and the
requests sent under it. The definition is a template: `$CONVERTER` is the converter's base URL
(https://127.0.0.1:<port>), `$CLOSED` https://127.0.0.1:<a port nobody listens on>, `$CA_BUNDLE`
the base64 PEM of the converter's CA.

A step is a dict: method, path, and optionally body (a dict is sent as compact JSON, a string as
it is), ctype (Content-Type, sent when there is a body), accept (Accept, default JSON), fill_rv
(the body carries the object's resourceVersion read just before), fill_uid (its uid). Besides
HTTP methods:
  WATCH  path (with timeoutSeconds): opens the watch, reads `initial` events, sends the `during`
         steps, then reads the events until the server ends the watch.
  CRD    `crd`: replaces the definition (kube: PUT of the CRD; our server: restart on it).
  STORED `names`: the apiVersion each object is stored at (kube: read from etcd; not replayed).
  DEFINE `crd`: POSTs a definition expected to be invalid (kube's 422; ours: refused at start-up)."""
import copy
import json

USER_AGENT = 'conversion-compare/v1.0.0 (linux/amd64) kubernetes/0000000'
GROUP = 'conversion.example.com'
NAME = f'widgets.{GROUP}'
V1 = f'/apis/{GROUP}/v1/namespaces/default/widgets'
V2 = f'/apis/{GROUP}/v2/namespaces/default/widgets'
JSON = 'application/json'
MERGE = 'application/merge-patch+json'
JSON_PATCH = 'application/json-patch+json'
APPLY = 'application/apply-patch+yaml'
TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io'
PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'
PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'
SVM_MANAGER = 'storage-version-migrator-controller'


def body_text(body):
    """The exact bytes sent for a step's body (None: no body)."""
    if body is None or isinstance(body, str):
        return body
    return json.dumps(body, separators=(',', ':'))


def headers_of(step):
    """The headers a step sends besides Host and Content-Length."""
    headers = {'Accept': step.get('accept', JSON), 'User-Agent': USER_AGENT}
    if step.get('body') is not None:
        headers['Content-Type'] = step.get('ctype', JSON)
    return headers


# --- the definition --------------------------------------------------------------------------

def version(name, storage, served=True):
    spec = {'color': {'type': 'string'}, 'replicas': {'type': 'integer'}}
    columns = [{'name': 'Color', 'type': 'string', 'jsonPath': '.spec.color'}]
    if name == 'v2':
        spec['shape'] = {'type': 'string'}
        columns.append({'name': 'Shape', 'type': 'string', 'jsonPath': '.spec.shape'})
    schema = {'type': 'object', 'properties': {
        'spec': {'type': 'object', 'properties': spec},
        'status': {'type': 'object', 'properties': {'replicas': {'type': 'integer'}}}}}
    return {'name': name, 'served': served, 'storage': storage, 'schema': {'openAPIV3Schema': schema},
            'subresources': {'status': {}, 'scale': {'specReplicasPath': '.spec.replicas',
                                                     'statusReplicasPath': '.status.replicas'}},
            'additionalPrinterColumns': columns}


def crd(storage='v1', path='/convert', reviews=('v1',), base='$CONVERTER', conversion=None):
    """The Widget definition: v1 and v2 served, `storage` stored, converted at `base + path`."""
    if conversion is None:
        conversion = {'strategy': 'Webhook', 'webhook': {
            'clientConfig': {'url': f'{base}{path}', 'caBundle': '$CA_BUNDLE'},
            'conversionReviewVersions': list(reviews)}}
    return {'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
            'metadata': {'name': NAME},
            'spec': {'group': GROUP, 'scope': 'Namespaced',
                     'names': {'plural': 'widgets', 'singular': 'widget', 'kind': 'Widget', 'listKind': 'WidgetList'},
                     'versions': [version('v1', storage == 'v1'), version('v2', storage == 'v2')],
                     'conversion': conversion}}


def widget(name, version='v1', spec=None, labels=None, annotations=None):
    meta = {'name': name}
    if labels:
        meta['labels'] = labels
    if annotations:
        meta['annotations'] = annotations
    spec = {'color': 'red', 'replicas': 1} if spec is None else spec
    return {'apiVersion': f'{GROUP}/{version}', 'kind': 'Widget', 'metadata': meta, 'spec': spec}


def get(path, accept=JSON):
    return {'method': 'GET', 'path': path, 'accept': accept}


def post(path, body):
    return {'method': 'POST', 'path': path, 'body': body}


def apply(path, body, manager, force=False):
    query = f'?fieldManager={manager}' + ('&force=true' if force else '')
    return {'method': 'PATCH', 'path': path + query, 'body': body, 'ctype': APPLY}


# --- scenarios -------------------------------------------------------------------------------

def every_verb(storage):
    """Every verb in v1 and v2 with `storage` stored, converted by /convert."""
    other = 'v2' if storage == 'v1' else 'v1'
    stored, served = (V1, V2) if storage == 'v1' else (V2, V1)
    steps = [
        post(V1, widget('a', 'v1', {'color': 'red', 'replicas': 1})),
        post(V2, widget('b', 'v2', {'color': 'blue', 'shape': 'star', 'replicas': 2})),
        get(f'{V1}/a'), get(f'{V2}/a'), get(f'{V1}/b'), get(f'{V2}/b'),
        get(V1), get(V2), get(f'{V2}?limit=1'),
        get(f'{V2}?fieldSelector=metadata.name%3Db'), get(f'{V1}?labelSelector=none'),
        get(f'{V2}/a', TABLE), get(V2, TABLE), get(f'{V2}/a', PARTIAL), get(V2, PARTIAL_LIST),
        get(f'{V1}/a', TABLE),
        dict(post(V1, widget('c', 'v1')), path=f'{V1}?dryRun=All'),
        {'method': 'PUT', 'path': f'{V2}/b', 'body': widget('b', 'v2', {'color': 'green', 'shape': 'star', 'replicas': 2}),
         'fill_rv': True},
        {'method': 'PUT', 'path': f'{V1}/a', 'body': widget('a', 'v1', {'color': 'red', 'replicas': 3}), 'fill_rv': True},
        {'method': 'PATCH', 'path': f'{V2}/a', 'body': {'spec': {'shape': 'hexagon'}}, 'ctype': MERGE},
        {'method': 'PATCH', 'path': f'{V1}/b', 'body': {'spec': {'color': 'yellow'}}, 'ctype': MERGE},
        {'method': 'PATCH', 'path': f'{V2}/b', 'body': [{'op': 'replace', 'path': '/spec/shape', 'value': 'oval'}],
         'ctype': JSON_PATCH},
        get(f'{V1}/a'), get(f'{V1}/b'),
        {'method': 'PUT', 'path': f'{V2}/a/status',
         'body': dict(widget('a', 'v2', {'color': 'red', 'shape': 'hexagon', 'replicas': 3}), status={'replicas': 1}),
         'fill_rv': True},
        {'method': 'PATCH', 'path': f'{V2}/b/status', 'body': {'status': {'replicas': 2}}, 'ctype': MERGE},
        get(f'{V2}/a/status'),
        get(f'{V2}/a/scale'),
        {'method': 'PUT', 'path': f'{V2}/a/scale', 'body': {'apiVersion': 'autoscaling/v1', 'kind': 'Scale',
         'metadata': {'name': 'a', 'namespace': 'default'}, 'spec': {'replicas': 5}}, 'fill_rv': True},
        {'method': 'PATCH', 'path': f'{V2}/b/scale', 'body': {'spec': {'replicas': 4}}, 'ctype': MERGE},
        get(f'{V1}/a'), get(f'{V2}/b'),
        # A body of the other version than the URL's.
        post(V1, widget('d', 'v2', {'color': 'red', 'shape': 'star'})),
        post(V2, widget('d', 'v1', {'color': 'red'})),
        {'method': 'DELETE', 'path': f'{V2}/a'},
        {'method': 'DELETE', 'path': f'{V1}/b?dryRun=All'},
        {'method': 'DELETE', 'path': V2},
        get(V1),
    ]
    return steps


def watch_steps():
    """Watches of v2 (initial events of existing objects, then live events) and of v1."""
    watch = lambda base, during, initial: {'method': 'WATCH', 'path': f'{base}?watch=true&timeoutSeconds=3',
                                           'initial': initial, 'during': during}
    return [
        post(V1, widget('a', 'v1')),
        post(V2, widget('b', 'v2', {'color': 'blue', 'shape': 'star'})),
        watch(V2, [post(V1, widget('c', 'v1', {'color': 'blue'})),
                   {'method': 'PATCH', 'path': f'{V1}/a', 'body': {'spec': {'color': 'blue'}}, 'ctype': MERGE},
                   {'method': 'DELETE', 'path': f'{V1}/c'}], 2),
        watch(V1, [post(V2, widget('e', 'v2', {'color': 'red', 'shape': 'cube'}))], 2),
        watch(f'{V2}', [], 3) | {'path': f'{V2}?watch=true&timeoutSeconds=2&resourceVersion=0'},
    ]


def apply_steps():
    """Server-side apply: a v1 manager, then a v2 manager; field ownership across versions."""
    return [
        apply(f'{V1}/a', widget('a', 'v1', {'color': 'red', 'replicas': 1}), 'one'),
        apply(f'{V2}/a', widget('a', 'v2', {'shape': 'cube'}), 'two'),
        get(f'{V1}/a'), get(f'{V2}/a'),
        apply(f'{V2}/a', widget('a', 'v2', {'color': 'blue'}), 'two'),
        apply(f'{V2}/a', widget('a', 'v2', {'color': 'blue'}), 'two', force=True),
        apply(f'{V1}/a', widget('a', 'v1', {'color': 'red', 'replicas': 1}), 'one'),
        {'method': 'PATCH', 'path': f'{V2}/a?fieldManager=three', 'body': {'spec': {'replicas': 7}}, 'ctype': MERGE},
        get(f'{V1}/a'),
        apply(f'{V2}/n', widget('n', 'v2', {'color': 'red', 'shape': 'cone'}), 'two'),
        get(f'{V1}/n'),
    ]


def svm_steps():
    """kube's StorageVersionMigration request (an apply with uid and resourceVersion), before and
    after the storage version moved from v1 to v2."""
    svm = lambda name, **fill: {'method': 'PATCH', 'path': f'{V2}/{name}?fieldManager={SVM_MANAGER}', 'ctype': APPLY,
                                'body': {'kind': 'Widget', 'apiVersion': f'{GROUP}/v2', 'metadata': fill.pop('meta', {})},
                                **fill}
    return [
        post(V1, widget('a', 'v1')), post(V1, widget('b', 'v1')), post(V1, widget('c', 'v1')),
        post(V1, widget('gone', 'v1')),
        {'method': 'STORED', 'names': ['a', 'b', 'c', 'gone']},
        svm('a', fill_uid=True, fill_rv=True),  # storage still v1: a no-op
        {'method': 'CRD', 'crd': {'storage': 'v2'}},
        svm('a', fill_uid=True, fill_rv=True),
        get(f'{V1}/a'),
        svm('b', fill_uid=True, meta={'resourceVersion': '1'}),
        svm('c', fill_rv=True, meta={'uid': '00000000-0000-0000-0000-000000000000'}),
        {'method': 'DELETE', 'path': f'{V1}/gone'},
        svm('gone', meta={'uid': '00000000-0000-0000-0000-000000000000', 'resourceVersion': '1'}),
        svm('never'),
        {'method': 'STORED', 'names': ['a', 'b', 'c', 'gone', 'never']},
    ]


def broken_steps():
    """What a failing converter does to each path: objects stored at v1 (no conversion needed),
    then read and written at v2."""
    return [
        post(V1, widget('a', 'v1')),
        post(V1, widget('b', 'v1', {'color': 'blue'})),
        get(f'{V1}/a'),
        get(f'{V2}/a'),
        get(V2),
        get(f'{V2}/a', TABLE),
        get(f'{V2}/a', PARTIAL),
        get(V2, PARTIAL_LIST),
        post(V2, widget('c', 'v2', {'color': 'red', 'shape': 'star'})),
        {'method': 'PATCH', 'path': f'{V2}/a', 'body': {'spec': {'color': 'green'}}, 'ctype': MERGE},
        {'method': 'DELETE', 'path': f'{V2}/b'},
        get(V1),
    ]


BROKEN = ['fail', 'garbage', 'wrong-count', 'rename', 'wrong-uid', 'wrong-kind', 'wrong-apiversion', 'review-kind',
          'labels', 'bad-label', 'annotation-number']


def invalid_definitions():
    """Definitions kube refuses for their spec.conversion (research §1.4): one DEFINE step each."""
    hook = lambda client=None, versions=('v1',): {'strategy': 'Webhook', 'webhook': dict(
        {'conversionReviewVersions': list(versions)}, **({'clientConfig': client} if client is not None else {}))}
    url = lambda u: {'url': u}
    svc = lambda **s: {'service': dict({'namespace': 'default', 'name': 'conv'}, **s)}
    cases = [
        {'strategy': 'Bogus'},
        {'strategy': ''},
        {'strategy': 'Webhook'},
        hook(),
        hook({}),
        hook({'url': 'https://127.0.0.1/convert', 'service': {'namespace': 'default', 'name': 'conv'}}),
        hook(url('http://127.0.0.1/convert')),
        hook(url('https:///convert')),
        hook(url('https://user:pw@127.0.0.1/convert')),
        hook(url('https://127.0.0.1/convert#frag')),
        hook(url('https://127.0.0.1/convert?q=1')),
        hook(url('://bad')),
        hook(url('127.0.0.1/convert')),
        hook(svc(name='')),
        hook({'service': {'name': 'conv'}}),
        hook(svc(port=0)),
        hook(svc(port=70000)),
        hook(svc(path='convert')),
        hook(svc(path='//convert')),
        hook(svc(path='/a//b')),
        hook(svc(path='/Bad_Segment')),
        hook(url('https://127.0.0.1/convert'), ()),
        hook(url('https://127.0.0.1/convert'), ('v1', 'v1')),
        hook(url('https://127.0.0.1/convert'), ('v3',)),
        hook(url('https://127.0.0.1/convert'), ('v3', 'v4')),
        hook(url('https://127.0.0.1/convert'), ('V_1',)),
        hook(dict(url('https://127.0.0.1/convert'), caBundle='bm90IGEgcGVt')),
        {'strategy': 'None', 'webhook': {'clientConfig': url('https://127.0.0.1/convert')}},
        {'strategy': 'None', 'webhook': {'conversionReviewVersions': ['v1']}},
    ]
    steps = [{'method': 'DEFINE', 'crd': {'conversion': c}} for c in cases]
    # A webhook with preserveUnknownFields (only v1beta1 CRDs can set it; v1 refuses it at all).
    keep = crd(conversion=hook(url('https://127.0.0.1/convert')))
    keep['spec']['preserveUnknownFields'] = True
    steps.append({'method': 'DEFINE', 'crd': {'whole': keep}})
    return steps


def scenarios():
    """[(name, definition template, steps)]."""
    out = [
        ('storage_v1_every_verb', crd('v1'), every_verb('v1')),
        ('storage_v2_every_verb', crd('v2'), every_verb('v2')),
        ('review_v1beta1', crd('v1', reviews=('v1beta1',)), every_verb('v1')[:12]),
        ('review_versions_order', crd('v1', reviews=('v1beta1', 'v1')), every_verb('v1')[:4]),
        ('watch_across_versions', crd('v1'), watch_steps()),
        ('apply_across_versions', crd('v1'), apply_steps()),
        ('storage_version_migration', crd('v1'), svm_steps()),
        ('converter_slow', crd('v1', path='/convert-slow'), [
            post(V1, widget('a', 'v1')), get(f'{V1}/a'), get(f'{V2}/a?timeout=3s'), get(f'{V2}/a')]),
        ('converter_closed', crd('v1', base='$CLOSED'), broken_steps()[:6]),
        ('invalid_definitions', crd('v1'), invalid_definitions()),
    ]
    for path in BROKEN:
        out.append((f'converter_{path.replace("-", "_")}', crd('v1', path=f'/convert-{path}'), broken_steps()))
    out.append(('converter_fail_storage_v2', crd('v2', path='/convert-fail'), [
        post(V2, widget('a', 'v2', {'color': 'red', 'shape': 'star'})), get(f'{V2}/a'), get(f'{V1}/a'), get(V1),
        post(V1, widget('b', 'v1'))]))
    return out


def definition(template, change):
    """The definition of a CRD or DEFINE step: `template` with `change` ({storage} / {conversion} / {whole})."""
    if 'whole' in change:
        return copy.deepcopy(change['whole'])
    out = copy.deepcopy(template)
    if 'storage' in change:
        for v in out['spec']['versions']:
            v['storage'] = v['name'] == change['storage']
    if 'conversion' in change:
        out['spec']['conversion'] = change['conversion']
    return out
