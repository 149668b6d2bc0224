"""The client-visible differences comparison (issue 12, points 3-11): cases of requests, as
data for record.py.

Each case starts on empty storage (the recorder deletes what the previous case left; the
replay starts a fresh server per case), and object names are unique to their case anyway.
A step is a dict: method, path, and optionally body (a dict or list is sent as compact
JSON, a string as it is), ctype (Content-Type, sent when there is a body), accept,
fill_rv (a PUT carries the resourceVersion read just before it), stream (a watch that
ends by its timeoutSeconds: the body is a list of events). `{continue}` in a path is the
previous answer's `metadata.continue`, URL-encoded."""
import json

USER_AGENT = 'compat-compare/v1.0.0 (linux/amd64) kubernetes/0000000'
GROUP = '/apis/stable.example.com'
CT = f'{GROUP}/v1/namespaces/default/crontabs'
CT_BETA = f'{GROUP}/v1beta1/namespaces/default/crontabs'
RG = '/apis/compat.example.com/v1/regions'
LIST_PATHS = [CT, CT_BETA, RG]
OBJECT_PATHS = [CT, RG]
JSON = 'application/json'
YAML = 'application/yaml'
MERGE = 'application/merge-patch+json'
JSON_PATCH = 'application/json-patch+json'
APPLY = 'application/apply-patch+yaml'
TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io'
TABLE_V1BETA1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io'
YAML_TABLE_V1 = 'application/yaml;as=Table;v=v1;g=meta.k8s.io'
YAML_TABLE_V1BETA1 = 'application/yaml;as=Table;v=v1beta1;g=meta.k8s.io'
# kubectl get's Accept header.
KUBECTL_TABLE = f'{TABLE_V1},{TABLE_V1BETA1},{JSON}'


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


def crontab(name, spec=None, version='v1', **metadata):
    o = {'apiVersion': f'stable.example.com/{version}', 'kind': 'CronTab', 'metadata': dict(name=name, **metadata)}
    o['spec'] = {'cronSpec': '* * * * */5', 'image': 'my-cron-image', 'replicas': 1} if spec is None else spec
    return o


def region(name):
    return {'apiVersion': 'compat.example.com/v1', 'kind': 'Region', 'metadata': {'name': name},
            'spec': {'zone': 'z1'}}


def req(method, path, body=None, **extra):
    step = {'method': method, 'path': path, **extra}
    if body is not None:
        step['body'] = body
    return step


def get(path, **extra):
    return req('GET', path, **extra)


def post(body, base=CT, **extra):
    return req('POST', base, body, **extra)


def put(path, body, **extra):
    return req('PUT', path, body, fill_rv=True, **extra)


def patch(path, body, ctype=MERGE, **extra):
    return req('PATCH', path, body, ctype=ctype, **extra)


def delete(path, **extra):
    return req('DELETE', path, **extra)


def tables():
    yield 'tables_v1beta1_and_yaml', 3, [
        post(crontab('tb1')),
        post(crontab('tb2', {'cronSpec': '0 * * * *', 'replicas': 3})),
        get(f'{CT}/tb1', accept=TABLE_V1BETA1),
        get(CT, accept=TABLE_V1BETA1),
        get(f'{CT}/tb1', accept=YAML_TABLE_V1),
        get(CT, accept=YAML_TABLE_V1),
        get(f'{CT}/tb1', accept=YAML_TABLE_V1BETA1),
        get(CT, accept=YAML_TABLE_V1BETA1),
        get(f'{CT}?includeObject=Object', accept=TABLE_V1BETA1),
        get(f'{CT}?includeObject=None', accept=YAML_TABLE_V1),
        get(f'{CT_BETA}/tb1', accept=TABLE_V1BETA1),
        get(CT, accept=KUBECTL_TABLE),
        get(CT, accept='application/json;as=Table;v=v2;g=meta.k8s.io'),
        get(CT, accept='application/yaml;as=Table;v=v2;g=meta.k8s.io'),
        get(f'{RG}', accept=YAML_TABLE_V1BETA1),
    ]


