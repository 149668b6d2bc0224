"""The admission policy comparison (issue 31): scenarios as data for record.py.

A scenario is one set of host objects (Namespaces, Validating/MutatingAdmissionPolicies and
their bindings, param objects: ConfigMaps and ClusterParams, and webhook configurations in the
webhook oracle's template form), served by the reference's stub core API (record.py restarts
the peers for each scenario: the reference lists them once) and by tests/common/fake_kube*.rs in
the replay, and the requests sent under it (the steps of hack/admission-oracle/scenario.py).
Every policy and binding carries the fields kube-apiserver's defaulting adds (the reference
ignores or refuses objects without them). Within a scenario, policies are told apart by the
object's `case` label (each binding's objectSelector), so one restart covers many cases."""
import importlib.util, os, sys

sys.dont_write_bytecode = True


def _webhook_oracle(name):
    """A module of hack/admission-oracle (its scenario.py shares this file's name)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'admission-oracle', f'{name}.py')
    spec = importlib.util.spec_from_file_location(f'webhook_{name}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


webhooks = _webhook_oracle('scenario')
CT, CT_LABELLED, CT_V2, GROUP, RG = webhooks.CT, webhooks.CT_LABELLED, webhooks.CT_V2, webhooks.GROUP, webhooks.RG
JSON, JSON_PATCH, NAMESPACES = webhooks.JSON, webhooks.JSON_PATCH, webhooks.NAMESPACES
apply, crontab, delete, get, hook = webhooks.apply, webhooks.crontab, webhooks.delete, webhooks.get, webhooks.hook
mutating, namespace, patch, post, put = webhooks.mutating, webhooks.namespace, webhooks.patch, webhooks.post, webhooks.put
region, req, scale = webhooks.region, webhooks.req, webhooks.scale
body_text, headers_of, LIST_PATHS = webhooks.body_text, webhooks.headers_of, webhooks.LIST_PATHS

REGISTRATION = 'admissionregistration.k8s.io/v1'
PARAMS_NS = 'params'
# Every scenario's core API serves these namespaces: `default`, `labelled` (env=prod) and `params`.
HOST_NAMESPACES = NAMESPACES + [namespace(PARAMS_NS, {})]


def rule(operations=('*',), resources=('crontabs',), versions=('v1',), groups=(GROUP,), scope='*', names=None):
    r = {'operations': list(operations), 'apiGroups': list(groups), 'apiVersions': list(versions),
         'resources': list(resources), 'scope': scope}
    if names:
        r['resourceNames'] = list(names)
    return r


def match(rules=None, exclude=None, namespace_selector=None, object_selector=None, match_policy='Equivalent'):
    """MatchResources with kube's defaults."""
    m = {'resourceRules': rules if rules is not None else [rule()], 'matchPolicy': match_policy,
         'namespaceSelector': namespace_selector or {}, 'objectSelector': object_selector or {}}
    if exclude:
        m['excludeResourceRules'] = exclude
    return m


def case(name):
    return {'matchLabels': {'case': name}}


def validation(expression, message=None, message_expression=None, reason=None, field_path=None):
    v = {'expression': expression}
    for key, value in (('message', message), ('messageExpression', message_expression), ('reason', reason),
                       ('fieldPath', field_path)):
        if value is not None:
            v[key] = value
    return v


def _spec(constraints, failure, variables, conditions, param_kind):
    spec = {'failurePolicy': failure, 'matchConstraints': constraints or match()}
    if variables:
        spec['variables'] = [{'name': n, 'expression': e} for n, e in variables]
    if conditions:
        spec['matchConditions'] = [{'name': n, 'expression': e} for n, e in conditions]
    if param_kind:
        spec['paramKind'] = {'apiVersion': param_kind[0], 'kind': param_kind[1]}
    return spec


