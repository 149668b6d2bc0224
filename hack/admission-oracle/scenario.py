"""The admission webhook comparison (issue 30): scenarios as data for record.py.

A scenario is one configuration set (the host's Namespaces and Mutating/Validating
WebhookConfigurations, served by the reference's stub core API; the reference lists them once,
so record.py restarts the peers for each scenario) and the requests sent under it. The
configurations are templates: `$WEBHOOK` is the test webhook's base URL (stub/webhook.py,
https://127.0.0.1:<port>), `$CA_BUNDLE` the base64 PEM of its CA, `$OTHER_CA_BUNDLE` that of a
CA which did not sign its certificate, `$CLOSED` https://127.0.0.1:<a port nobody listens on>. Every configuration
carries the fields kube-apiserver's defaulting would add (the reference ignores objects
without them).

A step is a dict: method, path, and optionally body (a dict is sent as compact JSON, a
string as it is), ctype (Content-Type, sent when there is a body), fill_rv (a PUT carries
the resourceVersion read just before it). Where one configuration holds several webhooks
that all point at /validate, their timeoutSeconds differ (10, 9, 8, ...) so the review's
`?timeout=` in the path the webhook received tells which one was called."""
import json

USER_AGENT = 'admission-compare/v1.0.0 (linux/amd64) kubernetes/0000000'
GROUP = 'stable.example.com'
CT = f'/apis/{GROUP}/v1/namespaces/default/crontabs'
CT_V2 = f'/apis/{GROUP}/v2/namespaces/default/crontabs'
CT_LABELLED = f'/apis/{GROUP}/v1/namespaces/labelled/crontabs'
RG = f'/apis/{GROUP}/v1/regions'
LIST_PATHS = [CT, CT_V2, CT_LABELLED, RG]
OBJECT_PATHS = [CT, CT_LABELLED, RG]
JSON = 'application/json'
MERGE = 'application/merge-patch+json'
JSON_PATCH = 'application/json-patch+json'
APPLY = 'application/apply-patch+yaml'
REGISTRATION = 'admissionregistration.k8s.io/v1'


def body_text(body):
    """The exact bytes sent for a step's body (None: no body)."""
    if body is None or isinstance(body, str):
        return body
    return json.dumps(body, separators=(',', ':'))


def headers_of(step):
    """The headers a step sends besides Host and Content-Length."""
    headers = {'Accept': JSON, 'User-Agent': USER_AGENT}
    if step.get('body') is not None:
        headers['Content-Type'] = step.get('ctype', JSON)
    return headers


# --- objects -------------------------------------------------------------------------------

def crontab(name, labels=None, version='v1', spec=None, namespace=None):
    meta = {'name': name}
    if labels:
        meta['labels'] = labels
    if namespace:
        meta['namespace'] = namespace
    o = {'apiVersion': f'{GROUP}/{version}', 'kind': 'CronTab', 'metadata': meta}
    o['spec'] = {'cronSpec': '* * * * */5', 'image': 'my-cron-image', 'replicas': 1} if spec is None else spec
    return o


def region(name):
    return {'apiVersion': f'{GROUP}/v1', 'kind': 'Region', 'metadata': {'name': name}, 'spec': {'zone': 'z1'}}


def scale(name, replicas):
    return {'apiVersion': 'autoscaling/v1', 'kind': 'Scale',
            'metadata': {'name': name, 'namespace': 'default'}, 'spec': {'replicas': replicas}}


def namespace(name, labels):
    """A Namespace as kube-apiserver serves it (it adds kubernetes.io/metadata.name)."""
    return {'apiVersion': 'v1', 'kind': 'Namespace',
            'metadata': {'name': name, 'labels': dict({'kubernetes.io/metadata.name': name}, **labels)},
            'spec': {'finalizers': ['kubernetes']}, 'status': {'phase': 'Active'}}


# Every scenario's core API serves these: `default` with the label kube-apiserver adds, and
# `labelled` (env=prod) for the namespaceSelector case.
NAMESPACES = [namespace('default', {}), namespace('labelled', {'env': 'prod'})]


def rule(operations=('*',), resources=('crontabs',), versions=('v1',), groups=(GROUP,), scope='*'):
    return {'operations': list(operations), 'apiGroups': list(groups), 'apiVersions': list(versions),
            'resources': list(resources), 'scope': scope}