def pagination():
    five = [post(crontab(f'pg{i}')) for i in range(1, 6)]
    yield 'lists_remaining_item_count', 4, five + [
        get(f'{CT}?limit=2'),
        get(f'{CT}?limit=2&continue={{continue}}'),
        get(f'{CT}?limit=2&continue={{continue}}'),
        get(f'{CT}?limit=5'),
        get(f'{CT}?limit=6'),
        get(f'{CT}?limit=2&labelSelector=app%21%3Dx'),
        get(f'{CT}?limit=2&resourceVersion=0'),
        get(f'{CT}?limit=2&resourceVersionMatch=NotOlderThan&resourceVersion=1'),
        get(f'/apis/stable.example.com/v1/crontabs?limit=3'),
    ]
    yield 'tables_remaining_item_count', 4, [post(crontab(f'pt{i}')) for i in range(1, 6)] + [
        get(f'{CT}?limit=2', accept=TABLE_V1),
        get(f'{CT}?limit=2&continue={{continue}}', accept=TABLE_V1),
        get(f'{CT}?limit=2&continue={{continue}}', accept=TABLE_V1),
        get(f'{CT}?limit=2', accept=TABLE_V1BETA1),
        get(f'{CT}?limit=2', accept=YAML_TABLE_V1),
        post(region('pr1'), RG), post(region('pr2'), RG), post(region('pr3'), RG),
        get(f'{RG}?limit=1', accept=TABLE_V1),
        get(f'{RG}?limit=1'),
    ]


def not_found_pages():
    yield 'unknown_paths_page_not_found', 5, [
        post(crontab('nf1')),
        get('/apis/nogroup.example.com/v1/namespaces/default/crontabs'),
        get('/apis/nogroup.example.com'),
        get('/apis/nogroup.example.com/v1'),
        get(f'{GROUP}/v9/namespaces/default/crontabs'),
        get(f'{GROUP}/v9'),
        get(f'{GROUP}/v1/namespaces/default/nothings'),
        get(f'{GROUP}/v1/namespaces/default/nothings/x'),
        get(f'{GROUP}/v1/nothings'),
        get(f'{GROUP}/v1/namespaces/default'),
        get(f'{GROUP}/v1/namespaces'),
        post(crontab('nf2'), f'{GROUP}/v1/namespaces/default/nothings'),
        delete(f'{GROUP}/v9/namespaces/default/crontabs/nf1'),
    ]
    yield 'scope_mismatch_page_not_found', 5, [
        post(region('sm1'), RG),
        get('/apis/compat.example.com/v1/namespaces/x/regions'),
        get('/apis/compat.example.com/v1/namespaces/x/regions/sm1'),
        get('/apis/compat.example.com/v1/namespaces/default/regions/sm1'),
        post(region('sm2'), '/apis/compat.example.com/v1/namespaces/default/regions'),
        delete('/apis/compat.example.com/v1/namespaces/default/regions/sm1'),
        post(crontab('sm3'), f'{GROUP}/v1/crontabs'),
        get(f'{GROUP}/v1/crontabs'),
        get(f'{GROUP}/v1/crontabs/sm3'),
        put(f'{GROUP}/v1/crontabs/sm3', crontab('sm3')),
        delete(f'{GROUP}/v1/crontabs/sm3'),
        post(crontab('sm4'), '/apis/compat.example.com/v1/namespaces/default/crontabs'),
    ]
    yield 'aliases_as_path_segment_page_not_found', 5, [
        post(crontab('al1')),
        get(f'{GROUP}/v1/namespaces/default/ct'),
        get(f'{GROUP}/v1/namespaces/default/ct/al1'),
        get(f'{GROUP}/v1/namespaces/default/crontab'),
        get(f'{GROUP}/v1/namespaces/default/crontab/al1'),
        get(f'{GROUP}/v1/namespaces/default/CronTab'),
        get(f'{GROUP}/v1/namespaces/default/CronTab/al1'),
        get(f'{GROUP}/v1/namespaces/default/Crontabs'),
        post(crontab('al2'), f'{GROUP}/v1/namespaces/default/ct'),
        get('/apis/compat.example.com/v1/rg'),
        get('/apis/compat.example.com/v1/region'),
        get('/apis/compat.example.com/v1/Region'),
    ]