def vap(name, validations, constraints=None, failure='Fail', variables=None, conditions=None, param_kind=None,
        audit=None):
    spec = _spec(constraints, failure, variables, conditions, param_kind)
    spec['validations'] = validations
    if audit:
        spec['auditAnnotations'] = [{'key': k, 'valueExpression': e} for k, e in audit]
    return {'apiVersion': REGISTRATION, 'kind': 'ValidatingAdmissionPolicy',
            'metadata': {'name': name, 'generation': 1}, 'spec': spec}


def map_(name, mutations, constraints=None, failure='Fail', variables=None, conditions=None, param_kind=None,
         reinvocation='Never'):
    spec = _spec(constraints, failure, variables, conditions, param_kind)
    spec['mutations'] = mutations
    spec['reinvocationPolicy'] = reinvocation
    return {'apiVersion': REGISTRATION, 'kind': 'MutatingAdmissionPolicy',
            'metadata': {'name': name, 'generation': 1}, 'spec': spec}


def apply_configuration(expression):
    return {'patchType': 'ApplyConfiguration', 'applyConfiguration': {'expression': expression}}


def json_patch(expression):
    return {'patchType': 'JSONPatch', 'jsonPatch': {'expression': expression}}


def param_ref(name=None, namespace=None, selector=None, not_found='Deny'):
    ref = {'parameterNotFoundAction': not_found}
    for key, value in (('name', name), ('namespace', namespace), ('selector', selector)):
        if value is not None:
            ref[key] = value
    return ref


def binding(name, policy, actions=('Deny',), resources=None, params=None, kind='ValidatingAdmissionPolicyBinding'):
    spec = {'policyName': policy}
    if kind == 'ValidatingAdmissionPolicyBinding':
        spec['validationActions'] = list(actions)
    if resources is not None:
        spec['matchResources'] = resources
    if params is not None:
        spec['paramRef'] = params
    return {'apiVersion': REGISTRATION, 'kind': kind, 'metadata': {'name': name, 'generation': 1}, 'spec': spec}


def map_binding(name, policy, resources=None, params=None):
    return binding(name, policy, resources=resources, params=params, kind='MutatingAdmissionPolicyBinding')


def configmap(name, ns, data, labels=None):
    meta = {'name': name, 'namespace': ns}
    if labels:
        meta['labels'] = labels
    return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta, 'data': data}


def cluster_param(name, spec):
    return {'apiVersion': 'params.example.com/v1', 'kind': 'ClusterParam', 'metadata': {'name': name}, 'spec': spec}


def ct(name, case_label, replicas=1, **extra):
    labels = dict({'case': case_label}, **extra)
    return crontab(name, labels, spec={'cronSpec': '* * * * */5', 'image': 'my-cron-image', 'replicas': replicas})


def bound(name, validations, case_label=None, actions=('Deny',), **kw):
    """A policy and its binding `<name>-binding`, selecting objects labelled case=<case_label>."""
    resources = match(object_selector=case(case_label or name))
    return [vap(name, validations, **kw), binding(f'{name}-binding', name, actions, resources)]


# --- scenarios -----------------------------------------------------------------------------

def actions():
    limit = [validation('object.spec.replicas <= 5', message='replicas must be at most 5')]
    objects = []
    for c, acts in (('deny', ['Deny']), ('warn', ['Warn']), ('audit', ['Audit']), ('warnaudit', ['Warn', 'Audit']),
                    ('denywarn', ['Deny', 'Warn'])):
        objects += bound(f'limit-{c}', limit, c, acts)
    steps = []
    for i, c in enumerate(('deny', 'warn', 'audit', 'warnaudit', 'denywarn')):
        steps += [post(ct(f'ac{i}', c, replicas=10)), get(f'{CT}/ac{i}'), post(ct(f'ok{i}', c))]
    steps += [post(ct('dr1', 'deny', replicas=10), query='?dryRun=All'),
              post(ct('dr2', 'warn', replicas=10), query='?dryRun=All'),
              patch(f'{CT}/ok0', {'spec': {'replicas': 9}}), get(f'{CT}/ok0'),
              patch(f'{CT}/ok1', {'spec': {'replicas': 9}})]
    yield 'vap_validation_actions', objects, steps