def hook(name, path, mutating=False, rules=None, failure='Fail', side_effects='None', timeout=10,
         match_policy='Equivalent', namespace_selector=None, object_selector=None, conditions=None,
         review_versions=('v1',), reinvocation='Never', base='$WEBHOOK', ca='$CA_BUNDLE'):
    """One webhook with every field kube's v1 defaulting fills in."""
    h = {'name': name, 'clientConfig': {'url': f'{base}{path}', 'caBundle': ca},
         'rules': rules or [rule()], 'failurePolicy': failure, 'matchPolicy': match_policy,
         'namespaceSelector': namespace_selector or {}, 'objectSelector': object_selector or {},
         'sideEffects': side_effects, 'timeoutSeconds': timeout,
         'admissionReviewVersions': list(review_versions)}
    if conditions is not None:
        h['matchConditions'] = [{'name': n, 'expression': e} for n, e in conditions]
    if mutating:
        h['reinvocationPolicy'] = reinvocation
    return h


def configuration(kind, name, hooks):
    return {'apiVersion': REGISTRATION, 'kind': kind, 'metadata': {'name': name, 'generation': 1},
            'webhooks': hooks}


def validating(name, *hooks):
    return configuration('ValidatingWebhookConfiguration', name, list(hooks))


def mutating(name, *hooks):
    return configuration('MutatingWebhookConfiguration', name, list(hooks))


def selector(**labels):
    return {'matchLabels': labels}


# --- steps ---------------------------------------------------------------------------------

def req(method, path, body=None, **extra):
    step = {'method': method, 'path': path, **extra}
    if body is not None:
        step['body'] = body
    return step


def get(path):
    return req('GET', path)


def post(body, base=CT, query=''):
    return req('POST', base + query, body)


def put(path, body):
    return req('PUT', path, body, fill_rv=True)


def patch(path, body, ctype=MERGE):
    return req('PATCH', path, body, ctype=ctype)


def apply(path, body, manager='test', force=False):
    query = f'?fieldManager={manager}' + ('&force=true' if force else '')
    return req('PATCH', path + query, json.dumps(body), ctype=APPLY)


def delete(path, body=None):
    return req('DELETE', path, body)


# --- scenarios -----------------------------------------------------------------------------

VALIDATE = 'validate.crontabs.example.com'


def every_verb():
    steps = [
        post(crontab('ev1', {'app': 'x'}), query='?fieldManager=creator&fieldValidation=Strict'),
        put(f'{CT}/ev1', crontab('ev1', {'app': 'y'})),
        patch(f'{CT}/ev1', {'metadata': {'labels': {'app': 'z'}}}),
        patch(f'{CT}/ev1', [{'op': 'replace', 'path': '/spec/replicas', 'value': 2}], JSON_PATCH),
        apply(f'{CT}/ev1', crontab('ev1', spec={'image': 'applied'})),
        apply(f'{CT}/ev1', crontab('ev1', spec={'image': 'applied'}), force=True),
        apply(f'{CT}/ev2', crontab('ev2', {'app': 'applied'})),
        get(f'{CT}/ev2'),
        delete(f'{CT}/ev1', {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'propagationPolicy': 'Background'}),
        delete(f'{CT}/ev2'),
        post(crontab('ev3')),
        post(crontab('ev4')),
        delete(f'{CT}?labelSelector='),
        get(CT),
        post(crontab('ev5'), query='?dryRun=All'),
        get(f'{CT}/ev5'),
    ]
    yield 'validate_every_verb', [validating('validate', hook(VALIDATE, '/validate'))], steps


def v1beta1_reviews():
    yield 'validate_review_v1beta1', [validating('validate', hook(
        VALIDATE, '/validate', review_versions=('v1beta1',)))], [
        post(crontab('vb1')),
        delete(f'{CT}/vb1'),
    ]


def denial():
    yield 'validate_denies', [validating('validate', hook(VALIDATE, '/validate'))], [
        post(crontab('dn1', {'deny': 'true'})),
        get(f'{CT}/dn1'),
        post(crontab('dn2')),
        patch(f'{CT}/dn2', {'metadata': {'labels': {'deny': 'true'}}}),
        put(f'{CT}/dn2', crontab('dn2', {'deny': 'true'})),
        get(f'{CT}/dn2'),
        post(crontab('dn3', {'deny': 'true'}), query='?dryRun=All'),
    ]


def denial_on_delete():
    yield 'validate_denies_delete', [validating('validate', hook(
        VALIDATE, '/validate', rules=[rule(('DELETE',))]))], [
        post(crontab('dd1', {'deny': 'true'})),
        post(crontab('dd2')),
        post(crontab('dd3')),
        delete(f'{CT}/dd1'),
        delete(f'{CT}?labelSelector='),
        get(CT),
    ]