def subresources():
    yield 'subresource_not_found_and_method_not_allowed', 6, [
        post(crontab('sr1')),
        post(region('sr2'), RG),
        get(f'{CT}/sr1/foo'),
        get(f'{CT}/missing/foo'),
        get(f'{CT}/missing/status'),
        get(f'{CT}/missing/scale'),
        put(f'{CT}/missing/status', crontab('missing')),
        patch(f'{CT}/missing/status', {'status': {'replicas': 1}}),
        patch(f'{CT}/missing/scale', {'spec': {'replicas': 2}}),
        req('POST', f'{CT}/sr1/status', crontab('sr1')),
        req('POST', f'{CT}/sr1/scale', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'sr1'}}),
        delete(f'{CT}/sr1/status'),
        delete(f'{CT}/sr1/scale'),
        delete(f'{CT}/missing/scale'),
        req('POST', f'{CT}/sr1', crontab('sr1')),
        req('PUT', CT, crontab('sr1')),
        patch(CT, {'spec': {}}),
        put(f'{CT}/sr1/foo', crontab('sr1')),
        delete(f'{CT}/sr1/foo'),
        get(f'{RG}/sr2/status'),
        get(f'{RG}/sr2/scale'),
        patch(f'{RG}/sr2/status', {'status': {}}),
        get(f'{RG}/sr2/foo'),
        get(f'{RG}/missing/foo'),
    ]
    yield 'options_and_head', 6, [
        post(crontab('op1')),
        req('OPTIONS', CT),
        req('OPTIONS', f'{CT}/op1'),
        req('OPTIONS', f'{CT}/op1/status'),
        req('OPTIONS', f'{CT}/op1/scale'),
        req('OPTIONS', RG),
        req('OPTIONS', f'{GROUP}/v1/namespaces/default/nothings'),
        req('HEAD', f'{CT}/op1'),
        req('HEAD', CT),
    ]
    yield 'trailing_segments', 6, [
        post(crontab('tr1')),
        get(f'{CT}/tr1/status/extra'),
        get(f'{CT}/tr1/scale/extra'),
        get(f'{CT}/tr1/status/extra/more'),
        put(f'{CT}/tr1/status/extra', crontab('tr1')),
        get(f'{CT}/tr1/status/'),
        get(f'{CT}/tr1/'),
        get(f'{CT}/'),
        get(f'{RG}/'),
        get(f'{RG}/x/status/extra'),
    ]


BAD_BODIES = [
    ('truncated', '{"a":'),
    ('bad_token', '{bad'),
    ('empty', ''),
    ('array', '[]'),
    ('number', '5'),
    ('string', '"s"'),
    ('null', 'null'),
    ('trailing_garbage', '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"}} x'),
]


