"""The audit comparison (issue 33): scenarios as data for record.py.

A scenario is one start of the reference: an audit policy (a dict written as YAML, or None: no
`--audit-policy-file`), extra audit flags (`--audit-log-format legacy`, ...), host objects served
by the stub core API (webhook configurations, ValidatingAdmissionPolicies and their bindings, in
the admission and policy oracles' template forms) and the requests sent under it. A step is the
admission oracle's step (method, path, body, ctype, fill_rv) plus
- `as`: who sends it: `admin` (the client certificate, the default), `token:<t>` (a bearer
  token and no client certificate: the stub's TokenReview makes `<name>-token` user `<name>`
  in groups tokenusers and system:authenticated, any other token is refused);
- `headers`: extra request headers (Audit-ID, Impersonate-User, X-Forwarded-For, ...);
- `watch`: the response is a watch stream, read until the server ends it (timeoutSeconds).
The stub denies every SubjectAccessReview of the users in DENY_USERS."""
import importlib.util, os, sys

sys.dont_write_bytecode = True


def _oracle(directory, name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', directory, f'{name}.py')
    spec = importlib.util.spec_from_file_location(f'{directory}_{name}'.replace('-', '_'), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


webhooks = _oracle('admission-oracle', 'scenario')
policies = _oracle('policy-oracle', 'scenario')
CT, GROUP, JSON, JSON_PATCH, MERGE, APPLY = (webhooks.CT, webhooks.GROUP, webhooks.JSON, webhooks.JSON_PATCH,
                                             webhooks.MERGE, webhooks.APPLY)
crontab, req, scale, hook, mutating, validating = (webhooks.crontab, webhooks.req, webhooks.scale, webhooks.hook,
                                                   webhooks.mutating, webhooks.validating)
body_text = webhooks.body_text
LIST_PATHS = [CT, f'/apis/{GROUP}/v1/namespaces/kube-system/crontabs']

USER_AGENT = 'audit-compare/v1.0.0 (linux/amd64) kubernetes/0000000'
# SubjectAccessReviews of these users are denied (the stub's SAR_DENY_USERS).
DENY_USERS = ['system:anonymous', 'mallory']
CT_SYSTEM = f'/apis/{GROUP}/v1/namespaces/kube-system/crontabs'


def headers_of(step):
    """The headers a step sends besides Host and Content-Length."""
    headers = {'Accept': step.get('accept', JSON), 'User-Agent': USER_AGENT}
    if step.get('body') is not None:
        headers['Content-Type'] = step.get('ctype', JSON)
    who = step.get('as', 'admin')
    if who.startswith('token:'):
        headers['Authorization'] = 'Bearer ' + who[len('token:'):]
    headers.update(step.get('headers', {}))
    return headers


def get(path, **extra):
    return req('GET', path, **extra)


def post(body, base=CT, query='', **extra):
    return req('POST', base + query, body, **extra)


def put(path, body, **extra):
    return req('PUT', path, body, fill_rv=True, **extra)


def patch(path, body, ctype, **extra):
    return req('PATCH', path, body, ctype=ctype, **extra)


def delete(path, **extra):
    return req('DELETE', path, **extra)


def policy(rules, omit_stages=None, omit_managed_fields=None):
    p = {'apiVersion': 'audit.k8s.io/v1', 'kind': 'Policy', 'rules': rules}
    if omit_stages is not None:
        p['omitStages'] = omit_stages
    if omit_managed_fields is not None:
        p['omitManagedFields'] = omit_managed_fields
    return p


EVERYTHING = policy([{'level': 'RequestResponse'}])
METADATA = policy([{'level': 'Metadata'}])


def every_verb():
    """Every verb on a CronTab and its subresources at RequestResponse."""
    c = crontab('one')
    applied = ('{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"one"},'
               '"spec":{"image":"applied"}}')
    return [
        post(c),
        get(f'{CT}/one'),
        get(CT),
        get(f'{CT}?watch=true&timeoutSeconds=1', watch=True),
        put(f'{CT}/one', crontab('one', spec={'cronSpec': '* * * * */6', 'image': 'put', 'replicas': 1})),
        patch(f'{CT}/one', {'metadata': {'labels': {'merged': 'yes'}}}, MERGE),
        patch(f'{CT}/one', [{'op': 'replace', 'path': '/spec/replicas', 'value': 2}], JSON_PATCH),
        patch(f'{CT}/one?fieldManager=audit-apply&force=true', applied, APPLY),
        put(f'{CT}/one/status', dict(crontab('one'), status={'replicas': 2})),
        get(f'{CT}/one/scale'),
        put(f'{CT}/one/scale', scale('one', 3)),
        post(crontab('dry'), query='?dryRun=All'),
        delete(f'{CT}/one'),
        post(crontab('two')),
        delete(f'{CT}?labelSelector=absent%21%3Dx'),
    ]


def errors():
    """Error answers at RequestResponse: 404, 409, 422, 401 (a refused token), 403 (the
    authorizer denies), and a token user allowed."""
    return [
        get(f'{CT}/missing'),
        post(crontab('twice')),
        post(crontab('twice')),
        post(crontab('bad', spec={'replicas': 'many'})),
        get(CT, **{'as': 'token:garbage'}),
        get(CT, **{'as': 'token:mallory-token'}),
        get(CT, **{'as': 'token:bob-token'}),
        get('/healthz'),
    ]


def headers():
    """What a request's headers put into its events: Impersonate-*, X-Forwarded-For and
    X-Real-Ip (sourceIPs), a client's own Audit-ID."""
    return [
        get(CT, headers={'Impersonate-User': 'alice', 'Impersonate-Group': 'devs',
                         'Impersonate-Extra-Scopes': 'view'}),
        get(CT, headers={'Impersonate-User': 'mallory'}),
        get(CT, headers={'X-Forwarded-For': '10.0.0.1, 10.0.0.2', 'X-Real-Ip': '10.0.0.3'}),
        get(CT, headers={'X-Real-Ip': '10.0.0.3'}),
        get(CT, headers={'Audit-ID': 'client-chosen-audit-id'}),
        get(CT, headers={'Audit-ID': 'another-client-audit-id', 'X-Forwarded-For': 'not-an-ip, 10.0.0.9'}),
    ]


# Rules by user, group, verb, resource (with resourceNames and subresources), namespace and
# non-resource URL; omitStages at both levels; omitManagedFields at both levels.
BY_RULE = policy([
    {'level': 'None', 'users': ['carol']},
    {'level': 'None', 'verbs': ['get'],
     'resources': [{'group': GROUP, 'resources': ['crontabs'], 'resourceNames': ['quiet']}]},
    {'level': 'RequestResponse', 'userGroups': ['tokenusers'], 'omitStages': ['ResponseComplete']},
    {'level': 'Metadata', 'verbs': ['get', 'list', 'watch'], 'omitStages': ['RequestReceived']},
    {'level': 'Request', 'verbs': ['update', 'patch'], 'omitManagedFields': False},
    {'level': 'RequestResponse', 'resources': [{'group': GROUP, 'resources': ['crontabs/status', 'crontabs/scale']}]},
    {'level': 'Request', 'namespaces': ['kube-system']},
    {'level': 'Metadata', 'nonResourceURLs': ['/healthz*', '/version']},
    {'level': 'RequestResponse'},
], omit_managed_fields=True)


def by_rule():
    return [
        post(crontab('quiet')),
        get(f'{CT}/quiet'),
        get(f'{CT}/quiet', headers={'Impersonate-User': 'carol'}),
        get(f'{CT}?watch=true&timeoutSeconds=1', watch=True),
        get(CT, **{'as': 'token:bob-token'}),
        patch(f'{CT}/quiet', {'metadata': {'labels': {'merged': 'yes'}}}, MERGE),
        put(f'{CT}/quiet/status', dict(crontab('quiet'), status={'replicas': 2})),
        post(crontab('system'), base=CT_SYSTEM),
        get('/healthz'),
        get('/healthz/ping'),
        get(f'{CT}/missing'),
        delete(f'{CT}/quiet'),
    ]


def legacy():
    return [
        post(crontab('one')),
        get(f'{CT}/one', headers={'Impersonate-User': 'alice', 'Impersonate-Group': 'devs'}),
        get(f'{CT}/missing'),
        get(f'{CT}?watch=true&timeoutSeconds=1', watch=True),
        get(CT, headers={'X-Forwarded-For': '10.0.0.1'}),
        delete(f'{CT}/one'),
    ]


def no_policy():
    """No --audit-policy-file: is Audit-Id still answered?"""
    return [
        get(CT),
        get(CT, headers={'Audit-ID': 'client-chosen-audit-id'}),
        get(f'{CT}/missing'),
    ]


WEBHOOKS = [
    mutating('audit-mutate', hook('mutate.example.com', '/mutate', mutating=True)),
    validating('audit-validate', hook('validate.example.com', '/validate')),
]


def webhook_admission():
    return [
        post(crontab('hooked')),
        patch(f'{CT}/hooked', {'metadata': {'labels': {'merged': 'yes'}}}, MERGE),
        post(crontab('refused', labels={'deny': 'true'})),
        delete(f'{CT}/hooked'),
    ]


POLICIES = [
    policies.vap('audit-annotations', [policies.validation('object.spec.replicas < 5', message='too many')],
                 audit=[('replicas', "string(object.spec.replicas)"), ('image', "string(object.spec.image)")]),
    policies.binding('audit-annotations', 'audit-annotations', actions=['Deny']),
    policies.vap('audit-only', [policies.validation('object.spec.replicas < 2', message='more than one replica')]),
    policies.binding('audit-only', 'audit-only', actions=['Audit']),
    policies.vap('warn-audit', [policies.validation("object.spec.image != 'bad'", message='bad image')]),
    policies.binding('warn-audit', 'warn-audit', actions=['Warn', 'Audit']),
]


def validating_policy():
    return [
        post(crontab('few')),
        post(crontab('some', spec={'cronSpec': '* * * * */5', 'image': 'bad', 'replicas': 3})),
        post(crontab('many', spec={'cronSpec': '* * * * */5', 'image': 'x', 'replicas': 7})),
    ]


def webhook_backend():
    return [post(crontab('sent')), get(f'{CT}/sent'), get(f'{CT}/missing'), delete(f'{CT}/sent')]


WEBHOOK_FLAGS = ['--audit-webhook-config-file', '$AUDIT_WEBHOOK']
# A webhook backend whose connections close without an answer, retried after 100 ms (kube's
# default first backoff is 10 s). (In blocking-strict mode the reference then answers every request
# 500 and never gets ready: FINDINGS.md; not a scenario.)
CLOSING_FLAGS = ['--audit-webhook-config-file', '$AUDIT_WEBHOOK_CLOSING', '--audit-webhook-initial-backoff', '100ms']


def scenarios():
    """(name, policy, extra flags, stub objects, steps)."""
    return [
        ('every_verb', EVERYTHING, [], [], every_verb()),
        ('errors', EVERYTHING, [], [], errors()),
        ('request_headers', EVERYTHING, [], [], headers()),
        ('by_rule', BY_RULE, [], [], by_rule()),
        ('legacy_format', EVERYTHING, ['--audit-log-format', 'legacy'], [], legacy()),
        ('no_policy', None, [], [], no_policy()),
        ('webhook_admission', EVERYTHING, [], WEBHOOKS, webhook_admission()),
        ('webhook_admission_metadata', METADATA, [], WEBHOOKS, webhook_admission()),
        ('validating_policy', EVERYTHING, [], POLICIES, validating_policy()),
        ('validating_policy_metadata', METADATA, [], POLICIES, validating_policy()),
        ('webhook_batch', EVERYTHING, WEBHOOK_FLAGS + ['--audit-webhook-batch-max-wait', '1s'], [], webhook_backend()),
        ('webhook_blocking', EVERYTHING, WEBHOOK_FLAGS + ['--audit-webhook-mode', 'blocking'], [], webhook_backend()),
        ('webhook_blocking_strict', EVERYTHING, WEBHOOK_FLAGS + ['--audit-webhook-mode', 'blocking-strict'], [],
         webhook_backend()),
        ('webhook_closing_blocking', EVERYTHING, CLOSING_FLAGS + ['--audit-webhook-mode', 'blocking'], [],
         webhook_backend()),
        ('webhook_truncate', EVERYTHING, WEBHOOK_FLAGS + ['--audit-webhook-mode', 'blocking', '--audit-webhook-truncate-enabled',
                                                         '--audit-webhook-truncate-max-event-size', '1500'], [], webhook_backend()),
    ]