def mutation():
    m = 'mutate.crontabs.example.com'
    yield 'mutate_then_validate', [
        mutating('mutate', hook(m, '/mutate', mutating=True, rules=[rule(('CREATE', 'UPDATE'))])),
        validating('validate', hook(VALIDATE, '/validate')),
    ], [
        post(crontab('mu1')),
        get(f'{CT}/mu1'),
        put(f'{CT}/mu1', crontab('mu1', {'app': 'replaced'}, spec={'image': 'other'})),
        get(f'{CT}/mu1'),
        patch(f'{CT}/mu1', {'spec': {'owner': 'someone'}}),
        apply(f'{CT}/mu2', crontab('mu2')),
        get(f'{CT}/mu2'),
        delete(f'{CT}/mu1'),
    ]
    yield 'mutate_unknown_field_pruned', [
        mutating('mutate', hook('unknown.crontabs.example.com', '/mutate-unknown', mutating=True)),
    ], [
        post(crontab('un1')),
        get(f'{CT}/un1'),
        patch(f'{CT}/un1', {'spec': {'replicas': 3}}),
        get(f'{CT}/un1'),
    ]
    yield 'mutate_invalid_patch_result', [
        mutating('mutate', hook('bad.crontabs.example.com', '/mutate-bad', mutating=True,
                                rules=[rule(('CREATE', 'UPDATE'))])),
    ], [
        post(crontab('mb1')),
        get(f'{CT}/mb1'),
    ]
    # Listed b before a: kube orders configurations by name, so a's webhook runs first; /mutate
    # is reinvoked (IfNeeded) because b's patch changed the object after it.
    yield 'mutate_reinvocation_if_needed', [
        mutating('b-unknown', hook('unknown.crontabs.example.com', '/mutate-unknown', mutating=True)),
        mutating('a-mutate', hook(m, '/mutate', mutating=True, reinvocation='IfNeeded')),
    ], [
        post(crontab('ri1')),
        get(f'{CT}/ri1'),
    ]
    yield 'mutate_reinvocation_never', [
        mutating('b-unknown', hook('unknown.crontabs.example.com', '/mutate-unknown', mutating=True)),
        mutating('a-mutate', hook(m, '/mutate', mutating=True)),
    ], [
        post(crontab('rn1')),
    ]
    # A mutating webhook on /status and /scale: what of its patch (labels, spec.owner) survives?
    yield 'mutate_on_status_update', [
        mutating('mutate', hook(m, '/mutate', mutating=True, rules=[rule(('UPDATE',), ('crontabs/status',))])),
    ], [
        post(crontab('st1')),
        put(f'{CT}/st1/status', dict(crontab('st1'), status={'replicas': 1})),
        get(f'{CT}/st1'),
        patch(f'{CT}/st1/status', {'status': {'replicas': 2}}),
        get(f'{CT}/st1'),
    ]
    yield 'mutate_on_scale_update', [
        mutating('mutate', hook(m, '/mutate', mutating=True, rules=[rule(('UPDATE',), ('crontabs/scale',))])),
    ], [
        post(crontab('sc1')),
        put(f'{CT}/sc1/scale', scale('sc1', 3)),
        get(f'{CT}/sc1'),
    ]
    yield 'mutate_on_delete_refused', [
        mutating('mutate', hook(m, '/mutate', mutating=True, rules=[rule(('DELETE',))])),
    ], [
        post(crontab('md1')),
        delete(f'{CT}/md1'),
        get(f'{CT}/md1'),
    ]