def reasons():
    def v(label, **kw):
        return validation(f"object.metadata.labels['case'] != '{label}'", **kw)
    vals = [
        v('plain', message='plain message'),
        v('forbidden', message='forbidden message', reason='Forbidden'),
        v('invalid', message='invalid message', reason='Invalid', field_path='spec.replicas'),
        v('unauthorized', message='unauthorized message', reason='Unauthorized'),
        v('toolarge', message='too large message', reason='RequestEntityTooLarge'),
        v('nomessage'),
        v('msgexpr', message='static message', message_expression="'replicas is ' + string(object.spec.replicas)"),
        v('msgempty', message='static fallback', message_expression="''"),
        v('msgerror', message='static after error', message_expression="'x' + object.spec.nosuch"),
        v('msgerrornostatic', message_expression="'x' + object.spec.nosuch"),
        v('msgnewline', message='static after newline', message_expression="'two\\nlines'"),
        v('msgnotstring', message='static not string', message_expression='1'),
        v('badfieldpath', message='bad field path', field_path='spec.nosuch['),
        validation("!object.metadata.name.startsWith('multi')", message='first of two'),
        validation("!object.metadata.name.startsWith('multi')", message='second of two'),
    ]
    p = vap('reasons', vals)
    objects = [p, binding('reasons-binding', 'reasons')]
    labels = ['plain', 'forbidden', 'invalid', 'unauthorized', 'toolarge', 'nomessage', 'msgexpr', 'msgempty',
              'msgerror', 'msgerrornostatic', 'msgnewline', 'msgnotstring', 'badfieldpath']
    steps = [post(ct(f'rs{i}', label)) for i, label in enumerate(labels)]
    steps += [post(ct('multi1', 'none')), post(ct('fine1', 'none')),
              put(f'{CT}/fine1', ct('fine1', 'forbidden')), patch(f'{CT}/fine1', {'metadata': {'labels': {'case': 'invalid'}}})]
    yield 'vap_reasons_and_messages', objects, steps


def variables():
    objects = bound('lazy', [validation('!variables.big', message_expression="'replicas ' + string(variables.replicas)")],
                    variables=[('broken', "object.spec.nosuch == 'x'"), ('replicas', 'object.spec.replicas'),
                               ('big', 'variables.replicas > 5')])
    objects += bound('used-broken', [validation('variables.broken', message='never')], 'usedbroken',
                     variables=[('broken', "object.spec.nosuch == 'x'")])
    objects += bound('used-broken-ignore', [validation('variables.broken', message='never')], 'usedbrokenignore',
                     failure='Ignore', variables=[('broken', "object.spec.nosuch == 'x'")])
    objects += bound('chain', [validation("variables.second == 'a-b'", message_expression='variables.second')], 'chain',
                     variables=[('first', "object.metadata.labels['x']"), ('second', "variables.first + '-b'")])
    steps = [post(ct('va1', 'lazy')), post(ct('va2', 'lazy', replicas=7)), post(ct('va3', 'usedbroken')),
             post(ct('va4', 'usedbrokenignore')), post(ct('va5', 'chain', x='a')), post(ct('va6', 'chain', x='z'))]
    yield 'vap_variables', objects, steps


