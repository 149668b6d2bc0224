#!/usr/bin/env python3
"""The reference's stub core API (../shared/reference/stub/sar-stub.py, run unchanged) plus what
admission policies need of it: the discovery documents (/api, /api/v1, /apis, /apis/<g>,
/apis/<g>/<v>) listing the kinds tests/common/fake_kube_collections.rs serves, so the reference's
REST mapper resolves a paramKind, and their kinds (the stub guesses `Configmap` from
`configmaps`). record.py starts the peers with a copy of the reference folder whose
stub/sar-stub.py is this file; $STUB_REAL is the real stub.
    usage: stub.py PORT"""
import http.server, json, os, runpy

# (group, version, plural, kind, namespaced): the fake core API's DEFAULTS plus namespaces.
RESOURCES = [
    ('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', False),
    ('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', False),
    ('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', False),
    ('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', False),
    ('admissionregistration.k8s.io', 'v1', 'mutatingadmissionpolicies', 'MutatingAdmissionPolicy', False),
    ('admissionregistration.k8s.io', 'v1', 'mutatingadmissionpolicybindings', 'MutatingAdmissionPolicyBinding', False),
    ('', 'v1', 'configmaps', 'ConfigMap', True),
    ('params.example.com', 'v1', 'clusterparams', 'ClusterParam', False),
    ('', 'v1', 'namespaces', 'Namespace', False),
]
VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']


def groups():
    out = {}
    for g, v, *_ in RESOURCES:
        if g and v not in out.setdefault(g, []):
            out[g].append(v)
    return out


def group_entry(name, versions):
    vs = [{'groupVersion': f'{name}/{v}', 'version': v} for v in versions]
    return {'name': name, 'versions': vs, 'preferredVersion': vs[0]}


def discovery(path):
    parts = path.strip('/').split('/')
    if parts == ['api']:
        return {'kind': 'APIVersions', 'versions': ['v1'],
                'serverAddressByClientCIDRs': [{'clientCIDR': '0.0.0.0/0', 'serverAddress': '127.0.0.1:443'}]}
    if parts == ['apis']:
        return {'kind': 'APIGroupList', 'apiVersion': 'v1',
                'groups': [group_entry(g, vs) for g, vs in groups().items()]}
    if len(parts) == 2 and parts[0] == 'apis' and parts[1] in groups():
        return dict(group_entry(parts[1], groups()[parts[1]]), kind='APIGroup', apiVersion='v1')
    if parts == ['api', 'v1'] or (len(parts) == 3 and parts[0] == 'apis'):
        group, version = ('', 'v1') if parts[0] == 'api' else (parts[1], parts[2])
        served = [{'name': p, 'singularName': k.lower(), 'namespaced': n, 'kind': k, 'verbs': VERBS}
                  for g, v, p, k, n in RESOURCES if (g, v) == (group, version)]
        if served:
            return {'kind': 'APIResourceList', 'apiVersion': 'v1',
                    'groupVersion': f'{group}/{version}' if group else version, 'resources': served}
    return None


def serving(serve_forever):
    """serve_forever, first giving the stub's handler discovery and the kinds above."""
    def run(server, *args, **kwargs):
        handler = server.RequestHandlerClass
        handler.do_GET.__globals__['KINDS'].update({p: k for _, _, p, k, _ in RESOURCES})
        stub_get = handler.do_GET

        def do_get(h):
            doc = discovery(h.path.split('?')[0])
            if doc is None:
                return stub_get(h)
            out = json.dumps(doc).encode()
            h.send_response(200)
            h.send_header('Content-Type', 'application/json')
            h.send_header('Content-Length', str(len(out)))
            h.end_headers()
            h.wfile.write(out)
        handler.do_GET = do_get
        return serve_forever(server, *args, **kwargs)
    return run


if __name__ == '__main__':
    http.server.ThreadingHTTPServer.serve_forever = serving(http.server.ThreadingHTTPServer.serve_forever)
    runpy.run_path(os.environ['STUB_REAL'], run_name='__main__')
