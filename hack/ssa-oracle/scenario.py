"""The server-side apply comparison: cases of requests, as data for record.py.

Every object name is unique to its case, so the cases run one after another on one CRD.
Bodies that are strings are sent as they are (YAML for apply patches)."""
import json

USER_AGENT = 'ssa-compare/v1.0.0 (linux/amd64) kubernetes/0000000'
G1 = '/apis/ssa.example.com/v1/namespaces/default/widgets'
G2 = '/apis/ssa.example.com/v2/namespaces/default/widgets'
APPLY = 'application/apply-patch+yaml'
MERGE = 'application/merge-patch+json'
JSON_PATCH = 'application/json-patch+json'


def widget(name, spec=None, version='v1', **extra):
    o = {'apiVersion': f'ssa.example.com/{version}', 'kind': 'Widget', 'metadata': {'name': name}}
    if spec is not None:
        o['spec'] = spec
    o.update(extra)
    return o


def q(manager=None, **params):
    parts = []
    if manager is not None:
        parts.append(f'fieldManager={manager}')
    parts += [f'{k}={v}' for k, v in params.items()]
    return ('?' + '&'.join(parts)) if parts else ''


def post(name, spec, manager=None, base=G1, **params):
    version = base.split('/')[3]
    return {'method': 'POST', 'path': base + q(manager, **params), 'body': widget(name, spec, version)}


def put(name, body, manager=None, sub='', base=G1, **params):
    return {'method': 'PUT', 'path': f'{base}/{name}{sub}' + q(manager, **params), 'body': body}


def patch(name, body, ctype=MERGE, manager=None, sub='', base=G1, **params):
    return {'method': 'PATCH', 'path': f'{base}/{name}{sub}' + q(manager, **params), 'body': body,
            'ctype': ctype}


def apply(name, body, manager, sub='', base=G1, **params):
    """An apply patch; dict bodies are sent as JSON (JSON is YAML)."""
    text = body if isinstance(body, str) else json.dumps(body)
    return {'method': 'PATCH', 'path': f'{base}/{name}{sub}' + q(manager, **params), 'body': text,
            'ctype': APPLY}


def get(name, sub='', base=G1):
    return {'method': 'GET', 'path': f'{base}/{name}{sub}'}


def spec_full():
    return {'replicas': 2, 'image': 'nginx:1', 'args': ['a', 'b'], 'tags': ['x', 'y'],
            'ports': [{'name': 'http', 'port': 80}, {'name': 'https', 'port': 443, 'protocol': 'TCP'}],
            'labels': {'app': 'w'}, 'selector': {'matchLabels': {'app': 'w'}}}