def decoding():
    yield 'create_body_decoding_errors', 7, [post(text) for _, text in BAD_BODIES] + [
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': 5}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': 'x'}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': ['x']}),
        post(crontab('de1', labels='x')),
        post(crontab('de2', labels=['a'])),
        post(crontab('de3', labels={'a': 1})),
        post(crontab('de4', annotations={'a': True})),
        post(crontab('de5', finalizers='x')),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {'name': 5}}),
        post({'kind': 'CronTab', 'metadata': {'name': 'de6'}}),
        post({'apiVersion': 'stable.example.com/v1', 'metadata': {'name': 'de7'}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'Other', 'metadata': {'name': 'de8'}}),
        post({'apiVersion': 'other.example.com/v1', 'kind': 'CronTab', 'metadata': {'name': 'de9'}}),
        post({'apiVersion': 5, 'kind': 'CronTab', 'metadata': {'name': 'de10'}}),
    ]
    yield 'create_yaml_body_errors', 7, [
        post('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: y1\n', ctype=YAML),
        post('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: y2\n spec: x\n', ctype=YAML),
        post('a: b: c\n', ctype=YAML),
        post('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n\tname: y3\n', ctype=YAML),
        post('- a\n- b\n', ctype=YAML),
        post('', ctype=YAML),
        post('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: y4\n  labels: [a]\n', ctype=YAML),
        post('apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: y5\nspec:\n  replicas: 2\n', ctype=YAML),
        get(f'{CT}/y5'),
        post('{"a":', ctype='text/plain'),
        post(crontab('y6'), ctype='application/strategic-merge-patch+json'),
    ]
    yield 'update_body_decoding_errors', 7, [post(crontab('ud1'))] + [
        req('PUT', f'{CT}/ud1', text) for _, text in BAD_BODIES
    ] + [
        put(f'{CT}/ud1', crontab('ud1', labels='x')),
        put(f'{CT}/ud1', {'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': 5}),
        req('PUT', f'{CT}/ud1', 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: ud1\n', ctype=YAML),
        req('PUT', f'{CT}/ud1/status', '{bad'),
        req('PUT', f'{CT}/ud1/scale', '{bad'),
    ]
    yield 'json_patch_errors', 7, [
        post(crontab('jp1')),
        patch(f'{CT}/jp1', {'op': 'add', 'path': '/spec/replicas', 'value': 2}, JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'frob', 'path': '/spec/replicas', 'value': 2}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'test', 'path': '/spec/replicas', 'value': 9}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'test', 'path': '/spec/image', 'value': 'other'}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'replace', 'path': '/spec/nothere/x', 'value': 1}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'remove', 'path': '/spec/missing'}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'add', 'path': 'spec/replicas', 'value': 2}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'add', 'path': '/spec/replicas'}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'path': '/spec/replicas', 'value': 2}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'move', 'from': '/spec/nothere', 'path': '/spec/x'}], JSON_PATCH),
        patch(f'{CT}/jp1', '[{', JSON_PATCH),
        patch(f'{CT}/jp1', '', JSON_PATCH),
        patch(f'{CT}/jp1', '5', JSON_PATCH),
        patch(f'{CT}/jp1', [5], JSON_PATCH),
        patch(f'{CT}/jp1', [], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'replace', 'path': '/metadata', 'value': 5}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'replace', 'path': '/metadata/labels', 'value': 'x'}], JSON_PATCH),
        patch(f'{CT}/jp1', [{'op': 'replace', 'path': '/spec/replicas', 'value': 'many'}], JSON_PATCH),
        patch(f'{CT}/missing', [{'op': 'test', 'path': '/spec/replicas', 'value': 9}], JSON_PATCH),
        patch(f'{CT}/jp1/status', [{'op': 'frob', 'path': '/status'}], JSON_PATCH),
        get(f'{CT}/jp1'),
    ]
    yield 'merge_patch_errors', 7, [
        post(crontab('mp1')),
        patch(f'{CT}/mp1', [1]),
        patch(f'{CT}/mp1', '5'),
        patch(f'{CT}/mp1', '"s"'),
        patch(f'{CT}/mp1', 'null'),
        patch(f'{CT}/mp1', '{bad'),
        patch(f'{CT}/mp1', '{"a":'),
        patch(f'{CT}/mp1', ''),
        patch(f'{CT}/mp1', {'metadata': 5}),
        patch(f'{CT}/mp1', {'metadata': {'labels': 'x'}}),
        patch(f'{CT}/mp1', {'metadata': {'labels': {'a': 1}}}),
        patch(f'{CT}/mp1', {'spec': {'replicas': 'many'}}),
        patch(f'{CT}/mp1', {'spec': {'replicas': 2}}, 'application/strategic-merge-patch+json'),
        patch(f'{CT}/mp1', {'spec': {'replicas': 2}}, 'text/plain'),
        patch(f'{CT}/mp1/scale', '{bad'),
        patch(f'{CT}/mp1/status', [1]),
        patch(f'{CT}/mp1', 'apiVersion: [', APPLY),
        get(f'{CT}/mp1'),
    ]
    yield 'patch_changing_api_version', 7, [
        post(crontab('av1')),
        patch(f'{CT}/av1', {'apiVersion': 'stable.example.com/v1beta1'}),
        patch(f'{CT}/av1', {'apiVersion': 'stable.example.com/v9'}),
        patch(f'{CT}/av1', {'apiVersion': 'other.example.com/v1'}),
        patch(f'{CT}/av1', {'kind': 'Other'}),
        patch(f'{CT}/av1', {'apiVersion': None}),
        patch(f'{CT}/av1', [{'op': 'replace', 'path': '/apiVersion', 'value': 'stable.example.com/v1beta1'}], JSON_PATCH),
        patch(f'{CT}/av1', [{'op': 'replace', 'path': '/apiVersion', 'value': 'stable.example.com/v9'}], JSON_PATCH),
        patch(f'{CT}/av1', [{'op': 'replace', 'path': '/kind', 'value': 'Other'}], JSON_PATCH),
        patch(f'{CT_BETA}/av1', {'apiVersion': 'stable.example.com/v1'}),
        patch(f'{CT}/av1/status', {'apiVersion': 'stable.example.com/v1beta1'}),
        get(f'{CT}/av1'),
    ]