def conditions():
    deny = [validation('false', message_expression="'denied ' + object.metadata.name")]
    objects = []
    for name, conds, failure in (
            ('cond-true', [('a', "object.metadata.name.startsWith('mc')"), ('b', "request.operation == 'CREATE'")], 'Fail'),
            ('cond-false', [('a', "object.metadata.name.startsWith('zz')")], 'Fail'),
            ('cond-error', [('err', "object.spec.nosuch == 'x'")], 'Fail'),
            ('cond-error-ignore', [('err', "object.spec.nosuch == 'x'")], 'Ignore'),
            ('cond-error-false', [('err', "object.spec.nosuch == 'x'"), ('no', 'false')], 'Fail'),
            ('cond-compile', [('broken', 'object.metadata.name ==')], 'Fail'),
            ('cond-params', [('p', 'params == null')], 'Fail')):
        objects += bound(name, deny, name, failure=failure, conditions=conds)
    steps = [post(ct(f'mc{i}', c)) for i, c in enumerate(
        ('cond-true', 'cond-false', 'cond-error', 'cond-error-ignore', 'cond-error-false', 'cond-compile', 'cond-params'))]
    steps += [post(ct('zz1', 'cond-false'))]
    yield 'vap_match_conditions', objects, steps


def constraints():
    deny = [validation('false', message_expression="'denied ' + request.operation + ' ' + request.resource.resource")]
    objects = []

    def add(name, constraint):
        objects.extend([vap(name, deny, constraints=constraint),
                        binding(f'{name}-binding', name, resources=match(object_selector=case(name)))])
    add('create-only', match(rules=[rule(('CREATE',))]))
    add('excluded', match(exclude=[rule(names=('ex-skip',))]))
    add('prod-only', match(namespace_selector={'matchLabels': {'env': 'prod'}}))
    add('web-only', match(object_selector={'matchLabels': {'app': 'web'}}))
    add('v2-exact', match(rules=[rule(versions=('v2',))], match_policy='Exact'))
    add('v2-equivalent', match(rules=[rule(versions=('v2',))]))
    add('regions', match(rules=[rule(resources=('regions',))], namespace_selector={'matchLabels': {'env': 'prod'}}))
    # The binding's matchResources narrows the policy's: only namespace `labelled`.
    objects += [vap('narrowed', deny), binding('narrowed-binding', 'narrowed', resources=match(
        namespace_selector={'matchLabels': {'env': 'prod'}}, object_selector=case('narrowed')))]
    # A binding without matchResources: the policy's constraints alone (objectSelector in the policy).
    objects += [vap('policy-scoped', deny, constraints=match(object_selector=case('policy-scoped'))),
                binding('policy-scoped-binding', 'policy-scoped')]
    # A binding naming a policy that does not exist.
    objects += [binding('orphan-binding', 'no-such-policy', resources=match(object_selector=case('orphan')))]
    steps = [
        post(ct('co1', 'create-only')), post(ct('co1x', 'none')), put(f'{CT}/co1x', ct('co1x', 'create-only')),
        post(ct('ex-skip', 'excluded')), post(ct('ex-hit', 'excluded')),
        post(ct('pr1', 'prod-only')), post(dict(ct('pr2', 'prod-only'), metadata={'name': 'pr2', 'labels': {'case': 'prod-only'}}), base=CT_LABELLED),
        post(ct('wo1', 'web-only')), post(ct('wo2', 'web-only', app='web')),
        post(ct('v2a', 'v2-exact')), post(crontab('v2b', {'case': 'v2-exact'}, version='v2'), base=CT_V2),
        post(ct('v2c', 'v2-equivalent')),
        req('POST', RG, dict(region('rg1'), metadata={'name': 'rg1', 'labels': {'case': 'regions'}})),
        post(ct('na1', 'narrowed')), post(crontab('na2', {'case': 'narrowed'}), base=CT_LABELLED),
        post(ct('ps1', 'policy-scoped')), post(ct('or1', 'orphan')),
    ]
    yield 'vap_match_constraints', objects, steps