def failures():
    slow = 'slow.crontabs.example.com'
    for policy in ('Fail', 'Ignore'):
        yield f'validating_timeout_{policy.lower()}', [
            validating('slow', hook(slow, '/slow', timeout=1, failure=policy)),
        ], [post(crontab('sl1')), get(f'{CT}/sl1')]
    yield 'mutating_timeout_fail', [
        mutating('slow', hook(slow, '/slow', mutating=True, timeout=1)),
    ], [post(crontab('ms1')), get(f'{CT}/ms1')]
    for policy in ('Fail', 'Ignore'):
        yield f'validating_garbage_{policy.lower()}', [
            validating('garbage', hook('garbage.crontabs.example.com', '/garbage', failure=policy)),
        ], [post(crontab('gb1')), get(f'{CT}/gb1')]
    yield 'mutating_garbage_fail', [
        mutating('garbage', hook('garbage.crontabs.example.com', '/garbage', mutating=True)),
    ], [post(crontab('mg1')), get(f'{CT}/mg1')]
    yield 'mutating_garbage_ignore', [
        mutating('garbage', hook('garbage.crontabs.example.com', '/garbage', mutating=True, failure='Ignore')),
    ], [post(crontab('mi1')), get(f'{CT}/mi1')]
    yield 'validating_unknown_ca_fail', [
        validating('validate', hook(VALIDATE, '/validate', ca='$OTHER_CA_BUNDLE')),
    ], [post(crontab('ca1')), get(f'{CT}/ca1')]
    yield 'validating_connection_refused_fail', [
        validating('validate', hook(VALIDATE, '/validate', base='$CLOSED')),
    ], [post(crontab('cr1'))]
    yield 'validating_connection_refused_ignore', [
        validating('validate', hook(VALIDATE, '/validate', base='$CLOSED', failure='Ignore')),
    ], [post(crontab('cr1'))]
    yield 'validating_wrong_uid_fail', [
        validating('wrong', hook('wrong-uid.crontabs.example.com', '/wrong-uid')),
    ], [post(crontab('wu1')), get(f'{CT}/wu1')]
    yield 'mutating_wrong_uid_fail', [
        mutating('wrong', hook('wrong-uid.crontabs.example.com', '/wrong-uid', mutating=True)),
    ], [post(crontab('mw1')), get(f'{CT}/mw1')]


def subresources():
    yield 'subresource_rules', [validating(
        'validate',
        hook('plain.crontabs.example.com', '/validate', timeout=10, rules=[rule(resources=('crontabs',))]),
        hook('status.crontabs.example.com', '/validate', timeout=9, rules=[rule(resources=('*/status',))]),
        hook('scale.crontabs.example.com', '/validate', timeout=8, rules=[rule(resources=('crontabs/scale',))]),
        hook('all.crontabs.example.com', '/validate', timeout=7, rules=[rule(resources=('crontabs/*',))]),
    )], [
        post(crontab('sr1')),
        put(f'{CT}/sr1/status', dict(crontab('sr1'), status={'replicas': 1, 'labelSelector': 'app=x'})),
        patch(f'{CT}/sr1/status', {'status': {'replicas': 2}}),
        put(f'{CT}/sr1/scale', scale('sr1', 3)),
        patch(f'{CT}/sr1/scale', {'spec': {'replicas': 4}}),
        get(f'{CT}/sr1'),
        delete(f'{CT}/sr1'),
    ]


def selectors():
    yield 'namespace_selector', [validating('validate', hook(
        VALIDATE, '/validate', namespace_selector=selector(env='prod')))], [
        post(crontab('ns1')),
        post(crontab('ns2'), base=CT_LABELLED),
        post(crontab('ns3', {'deny': 'true'}), base=CT_LABELLED),
        req('POST', RG, region('rg1')),
    ]
    # The same, the rule naming the cluster-scoped regions too.
    yield 'namespace_selector_cluster_scoped', [validating('validate', hook(
        VALIDATE, '/validate', namespace_selector=selector(env='prod'),
        rules=[rule(resources=('crontabs', 'regions'))]))], [
        post(crontab('nc1')),
        req('POST', RG, region('rg1')),
    ]
    yield 'bad_namespace_selector', [validating('validate', hook(
        VALIDATE, '/validate', rules=[rule(resources=('crontabs', 'regions'))],
        namespace_selector={'matchExpressions': [
            {'key': 'env', 'operator': 'Bogus', 'values': ['x']}]}))], [
        post(crontab('bn1')),
        req('POST', RG, region('rg1')),
    ]
    yield 'bad_object_selector', [validating('validate', hook(
        VALIDATE, '/validate', object_selector={'matchLabels': {'bad key!': 'x'}}))], [
        post(crontab('bo1')),
    ]
    yield 'namespace_selector_expressions', [validating('validate', hook(
        VALIDATE, '/validate', namespace_selector={'matchExpressions': [
            {'key': 'kubernetes.io/metadata.name', 'operator': 'NotIn', 'values': ['default']}]}))], [
        post(crontab('nx1')),
        post(crontab('nx2'), base=CT_LABELLED),
    ]
    yield 'object_selector', [validating('validate', hook(
        VALIDATE, '/validate', object_selector=selector(app='web')))], [
        post(crontab('os1')),
        post(crontab('os2', {'app': 'web'})),
        patch(f'{CT}/os2', {'metadata': {'labels': {'app': 'db'}}}),
        patch(f'{CT}/os2', {'metadata': {'labels': {'app': 'other'}}}),
        patch(f'{CT}/os1', {'metadata': {'labels': {'app': 'web'}}}),
        delete(f'{CT}/os1'),
        delete(f'{CT}/os2'),
    ]


