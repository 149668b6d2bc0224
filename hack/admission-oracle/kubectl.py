#!/usr/bin/env python3
"""Records what the real kubectl prints when a webhook denies or warns (issue 30: "`kubectl apply`
of an object a webhook denies prints kube's error text") against the reference, into
tests/fixtures/admission/kubectl.json: for each command its arguments, exit code, stdout and stderr
(the webhook's address replaced by <webhook>). Same set-up as record.py (its docstring); run:
    PEERS_ROOT=$HOME/peers python3 hack/admission-oracle/kubectl.py
"""
import json, os, signal, subprocess, sys, tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(__file__))
import record  # noqa: E402
import scenario  # noqa: E402

KUBECTL = os.environ.get('KUBECTL', '/usr/bin/kubectl')
CONFIGS = [
    scenario.mutating('mutate', scenario.hook('mutate.crontabs.example.com', '/mutate', mutating=True,
                                              rules=[scenario.rule(('CREATE',))])),
    scenario.validating('validate', scenario.hook(scenario.VALIDATE, '/validate')),
]


def manifest(name, labels):
    return json.dumps(scenario.crontab(name, labels))


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    subprocess.run([os.path.join(record.REFERENCE, 'gen-pki.sh')], env=dict(os.environ, PEERS_ROOT=record.PEERS),
                   check=True)
    webhook = record.Webhook()
    out = []
    try:
        objects = scenario.NAMESPACES + [record.instantiate(c, webhook) for c in CONFIGS]
        with open(record.OBJECTS, 'w') as f:
            json.dump(objects, f)
        record.peers('stop')
        record.peers('start', record.OBJECTS)
        record.create_crds(record.Reference())
        kubeconfig = os.path.join(record.RUN, 'admin.kubeconfig')
        with tempfile.TemporaryDirectory() as d:
            for name, labels, verb in [('kd1', {'deny': 'true'}, 'apply'), ('kd2', None, 'apply'),
                                       ('kd3', {'deny': 'true'}, 'create'),
                                       ('kd2', None, 'apply-server-side'), ('kd2', {'deny': 'true'}, 'apply')]:
                path = os.path.join(d, f'{name}.json')
                with open(path, 'w') as f:
                    f.write(manifest(name, labels))
                # The standalone reference serves no OpenAPI, so kubectl cannot validate.
                args = {'apply': ['apply', '--validate=false', '-f'], 'create': ['create', '--validate=false', '-f'],
                        'apply-server-side': ['apply', '--server-side', '--validate=false', '-f']}[verb]
                args = args + [f'{name}.json']
                done = subprocess.run([KUBECTL, '--kubeconfig', kubeconfig, *args], cwd=d,
                                      capture_output=True, text=True)
                rec = {'args': args, 'labels': labels, 'exit': done.returncode,
                       'stdout': done.stdout.replace(webhook.base, '<webhook>'),
                       'stderr': done.stderr.replace(webhook.base, '<webhook>')}
                out.append(rec)
                print(json.dumps(rec), file=sys.stderr)
    finally:
        record.peers('stop')
        webhook.stop()
    with open(os.path.join(record.FIX, 'kubectl.json'), 'w') as f:
        json.dump({'configurations': CONFIGS, 'runs': out}, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