def bad_configuration():
    # A policy the reference cannot configure fails every request it could match, whatever its
    # binding selects (the configuration error is the policy's, before any binding is matched).
    deny = [validation('false', message='never')]
    objects = [vap('bad-selector', deny, constraints=match(rules=[rule(resources=('crontabs', 'regions'))],
               namespace_selector={'matchExpressions': [{'key': 'env', 'operator': 'Bogus', 'values': ['x']}]})),
               binding('bad-selector-binding', 'bad-selector', resources=match(object_selector=case('bad')))]
    objects += bound('good', [validation('object.spec.replicas < 3', message='good policy says no')], 'good')
    steps = [post(ct('bs1', 'bad')), post(ct('bs2', 'other')), post(ct('bs3', 'good', replicas=5)),
             req('POST', RG, region('rg1'))]
    yield 'vap_bad_namespace_selector', objects, steps
    objects = [vap('missing-kind', deny, param_kind=('v1', 'NoSuchKind')),
               binding('missing-kind-binding', 'missing-kind', resources=match(object_selector=case('missingkind')),
                       params=param_ref('limits', PARAMS_NS))]
    objects += bound('good', [validation('object.spec.replicas < 3', message='good policy says no')], 'good')
    steps = [post(ct('mk1', 'missingkind')), post(ct('mk2', 'other')), post(ct('mk3', 'good', replicas=5))]
    yield 'vap_param_kind_missing', objects, steps


def params():
    check = [validation("int(params.data.max) >= object.spec.replicas",
                        message_expression="'at most ' + params.data.max + ' (' + params.metadata.name + ')'")]
    cm = ('v1', 'ConfigMap')
    objects = [
        configmap('limits', PARAMS_NS, {'max': '3'}), configmap('limits', 'default', {'max': '4'}),
        configmap('sel-a', PARAMS_NS, {'max': '5'}, {'limits': 'yes'}),
        configmap('sel-b', PARAMS_NS, {'max': '2'}, {'limits': 'yes'}),
        cluster_param('cluster-limits', {'max': 6}),
        vap('cm-limit', check, param_kind=cm),
        vap('cluster-limit', [validation('params.spec.max >= object.spec.replicas',
                                         message_expression="'cluster max ' + string(params.spec.max)")],
            param_kind=('params.example.com/v1', 'ClusterParam')),
        vap('no-param-kind', [validation('params == null', message='params is not null')]),
    ]
    for c, ref, policy in (
            ('byname', param_ref('limits', PARAMS_NS), 'cm-limit'),
            ('requestns', param_ref('limits'), 'cm-limit'),
            ('selector', param_ref(namespace=PARAMS_NS, selector={'matchLabels': {'limits': 'yes'}}), 'cm-limit'),
            ('selectornone', param_ref(namespace=PARAMS_NS, selector={'matchLabels': {'limits': 'none'}}), 'cm-limit'),
            ('selectornoneallow', param_ref(namespace=PARAMS_NS, selector={'matchLabels': {'limits': 'none'}},
                                            not_found='Allow'), 'cm-limit'),
            ('missingdeny', param_ref('nope', PARAMS_NS), 'cm-limit'),
            ('missingallow', param_ref('nope', PARAMS_NS, not_found='Allow'), 'cm-limit'),
            ('cluster', param_ref('cluster-limits'), 'cluster-limit'),
            ('noparamref', None, 'cm-limit'),
            ('noparamkind', param_ref('limits', PARAMS_NS), 'no-param-kind')):
        objects.append(binding(f'{c}-binding', policy, resources=match(object_selector=case(c)), params=ref))
    steps = []
    for c in ('byname', 'requestns', 'selector', 'selectornone', 'selectornoneallow', 'missingdeny', 'missingallow',
              'cluster', 'noparamref', 'noparamkind'):
        steps += [post(ct(f'{c}-1', c, replicas=1)), post(ct(f'{c}-2', c, replicas=4))]
    steps += [post(crontab('requestns-3', {'case': 'requestns'}, spec={'replicas': 1}), base=CT_LABELLED)]
    yield 'vap_params', objects, steps