def dry_run():
    def h(name, side, timeout):
        return hook(f'{name}.crontabs.example.com', '/validate', side_effects=side, timeout=timeout,
                    object_selector=selector(hook=name))
    yield 'dry_run_side_effects', [validating(
        'validate', h('none', 'None', 10), h('some', 'Some', 9), h('noneondryrun', 'NoneOnDryRun', 8))], [
        post(crontab('dr1', {'hook': 'none'}), query='?dryRun=All'),
        post(crontab('dr2', {'hook': 'some'}), query='?dryRun=All'),
        post(crontab('dr3', {'hook': 'noneondryrun'}), query='?dryRun=All'),
        post(crontab('dr4', {'hook': 'some'})),
        patch(f'{CT}/dr4?dryRun=All', {'spec': {'replicas': 5}}),
        req('DELETE', f'{CT}/dr4?dryRun=All'),
        get(f'{CT}/dr4'),
    ]


def match_policy():
    v2 = [rule(versions=('v2',))]
    yield 'match_policy_equivalent', [
        mutating('mutate', hook('mutate.crontabs.example.com', '/mutate', mutating=True, rules=v2)),
        validating(
            'validate',
            hook('equivalent.crontabs.example.com', '/validate', rules=v2, timeout=10),
            hook('exact.crontabs.example.com', '/validate', rules=v2, timeout=9, match_policy='Exact')),
    ], [
        post(crontab('mp1')),
        get(f'{CT}/mp1'),
        post(crontab('mp2', version='v2'), base=CT_V2),
        patch(f'{CT}/mp1/status', {'status': {'replicas': 2}}),
    ]


def conditions():
    def h(name, conds, timeout, failure='Fail'):
        return hook(f'{name}.crontabs.example.com', '/validate', timeout=timeout, failure=failure,
                    object_selector=selector(case=name), conditions=conds)
    error = ('error', "object.spec.nosuch == 'x'")
    yield 'match_conditions', [validating(
        'validate',
        h('true', [('name', "object.metadata.name.startsWith('mc')"),
                   ('request', "request.operation == 'CREATE' && request.resource.resource == 'crontabs'"),
                   ('authorizer', "authorizer.group('stable.example.com').resource('crontabs')"
                                  ".namespace('default').check('create').allowed()")], 10),
        h('false', [('false', "request.operation == 'DELETE'")], 9),
        h('error', [error], 8),
        h('ignored', [error], 7, failure='Ignore'),
        h('both', [error, ('false', 'false')], 6),
        h('oldobject', [('old', "oldObject == null || oldObject.metadata.name == object.metadata.name")], 5),
    )], [
        post(crontab('mc1', {'case': 'true'})),
        post(crontab('mc2', {'case': 'false'})),
        post(crontab('mc3', {'case': 'error'})),
        post(crontab('mc4', {'case': 'ignored'})),
        post(crontab('mc5', {'case': 'both'})),
        post(crontab('mc6', {'case': 'oldobject'})),
        patch(f'{CT}/mc6', {'spec': {'replicas': 2}}),
        get(CT),
    ]
    # 65 conditions: the API's validation allows 64, but the reference trusts the host's
    # validation; what does its plugin do with more?
    yield 'match_conditions_over_limit', [validating('validate', hook(
        VALIDATE, '/validate', conditions=[(f'c{i}', 'true') for i in range(65)]))], [
        post(crontab('ol1')),
    ]
    # A condition whose runtime cost exceeds kube's per-call limit (three nested loops of 100).
    hundred = '[' + ','.join(str(i) for i in range(100)) + ']'
    yield 'match_condition_cost_exceeded', [validating('validate', hook(
        VALIDATE, '/validate', conditions=[('costly', f'{hundred}.all(a, {hundred}.all(b, {hundred}.all(c, true)))')]))], [
        post(crontab('co1')),
    ]
    yield 'match_condition_compile_error', [validating('validate', hook(
        VALIDATE, '/validate', conditions=[('broken', 'object.metadata.name ==')]))], [
        post(crontab('ce1')),
    ]


def scenarios():
    """(name, configurations, steps) for every scenario, in recording order."""
    for group in (every_verb, v1beta1_reviews, denial, denial_on_delete, mutation, failures, subresources, selectors,
                  dry_run, match_policy, conditions):
        yield from group()