def metadata_validation():
    owner = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': 'cm'}
    uid = '6a7d4bd4-0000-4000-8000-000000000001'
    yield 'owner_references_and_generate_name', 8, [
        post(crontab('mv1', ownerReferences=[owner])),
        post(crontab('mv2', ownerReferences=[dict(owner, uid='')])),
        post(crontab('mv3', ownerReferences=[dict(owner, uid=uid, name='')])),
        post(crontab('mv4', ownerReferences=[{'uid': uid, 'name': 'cm'}])),
        post(crontab('mv5', ownerReferences=[dict(owner, uid=uid, controller=True),
                                              dict(owner, uid=uid, name='cm2', controller=True)])),
        post(crontab('mv6', ownerReferences=[dict(owner, uid=uid)])),
        patch(f'{CT}/mv6', {'metadata': {'ownerReferences': [owner]}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {'generateName': 'Bad_'}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {'generateName': 'a' * 300}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {'generateName': 'Bad_', 'name': 'mv7'}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {'name': 'Bad_'}}),
        post({'apiVersion': 'stable.example.com/v1', 'kind': 'CronTab', 'metadata': {}}),
    ]
    yield 'update_changing_uid', 8, [
        post(crontab('uu1')),
        put(f'{CT}/uu1', crontab('uu1', uid=uid)),
        patch(f'{CT}/uu1', {'metadata': {'uid': uid}}),
        patch(f'{CT}/uu1', [{'op': 'replace', 'path': '/metadata/uid', 'value': uid}], JSON_PATCH),
        put(f'{CT}/uu1/status', crontab('uu1', uid=uid)),
        patch(f'{CT}/uu1/scale', {'metadata': {'uid': uid}}),
        patch(f'{CT}/uu1', {'metadata': {'name': 'other'}}),
        patch(f'{CT}/uu1', {'metadata': {'namespace': 'other'}}),
        get(f'{CT}/uu1'),
    ]
    yield 'finalizers_without_domain', 8, [
        post(crontab('fz1', finalizers=['foo'])),
        post(crontab('fz2', finalizers=['example.com/ok', 'bar', 'baz'])),
        patch(f'{CT}/fz2', {'metadata': {'finalizers': ['example.com/ok', 'bar', 'baz', 'qux']}}),
        put(f'{CT}/fz1', crontab('fz1', finalizers=['foo', 'kubernetes'])),
        post(crontab('fz3', finalizers=['a/b/c'])),
        post(crontab('fz4', finalizers=['Bad Name'])),
        delete(f'{CT}/fz1'),
        get(f'{CT}/fz1'),
    ]


def deprecated_version():
    beta = crontab('dv1', version='v1beta1')
    yield 'deprecated_version_warnings', 9, [
        post(beta, CT_BETA),
        get(f'{CT_BETA}/dv1'),
        get(CT_BETA),
        get(CT_BETA, accept=TABLE_V1),
        put(f'{CT_BETA}/dv1', crontab('dv1', {'replicas': 2}, version='v1beta1')),
        patch(f'{CT_BETA}/dv1', {'spec': {'replicas': 3}}),
        patch(f'{CT_BETA}/dv1', [{'op': 'replace', 'path': '/spec/replicas', 'value': 4}], JSON_PATCH),
        patch(f'{CT_BETA}/dv1?fieldManager=applier&force=true',
              json.dumps(crontab('dv1', {'replicas': 5}, version='v1beta1')), APPLY),
        get(f'{CT_BETA}/dv1/status'),
        patch(f'{CT_BETA}/dv1/status', {'status': {'replicas': 1}}),
        get(f'{CT_BETA}/dv1/scale'),
        patch(f'{CT_BETA}/dv1/scale', {'spec': {'replicas': 6}}),
        get(f'{CT_BETA}/missing'),
        patch(f'{CT_BETA}/dv1', '{bad'),
        delete(f'{CT_BETA}/dv1'),
        post(crontab('dv2', version='v1beta1'), CT_BETA),
        delete(f'{CT_BETA}?labelSelector=none%3Dnone'),
        get(f'{CT_BETA}?watch=true&timeoutSeconds=abc'),
    ]
    yield 'create_with_other_version_in_body', 9, [
        post(crontab('ov1', version='v1beta1'), CT),
        post(crontab('ov2', version='v1'), CT_BETA),
        post(crontab('ov3', version='v9'), CT),
        post(crontab('ov4', version='v9'), CT_BETA),
        put(f'{CT}/ov1', crontab('ov1', version='v1beta1')),
        put(f'{CT_BETA}/ov2', crontab('ov2', version='v1')),
        patch(f'{CT}/ov1?fieldManager=applier', json.dumps(crontab('ov1', version='v1beta1')), APPLY),
        patch(f'{CT_BETA}/ov5?fieldManager=applier', json.dumps(crontab('ov5', version='v1')), APPLY),
        get(f'{CT}/ov1'),
        get(f'{CT}/ov2'),
    ]