def failure_policy():
    objects = bound('runtime-fail', [validation("object.spec.nosuch == 'x'")], 'runtimefail')
    objects += bound('runtime-ignore', [validation("object.spec.nosuch == 'x'")], 'runtimeignore', failure='Ignore')
    objects += bound('compile-fail', [validation('object.spec.replicas ==')], 'compilefail')
    objects += bound('compile-ignore', [validation('object.spec.replicas ==')], 'compileignore', failure='Ignore')
    objects += bound('not-bool', [validation("'yes'")], 'notbool')
    objects += bound('unknown-var', [validation('variables.nosuch')], 'unknownvar')
    hundred = '[' + ','.join(str(i) for i in range(100)) + ']'
    objects += bound('costly', [validation(f'{hundred}.all(a, {hundred}.all(b, {hundred}.all(c, true)))')], 'costly')
    objects += bound('good', [validation('object.spec.replicas < 3', message='good policy says no')], 'good')
    steps = [post(ct(f'fp{i}', c)) for i, c in enumerate(
        ('runtimefail', 'runtimeignore', 'compilefail', 'compileignore', 'notbool', 'unknownvar', 'costly'))]
    steps += [post(ct('fp7', 'good', replicas=5)), post(ct('fp8', 'good'))]
    yield 'vap_failure_policy', objects, steps


def authorizer():
    """Warn bindings: each failing validation's warning shows what one check answered."""
    requester = "authorizer.group('stable.example.com').resource('crontabs').namespace('default')"
    robot = ("authorizer.serviceAccount('default', 'robot').group('stable.example.com').resource('crontabs')"
             ".namespace('default')")
    shown = [
        f"'requester delete allowed=' + string({requester}.check('delete').allowed())",
        f"'robot create allowed=' + string({robot}.check('create').allowed())",
        f"'robot escalate allowed=' + string({robot}.check('escalate').allowed())",
        f"'robot escalate reason=' + {robot}.check('escalate').reason()",
        f"'robot escalate errored=' + string({robot}.check('escalate').errored())",
        "'request resource escalate allowed=' + string(authorizer.requestResource.check('escalate').allowed())",
        "'path allowed=' + string(authorizer.path('/healthz').check('get').allowed())",
    ]
    objects = bound('authz', [validation('false', message='unshown', message_expression=m) for m in shown], 'authz',
                    actions=('Warn',))
    objects += bound('authz-deny', [validation(f"{robot}.check('escalate').allowed()",
                                               message='robot may not escalate')], 'authzdeny')
    steps = [post(ct('az1', 'authz')), post(ct('az2', 'authzdeny'))]
    yield 'vap_authorizer', objects, steps


def every_verb():
    def opt(field, expr=None):
        return f"(has(request.{field}) ? {expr or 'request.' + field} : '<none>')"
    msg = (f"request.operation + ' ' + request.resource.resource + '/' + {opt('subResource')}"
           f" + ' kind=' + request.kind.kind + ' name=' + {opt('name')} + ' dryRun=' + {opt('dryRun', 'string(request.dryRun)')}"
           " + ' old=' + string(oldObject != null) + ' new=' + string(object != null)"
           f" + ' options=' + {opt('options', 'string(request.options.kind)')}")
    objects = [vap('every-verb', [validation('false', message_expression=msg)],
                   constraints=match(rules=[rule(resources=('crontabs', 'crontabs/status', 'crontabs/scale'))])),
               binding('every-verb-binding', 'every-verb', ('Warn',))]
    steps = [
        post(crontab('ev1', {'app': 'x'}), query='?fieldManager=creator'),
        put(f'{CT}/ev1', crontab('ev1', {'app': 'y'})),
        patch(f'{CT}/ev1', {'metadata': {'labels': {'app': 'z'}}}),
        patch(f'{CT}/ev1', [{'op': 'replace', 'path': '/spec/replicas', 'value': 2}], JSON_PATCH),
        apply(f'{CT}/ev1', crontab('ev1', spec={'image': 'applied'}), force=True),
        apply(f'{CT}/ev2', crontab('ev2', {'app': 'applied'})),
        put(f'{CT}/ev1/status', dict(crontab('ev1'), status={'replicas': 1})),
        patch(f'{CT}/ev1/status', {'status': {'replicas': 2}}),
        put(f'{CT}/ev1/scale', scale('ev1', 3)),
        patch(f'{CT}/ev1/scale', {'spec': {'replicas': 4}}),
        get(f'{CT}/ev1'),
        delete(f'{CT}/ev1'),
        post(crontab('ev3')),
        delete(f'{CT}?labelSelector='),
        post(crontab('ev5'), query='?dryRun=All'),
        get(CT),
    ]
    yield 'vap_every_verb', objects, steps


