#!/usr/bin/env python3
"""Records the reference's admission policy answers (issue 31) into tests/fixtures/policy/:
scenarios.json (each scenario's host objects: Namespaces, policies, bindings, params and
webhook configurations as templates) and compare.jsonl (one line per request: the reference
apiextensions-apiserver's code, Content-Type, Warning headers and body, and the AdmissionReviews
the test webhook received meanwhile). tests/policy_compare.rs replays them.

Same machinery as hack/admission-oracle/record.py (imported: Reference, Webhook, the CRDs of
tests/fixtures/admission/crontabs.yaml, the steps): for each scenario the objects go to
$STUB_OBJECTS_FILE and the peers restart (the reference lists policies once). Three
differences: the peers run from a copy of the reference folder (in $PEERS_ROOT/run-policy, so
they do not meet another recorder's) whose stub is stub.py here (the real stub plus discovery,
for paramKind); $STUB_OPENAPI_DIR is tests/fixtures/policy/openapi (our server's OpenAPI of the
CronTab CRD: the standalone reference serves none, and MutatingAdmissionPolicy needs it); and
the stub's SubjectAccessReviews deny the verb `escalate` ($SAR_DENY_VERBS).
    PEERS_ROOT=$HOME/peers python3 hack/policy-oracle/record.py [--only NAME] [OUT.jsonl]
(--only NAME re-records one scenario, keeping the others' lines of OUT.jsonl.)
"""
import json, os, shutil, signal, sys, time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario  # noqa: E402

oracle = scenario._webhook_oracle('record')
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(oracle.ROOT, 'tests', 'fixtures', 'policy')
OPENAPI = os.path.join(FIX, 'openapi')
RUN = os.path.join(oracle.PEERS, 'run-policy')
DENY_VERBS = 'escalate'


def reference_copy():
    """A reference folder whose stub is stub.py (run-peers.sh starts `$S/stub/sar-stub.py`)."""
    copy = os.path.join(RUN, 'reference')
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(os.path.join(copy, 'stub'))
    real = oracle.REFERENCE
    for name in ('run-peers.sh', 'gen-pki.sh'):
        os.symlink(os.path.join(real, name), os.path.join(copy, name))
    os.symlink(os.path.join(real, 'stub', 'webhook.py'), os.path.join(copy, 'stub', 'webhook.py'))
    os.symlink(os.path.join(HERE, 'stub.py'), os.path.join(copy, 'stub', 'sar-stub.py'))
    os.environ.update(STUB_REAL=os.path.join(real, 'stub', 'sar-stub.py'), PEERS_RUN=RUN,
                      STUB_OPENAPI_DIR=OPENAPI, SAR_DENY_VERBS=DENY_VERBS)
    oracle.REFERENCE, oracle.RUN = copy, RUN
    oracle.OBJECTS = os.path.join(RUN, 'policy-objects.json')


def record(name, objects, steps, webhook):
    hosted = scenario.HOST_NAMESPACES + [oracle.instantiate(o, webhook) for o in objects]
    with open(oracle.OBJECTS, 'w') as f:
        json.dump(hosted, f)
    oracle.peers('stop')
    oracle.peers('start', oracle.OBJECTS)
    ref = oracle.Reference()
    oracle.create_crds(ref)
    settle(ref)
    webhook.reviews()
    out = []
    for i, step in enumerate(steps):
        headers, text, (code, ctype, warnings, body) = oracle.run_step(ref, step)
        reviews = webhook.reviews()
        out.append(dict(step, scenario=name, index=i, headers=headers, body_text=text, code=code,
                        content_type=ctype, warnings=warnings, response=body, reviews=reviews,
                        webhook=webhook.base, closed=webhook.closed))
        print(f'{name}[{i}]: {step["method"]} {step["path"]} -> {code} {warnings or ""} '
              f'{body.get("message", "") if isinstance(body, dict) and body.get("kind") == "Status" else ""}',
              file=sys.stderr)
    return out


def settle(ref):
    """Waits until the reference's policy plugins have synced: a dry-run create answers other than
    the 403 `not yet ready to handle request` (and the 503 of a type converter still without the
    OpenAPI), within 30 s; then gives the param informers a second."""
    probe = scenario.crontab('settle-probe')
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        code, _, _, body = ref.send('POST', scenario.CT + '?dryRun=All', json.dumps(probe),
                                    {'Content-Type': 'application/json', 'Accept': 'application/json'})
        text = json.dumps(body)
        if 'not yet ready' not in text and code != 503:
            break
        time.sleep(0.2)
    time.sleep(1)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    args = sys.argv[1:]
    only = None
    if args[:1] == ['--only']:
        only, args = args[1], args[2:]
    target = args[0] if args else os.path.join(FIX, 'compare.jsonl')
    os.makedirs(RUN, exist_ok=True)
    reference_copy()
    oracle.subprocess.run([os.path.join(oracle.REFERENCE, 'gen-pki.sh')],
                          env=dict(os.environ, PEERS_ROOT=oracle.PEERS), check=True)
    webhook = oracle.Webhook()
    lines, templates = [], {}
    started = time.monotonic()
    try:
        for name, objects, steps in scenario.scenarios():
            assert name not in templates, f'duplicate scenario {name}'
            templates[name] = {'namespaces': scenario.HOST_NAMESPACES, 'objects': objects}
            if only is None or only == name:
                lines += record(name, objects, steps, webhook)
    finally:
        oracle.peers('stop')
        webhook.stop()
    if only is not None and os.path.exists(target):
        order = list(templates)
        kept = [json.loads(l) for l in open(target) if json.loads(l)['scenario'] != only]
        lines = sorted(kept + lines, key=lambda r: (order.index(r['scenario']), r['index']))
    with open(target, 'w') as f:
        for rec in lines:
            f.write(json.dumps(rec, sort_keys=True) + '\n')
    with open(os.path.join(FIX, 'scenarios.json'), 'w') as f:
        json.dump(templates, f, indent=1, sort_keys=True)
        f.write('\n')
    print(f'{len(lines)} requests recorded in {len(set(r["scenario"] for r in lines))} scenarios '
          f'in {time.monotonic() - started:.0f} s', file=sys.stderr)


if __name__ == '__main__':
    main()