def query_parameters():
    # Reads first, then writes: a write we accept where kube refuses it changes what later
    # reads see.
    yield 'query_parameter_errors', 10, [
        post(crontab('qp1')),
        get(f'{CT}?timeout=abc'),
        get(f'{CT}/qp1?timeout=abc'),
        get(f'{CT}?timeout=-1s'),
        get(f'{CT}?limit=abc'),
        get(f'{CT}?limit=-1'),
        get(f'{CT}?limit=0'),
        get(f'{CT}?timeoutSeconds=abc'),
        get(f'{CT}?watch=true&timeoutSeconds=abc'),
        get(f'{CT}?watch=1&timeoutSeconds=abc'),
        get(f'{CT}?watch=abc&timeoutSeconds=1', stream=True),
        get(f'{CT}?continue=garbage'),
        get(f'{CT}?continue=garbage&limit=1'),
        get(f'{CT}?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0'),
        get(f'{CT}?continue=garbage&resourceVersion=1'),
        get(f'{CT}?continue=garbage&watch=true'),
        get(f'{CT}/qp1?resourceVersion=abc'),
        get(f'{CT}?resourceVersion=abc'),
        get(f'{CT}?resourceVersion=abc&limit=1'),
        get(f'{CT}?watch=true&resourceVersion=abc'),
        get(f'{CT}?resourceVersion=-1'),
        get(f'{CT}?resourceVersionMatch=Exact'),
        get(f'{CT}?resourceVersionMatch=NotOlderThan'),
        get(f'{CT}?resourceVersionMatch=Bogus&resourceVersion=1'),
        get(f'{CT}?resourceVersionMatch=Exact&resourceVersion=0'),
        get(f'{CT}?watch=true&resourceVersionMatch=Exact&resourceVersion=1'),
        get(f'{CT}?sendInitialEvents=true'),
        get(f'{CT}?watch=true&sendInitialEvents=true'),
        get(f'{CT}?labelSelector=!!!'),
        get(f'{CT}?fieldSelector=foo%3Dbar'),
        get(f'{CT}?fieldSelector=metadata.name%3D%3D'),
        post(crontab('qp2'), f'{CT}?timeout=abc'),
        post(crontab('qp3'), f'{CT}?dryRun=Bogus'),
        post(crontab('qp4'), f'{CT}?fieldValidation=Bogus'),
        post(crontab('qp5'), f'{CT}?fieldManager={"x" * 129}'),
        delete(f'{CT}/qp1?propagationPolicy=Bogus'),
        delete(f'{CT}/qp1?dryRun=Bogus'),
        delete(f'{CT}/qp1?gracePeriodSeconds=abc'),
        get(f'{CT}/qp1'),
    ]


def odd_paths():
    yield 'dot_segments_and_encoded_slashes', 11, [
        post(crontab('dp1')),
        get(f'{CT}/..'),
        get(f'{CT}/.'),
        get(f'{CT}/%2E%2E'),
        get(f'{CT}/dp1/..'),
        get(f'{CT}/../crontabs/dp1'),
        put(f'{CT}/..', crontab('..')),
        delete(f'{CT}/..'),
        patch(f'{CT}/..', {'spec': {}}),
        post(crontab('..')),
        post(crontab('a/b')),
        get(f'{CT}/a%2Fb'),
        get(f'{CT}/a%2fb'),
        get(f'{CT}/a%2fb/status'),
        get(f'{CT}/dp1%2Fstatus'),
        delete(f'{CT}/a%2Fb'),
        get(f'{CT}/a%00b'),
        get(f'{CT}/%00'),
        post(crontab('a\u0000b')),
        get(f'{CT}//dp1'),
        get(f'{CT}/dp1//status'),
        get(f'{GROUP}/v1/namespaces/default//crontabs'),
        get(f'{CT}/dp1/'),
        get(f'{CT}/dp%31'),
        get(f'/apis/compat.example.com/v1/regions/..'),
    ]


def cases():
    """(case, issue point, steps), in order."""
    for group in (tables, pagination, not_found_pages, subresources, decoding, metadata_validation,
                  deprecated_version, query_parameters, odd_paths):
        yield from group()