def deny_on_delete():
    objects = [vap('no-delete', [validation("oldObject.metadata.labels['keep'] != 'true'",
                                            message_expression="'keep ' + oldObject.metadata.name")],
                   constraints=match(rules=[rule(('DELETE',))])),
               binding('no-delete-binding', 'no-delete')]
    steps = [post(crontab('kd1', {'keep': 'true'})), post(crontab('kd2')), delete(f'{CT}/kd1'),
             delete(f'{CT}?labelSelector='), get(CT)]
    yield 'vap_denies_delete', objects, steps


# --- MutatingAdmissionPolicy --------------------------------------------------------------

def mutations():
    ac = map_('apply-config', [apply_configuration(
        "Object{metadata: Object.metadata{labels: {'mutated-by': 'policy'}}, spec: Object.spec{owner: 'policy@example.com'}}")])
    jp = map_('json-patch', [json_patch(
        "[JSONPatch{op: 'add', path: '/spec/owner', value: 'jp@example.com'},"
        " JSONPatch{op: 'replace', path: '/spec/replicas', value: 2},"
        " JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/by'), value: 'jp'}]")])
    both = map_('both', [
        apply_configuration("Object{spec: Object.spec{image: 'first'}}"),
        json_patch("[JSONPatch{op: 'replace', path: '/spec/image', value: object.spec.image + '-second'}]")])
    objects = [ac, map_binding('apply-config-binding', 'apply-config', match(object_selector=case('ac'))),
               jp, map_binding('json-patch-binding', 'json-patch', match(object_selector=case('jp'))),
               both, map_binding('both-binding', 'both', match(object_selector=case('both')))]
    steps = [post(ct('mu1', 'ac')), get(f'{CT}/mu1'),
             put(f'{CT}/mu1', crontab('mu1', {'case': 'ac'}, spec={'image': 'other'})), get(f'{CT}/mu1'),
             patch(f'{CT}/mu1', {'spec': {'owner': 'someone'}}), get(f'{CT}/mu1'),
             apply(f'{CT}/mu2', crontab('mu2', {'case': 'ac'})), get(f'{CT}/mu2'),
             post(ct('mu3', 'jp')), get(f'{CT}/mu3'),
             post(ct('mu4', 'both')), get(f'{CT}/mu4'),
             post(ct('mu5', 'jp'), query='?dryRun=All')]
    yield 'map_mutations', objects, steps