def cases():
    yield 'update_managers', [
        post('um', spec_full(), 'alice'),
        get('um'),
        put('um', widget('um', dict(spec_full(), image='nginx:2')), 'bob'),
        patch('um', {'spec': {'tags': ['x', 'y', 'z'], 'labels': {'tier': 'web'}}}, manager='carol'),
        patch('um', [{'op': 'replace', 'path': '/spec/ports/0/port', 'value': 8080}], JSON_PATCH, 'dave'),
        get('um'),
        # The same manager again, nothing changed: its entry stays.
        put('um', widget('um', dict(spec_full(), image='nginx:2', tags=['x', 'y', 'z'],
                                    labels={'app': 'w', 'tier': 'web'},
                                    ports=[{'name': 'http', 'port': 8080, 'protocol': 'TCP'},
                                           {'name': 'https', 'port': 443, 'protocol': 'TCP'}])), 'bob'),
        # No fieldManager: the User-Agent's prefix names the manager.
        patch('um', {'spec': {'paused': True}}),
        dict(patch('um', {'spec': {'paused': False}}), user_agent='plain-agent'),
        dict(patch('um', {'spec': {'image': 'nginx:3'}}), user_agent='kubectl-edit/v1.32.0 (linux/amd64)'),
        get('um'),
    ]
    yield 'apply_create_and_update', [
        apply('ap', widget('ap', {'replicas': 1, 'image': 'busybox', 'tags': ['a', 'b']}), 'applier1'),
        # Applying the same configuration again changes nothing.
        apply('ap', widget('ap', {'replicas': 1, 'image': 'busybox', 'tags': ['a', 'b']}), 'applier1'),
        apply('ap', widget('ap', {'replicas': 3, 'image': 'busybox', 'tags': ['a', 'c']}), 'applier1'),
        apply('ap', widget('ap', {'labels': {'team': 'x'}}), 'applier2'),
        # A different value of a field applier1 owns: conflict, then forced.
        apply('ap', widget('ap', {'replicas': 5, 'labels': {'team': 'x'}}), 'applier2'),
        apply('ap', widget('ap', {'replicas': 5, 'image': 'alpine', 'labels': {'team': 'x'}}), 'applier2'),
        apply('ap', widget('ap', {'replicas': 5, 'labels': {'team': 'x'}}), 'applier2', force='true'),
        get('ap'),
        # The same value as the owner's: shared ownership, no conflict.
        apply('ap', widget('ap', {'image': 'busybox'}), 'applier3'),
        # applier1 stops applying image (co-owned: kept) and tags (its own: removed).
        apply('ap', widget('ap', {'replicas': 3}), 'applier1', force='true'),
        get('ap'),
        # applier3 stops applying image: no one owns it any more, so it goes.
        apply('ap', widget('ap', {'paused': True}), 'applier3'),
        get('ap'),
        # YAML apply body.
        apply('ap', 'apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: ap\nspec:\n  args: [p, q]\n',
              'yaml-applier'),
    ]
    yield 'apply_conflict_with_update_manager', [
        post('cu', {'replicas': 1, 'image': 'a', 'args': ['x']}, 'creator'),
        apply('cu', widget('cu', {'image': 'b'}), 'applier'),
        apply('cu', widget('cu', {'image': 'b', 'replicas': 2, 'args': ['y']}), 'applier'),
        apply('cu', widget('cu', {'image': 'b', 'replicas': 2, 'args': ['y']}), 'applier', force='true'),
        # An Update after an Apply takes the field back without conflict.
        patch('cu', {'spec': {'replicas': 7}}, manager='creator'),
        apply('cu', widget('cu', {'image': 'b', 'replicas': 2, 'args': ['y']}), 'applier'),
        get('cu'),
    ]
    yield 'list_map_items', [
        apply('lm', widget('lm', {'ports': [{'name': 'http', 'port': 80}],
                                  'routes': [{'host': 'a', 'path': '/', 'backend': 'x'}]}), 'm1'),
        apply('lm', widget('lm', {'ports': [{'name': 'metrics', 'port': 9090}],
                                  'routes': [{'host': 'a', 'path': '/api', 'backend': 'y'}]}), 'm2'),
        get('lm'),
        # m2 sets another value of an item field m1 owns.
        apply('lm', widget('lm', {'ports': [{'name': 'metrics', 'port': 9090}, {'name': 'http', 'port': 81}]}), 'm2'),
        # m1 drops its port item: removed; m2's item stays.
        apply('lm', widget('lm', {'routes': [{'host': 'a', 'path': '/', 'backend': 'x'}]}), 'm1'),
        get('lm'),
        # Duplicate keys in an applied list-map.
        apply('lm', widget('lm', {'ports': [{'name': 'dup', 'port': 1}, {'name': 'dup', 'port': 2}]}), 'm3'),
        # An item without its key.
        apply('lm', widget('lm', {'ports': [{'port': 1}]}), 'm3'),
        # A merge patch replaces the list; the patcher owns every item it sent.
        patch('lm', {'spec': {'ports': [{'name': 'metrics', 'port': 9091}]}}, manager='patcher'),
        get('lm'),
    ]
    yield 'set_and_atomic', [
        apply('sa', widget('sa', {'tags': ['a', 'b'], 'args': ['1', '2'],
                                  'selector': {'matchLabels': {'k': 'v'}}, 'limits': {'cpu': 1}}), 'm1'),
        apply('sa', widget('sa', {'tags': ['b', 'c']}), 'm2'),
        get('sa'),
        apply('sa', widget('sa', {'args': ['3']}), 'm2'),
        apply('sa', widget('sa', {'selector': {'matchLabels': {'k': 'w'}}, 'limits': {'cpu': 1, 'mem': 2}}), 'm2'),
        apply('sa', widget('sa', {'args': ['3'], 'selector': {'matchLabels': {'k': 'w'}}}), 'm2', force='true'),
        # m1 stops applying tags: a and b go unless m2 owns them (b).
        apply('sa', widget('sa', {'limits': {'cpu': 1}}), 'm1'),
        get('sa'),
        # Duplicates in a set.
        apply('sa', widget('sa', {'tags': ['d', 'd']}), 'm3'),
        # Same atomic value as its owner: shared.
        apply('sa', widget('sa', {'limits': {'cpu': 1}}), 'm4'),
        get('sa'),
    ]
    yield 'preserve_unknown_fields', [
        apply('pu', widget('pu', {'config': {'a': 1, 'b': {'c': 2}, 'l': [1, 2]}}), 'm1'),
        apply('pu', widget('pu', {'config': {'b': {'d': 3}}}), 'm2'),
        apply('pu', widget('pu', {'config': {'a': 9}}), 'm2'),
        apply('pu', widget('pu', {'config': {'l': [3]}}), 'm2'),
        apply('pu', widget('pu', {'config': {'b': {'c': 2}}}), 'm1'),
        get('pu'),
    ]
    yield 'status_subresource', [
        apply('st', widget('st', {'replicas': 1}, status={'phase': 'ignored'}), 'spec-applier'),
        apply('st', widget('st', {'replicas': 2}, status={'phase': 'Running', 'replicas': 1,
                                                          'conditions': [{'type': 'Ready', 'status': 'True'}]}),
              'status-applier', sub='/status'),
        get('st'),
        patch('st', {'status': {'conditions': [{'type': 'Ready', 'status': 'False'}]}}, manager='status-patcher',
              sub='/status'),
        apply('st', widget('st', status={'phase': 'Running', 'conditions': [{'type': 'Ready', 'status': 'True'}]}),
              'status-applier', sub='/status'),
        apply('st', widget('st', status={'phase': 'Running', 'conditions': [{'type': 'Ready', 'status': 'True'}]}),
              'status-applier', sub='/status', force='true'),
        put('st', widget('st', {'replicas': 2}, status={'phase': 'Done', 'replicas': 1}), 'status-putter',
            sub='/status'),
        # The main resource's update cannot own status either.
        put('st', widget('st', {'replicas': 4}, status={'phase': 'x'}), 'spec-putter'),
        get('st'),
        # Apply to /status of a missing object.
        apply('st-missing', widget('st-missing', status={'phase': 'x'}), 'status-applier', sub='/status'),
    ]
    yield 'scale_subresource', [
        apply('sc', widget('sc', {'replicas': 1, 'image': 'i'}), 'deployer'),
        patch('sc', {'spec': {'replicas': 2}}, manager='scaler', sub='/scale'),
        get('sc'),
        put('sc', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'sc', 'namespace': 'default'},
                   'spec': {'replicas': 3}}, 'hpa', sub='/scale'),
        get('sc'),
        apply('sc', widget('sc', {'replicas': 1, 'image': 'i'}), 'deployer'),
        apply('sc', widget('sc', {'image': 'i'}), 'deployer'),
        get('sc', sub='/scale'),
        apply('sc', {'apiVersion': 'autoscaling/v1', 'kind': 'Scale', 'metadata': {'name': 'sc'},
                     'spec': {'replicas': 4}}, 'scale-applier', sub='/scale'),
        apply('sc', widget('sc', {'replicas': 1, 'image': 'i'}), 'deployer'),
        get('sc'),
    ]
    yield 'apply_errors', [
        apply('er', widget('er', {'replicas': 1}), None),
        patch('er', {'spec': {'replicas': 1}}, manager='m', force='true'),
        apply('er', {'apiVersion': 'ssa.example.com/v1', 'kind': 'Gadget', 'metadata': {'name': 'er'}}, 'm'),
        apply('er', {'apiVersion': 'ssa.example.com/v9', 'kind': 'Widget', 'metadata': {'name': 'er'}}, 'm'),
        apply('er', {'apiVersion': 'ssa.example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'other'}}, 'm'),
        apply('er', {'kind': 'Widget', 'metadata': {'name': 'er'}}, 'm'),
        apply('er', 'apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata: {name: er\nspec: [\n', 'm'),
        apply('er', widget('er', {'replicas': 'many'}), 'm'),
        apply('er', widget('er', {'replicas': 1, 'colour': 'red'}), 'm', fieldValidation='Strict'),
        apply('er', widget('er', {'replicas': 1, 'colour': 'red'}), 'm'),
        apply('er', 'apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: er\nspec:\n  image: a\n  image: b\n',
              'm', fieldValidation='Strict'),
        apply('er', widget('er', {'replicas': 2}, metadata={'name': 'er', 'managedFields': [
            {'manager': 'x', 'operation': 'Apply', 'apiVersion': 'ssa.example.com/v1', 'fieldsType': 'FieldsV1',
             'fieldsV1': {}}]}), 'm'),
        apply('er', widget('er', {'replicas': 2}, metadata={'name': 'er', 'resourceVersion': '1'}), 'm'),
        apply('er', '', 'm'),
        apply('er', '[1, 2]', 'm'),
        apply('er', '5', 'm'),
        apply('er', 'null', 'm'),
        apply('er', '"text"', 'm'),
        apply('er', '{"apiVersion": "ssa.example.com/v1", "kind": "Widget", "metadata": {"name": "er"}, '
                    '"spec": {"image": "a", "image": "b"}}', 'm', fieldValidation='Strict'),
        apply('er', 'apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: er\nspec:\n  image: a\n  image: b\n',
              'm'),
        apply('er', 'apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: er\nspec:\n  image: a\n  image: b\n',
              'm', fieldValidation='Ignore'),
        apply('er', {'apiVersion': 'ssa.example.com/v1', 'kind': 'Widget', 'metadata': {}}, 'm'),
        apply('er', widget('er', {'replicas': 1}, metadata={'name': 'er', 'namespace': 'other'}), 'm'),
        apply('er', widget('er', {'ports': [{'name': 'a', 'port': 'eighty'}]}), 'm'),
        get('er'),
    ]
    yield 'dry_run', [
        apply('dr', widget('dr', {'replicas': 1}), 'm', dryRun='All'),
        get('dr'),
        apply('dr', widget('dr', {'replicas': 1}), 'm'),
        apply('dr', widget('dr', {'replicas': 2}), 'other', dryRun='All'),
        apply('dr', widget('dr', {'replicas': 2}), 'other', dryRun='All', force='true'),
        patch('dr', {'spec': {'image': 'x'}}, manager='p', dryRun='All'),
        get('dr'),
    ]
    yield 'managed_fields_sent_by_clients', [
        post('mf', {'replicas': 1}, 'creator'),
        # Invalid managedFields in an update: the live ones are kept.
        patch('mf', {'metadata': {'managedFields': [{'manager': 'x', 'operation': 'Bogus'}]},
                     'spec': {'image': 'a'}}, manager='patcher'),
        # Valid managedFields replace the recorded ones.
        patch('mf', {'metadata': {'managedFields': [
            {'manager': 'sent', 'operation': 'Update', 'apiVersion': 'ssa.example.com/v1', 'fieldsType': 'FieldsV1',
             'fieldsV1': {'f:spec': {'f:replicas': {}}}}]}, 'spec': {'paused': True}}, manager='patcher'),
        # [{}] clears them; later updates are not tracked.
        patch('mf', {'metadata': {'managedFields': [{}]}}, manager='clearer'),
        patch('mf', {'spec': {'image': 'b'}}, manager='patcher'),
        get('mf'),
        # An apply to an untracked object: what was there belongs to before-first-apply.
        apply('mf', widget('mf', {'image': 'c'}), 'applier'),
        get('mf'),
        # Creates with managedFields in the body.
        post('mf2', {'replicas': 1}, 'creator') | {'body': widget('mf2', {'replicas': 1}, metadata={
            'name': 'mf2', 'managedFields': [{'manager': 'ghost', 'operation': 'Apply', 'apiVersion': 'ssa.example.com/v1',
                                              'fieldsType': 'FieldsV1', 'fieldsV1': {'f:spec': {}}}]})},
        post('mf3', {'replicas': 1}, 'creator') | {'body': widget('mf3', {'replicas': 1}, metadata={
            'name': 'mf3', 'managedFields': [{}]})},
    ]
    yield 'versions', [
        apply('ve', widget('ve', {'replicas': 1}, version='v2'), 'm', base=G2),
        apply('ve', widget('ve', {'replicas': 1, 'image': 'a'}), 'm'),
        patch('ve', {'spec': {'paused': True}}, manager='u', base=G2),
        patch('ve', {'spec': {'paused': False}}, manager='u'),
        get('ve', base=G2),
        apply('ve', widget('ve', {'replicas': 2}, version='v2'), 'other', base=G2),
        apply('ve', widget('ve', {'image': 'a'}, version='v2'), 'm', base=G2),
        get('ve'),
    ]
    yield 'defaults_and_metadata', [
        # A defaulted field (protocol) is not the applier's.
        apply('dm', widget('dm', {'ports': [{'name': 'p', 'port': 1}]}, metadata={
            'name': 'dm', 'labels': {'team': 'a'}, 'annotations': {'note': 'x'}, 'finalizers': ['example.com/f']}), 'm1'),
        apply('dm', widget('dm', {'ports': [{'name': 'p', 'protocol': 'UDP'}]}), 'm2'),
        apply('dm', widget('dm', metadata={'name': 'dm', 'labels': {'team': 'b'}}), 'm2'),
        apply('dm', widget('dm', metadata={'name': 'dm', 'labels': {'env': 'prod'}, 'finalizers': ['example.com/g']}), 'm2'),
        # m1 drops its label, annotation and finalizer.
        apply('dm', widget('dm', {'ports': [{'name': 'p', 'port': 1}]}), 'm1'),
        get('dm'),
        # An update that sends managedFields: [] keeps the recorded ones.
        patch('dm', {'metadata': {'managedFields': []}, 'spec': {'image': 'z'}}, manager='patcher'),
        put('dm', widget('dm', {'ports': [{'name': 'p', 'port': 2, 'protocol': 'UDP'}], 'image': 'z'}), 'putter'),
        get('dm'),
        dict(get('dm'), accept='application/json;as=Table;v=v1;g=meta.k8s.io'),
    ]
    yield 'ownership_transfers', [
        apply('ot', widget('ot', {'image': 'a', 'replicas': 1, 'labels': {'x': '1', 'y': '2'}}), 'applier'),
        # An update that removes an applied field takes it from the applier.
        put('ot', widget('ot', {'image': 'a', 'labels': {'x': '1', 'y': '2'}}), 'editor'),
        apply('ot', widget('ot', {'image': 'a', 'replicas': 1, 'labels': {'x': '1', 'y': '2'}}), 'applier'),
        # A merge patch deleting a field (null).
        patch('ot', {'spec': {'labels': {'y': None}}}, manager='editor'),
        # The same value set by an updater: the applier can drop it and it stays.
        patch('ot', {'spec': {'image': 'a'}}, manager='pinner'),
        apply('ot', widget('ot', {'replicas': 1, 'labels': {'x': '1'}}), 'applier'),
        get('ot'),
        # Explicit null and empty map in an applied configuration.
        apply('ot', widget('ot', {'image': None, 'labels': {}}), 'nuller'),
        get('ot'),
        # managedFields sent to /status are ignored.
        patch('ot', {'metadata': {'managedFields': [{}]}, 'status': {'phase': 'p'}}, manager='st', sub='/status'),
        get('ot'),
    ]
    yield 'apply_options', [
        apply('ao', widget('ao', {'replicas': 1}), 'm', force='false'),
        apply('ao', widget('ao', {'replicas': 2}), 'other', force='abc'),
        apply('ao', widget('ao', {'replicas': 2}), 'x' * 129),
        apply('ao', widget('ao', {'replicas': 2}), 'bad%01name'),
        apply('ao', widget('ao', {'replicas': 2}), 'other', dryRun='Bogus'),
        apply('ao', widget('ao', {'replicas': 2}), 'other', fieldValidation='Bogus'),
        apply('ao', widget('ao', {'replicas': 2}), ''),
        get('ao'),
    ]
    # Managers named in the order they come, so that kube's oldest-first order (time in
    # seconds, then identifier) is the same whichever second each request falls in.
    cap = [post('cap', {'labels': {'l00': 'x'}}, 'manager-00')]
    for i in range(1, 12):
        cap.append(patch('cap', {'spec': {'labels': {f'l{i:02}': 'x'}}}, manager=f'manager-{i:02}'))
    cap.append(apply('cap', widget('cap', {'labels': {'a': 'x'}}), 'applier'))
    cap.append(patch('cap', {'spec': {'labels': {'l12': 'x'}}}, manager='manager-12'))
    cap.append(get('cap'))
    yield 'update_managers_cap', cap