def map_failures():
    objects = []

    def add(name, mutation, failure='Fail'):
        objects.extend([map_(name, [mutation], failure=failure),
                        map_binding(f'{name}-binding', name, match(object_selector=case(name)))])
    add('invalid-result', json_patch("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 'many'}]"))
    add('invalid-result-ignore', json_patch("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 'many'}]"), 'Ignore')
    add('unknown-field', apply_configuration("Object{spec: Object.spec{unknownField: 1}}"))
    add('bad-path', json_patch("[JSONPatch{op: 'replace', path: '/spec/nosuch/deeper', value: 1}]"))
    add('runtime-error', apply_configuration("Object{spec: Object.spec{owner: object.spec.nosuch}}"))
    add('runtime-error-ignore', apply_configuration("Object{spec: Object.spec{owner: object.spec.nosuch}}"), 'Ignore')
    add('compile-error', apply_configuration('Object{spec: '))
    add('wrong-type', apply_configuration("'not an object'"))
    add('type-mismatch', apply_configuration("Object{spec: Object.spec{replicas: 'three'}}"))
    add('change-name', json_patch("[JSONPatch{op: 'replace', path: '/metadata/name', value: 'renamed'}]"))
    steps = []
    for i, c in enumerate(('invalid-result', 'invalid-result-ignore', 'unknown-field', 'bad-path', 'runtime-error',
                           'runtime-error-ignore', 'compile-error', 'wrong-type', 'type-mismatch', 'change-name')):
        steps += [post(ct(f'mf{i}', c)), get(f'{CT}/mf{i}')]
    steps += [get(f'{CT}/renamed')]
    yield 'map_failures', objects, steps


def map_params():
    objects = [configmap('owner', PARAMS_NS, {'owner': 'from-params@example.com', 'replicas': '3'}),
               map_('from-params', [apply_configuration(
                   "Object{spec: Object.spec{owner: params.data.owner, replicas: int(params.data.replicas)}}")],
                   param_kind=('v1', 'ConfigMap')),
               map_binding('from-params-binding', 'from-params', match(object_selector=case('params')),
                           param_ref('owner', PARAMS_NS)),
               map_binding('from-params-missing', 'from-params', match(object_selector=case('missing')),
                           param_ref('nope', PARAMS_NS)),
               map_binding('from-params-missing-allow', 'from-params', match(object_selector=case('missingallow')),
                           param_ref('nope', PARAMS_NS, not_found='Allow'))]
    steps = [post(ct('mp1', 'params')), get(f'{CT}/mp1'), post(ct('mp2', 'missing')), post(ct('mp3', 'missingallow')),
             get(f'{CT}/mp3')]
    yield 'map_params', objects, steps


def map_reinvocation():
    seen = ("Object{metadata: Object.metadata{annotations: {'seen-webhook': "
            "has(object.metadata.labels) && 'mutated-by' in object.metadata.labels ? 'yes' : 'no'}}}")
    objects = [map_('if-needed', [apply_configuration(seen)], reinvocation='IfNeeded'),
               map_binding('if-needed-binding', 'if-needed', match(object_selector=case('ifneeded'))),
               map_('never', [apply_configuration(seen)]),
               map_binding('never-binding', 'never', match(object_selector=case('never'))),
               mutating('mutate', hook('mutate.crontabs.example.com', '/mutate', mutating=True,
                                       rules=[rule(('CREATE', 'UPDATE'))]))]
    steps = [post(ct('re1', 'ifneeded')), get(f'{CT}/re1'), post(ct('re2', 'never')), get(f'{CT}/re2')]
    yield 'map_reinvocation', objects, steps


def map_then_vap():
    objects = [map_('set-replicas', [json_patch("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 9}]")]),
               map_binding('set-replicas-binding', 'set-replicas', match(object_selector=case('order'))),
               vap('limit', [validation('object.spec.replicas <= 5', message_expression="'saw ' + string(object.spec.replicas)")]),
               binding('limit-binding', 'limit', resources=match(object_selector=case('order')))]
    steps = [post(ct('or1', 'order')), get(f'{CT}/or1')]
    yield 'map_then_vap', objects, steps


def scenarios():
    """(name, objects, steps) for every scenario, in recording order."""
    for group in (actions, reasons, variables, conditions, constraints, bad_configuration, params, failure_policy, authorizer,
                  every_verb, deny_on_delete, mutations, map_failures, map_params, map_reinvocation, map_then_vap):
        yield from group()
