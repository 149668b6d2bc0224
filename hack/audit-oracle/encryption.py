#!/usr/bin/env python3
"""Records what the reference writes into etcd with an EncryptionConfiguration (issue 33, point 5)
into tests/fixtures/encryption/: config-<case>.yaml (the EncryptionConfiguration of each case, with
fixed known keys), all-keys.yaml (one configuration listing every key of every case, so that one
server can read them all) and values.json: per case, the etcd key, the raw value bytes (base64) and
the object the reference served for it (GET, JSON); unreadable.json: the reference's answers to a GET
and a LIST of the aesgcm case's value under configurations without its key (config-wrong_key.yaml,
config-identity_only.yaml). tests/encryption_compare.rs writes the values
into a real etcd under the same keys and reads them through crd-apiserver.

Cases: the first provider is aesgcm (key k1), aesgcm with k2 first (k1 second: rotation), aescbc,
secretbox, and identity first (plaintext stored although aesgcm is listed).
    PEERS_ROOT=$HOME/peers python3 hack/audit-oracle/encryption.py
"""
import base64, json, os, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(__file__))
import record  # noqa: E402
import scenario  # noqa: E402

FIX = os.path.join(record.ROOT, 'tests', 'fixtures', 'encryption')
RESOURCE = 'crontabs.stable.example.com'
PREFIX = '/registry/apiext'


def key(text):
    assert len(text) == 32
    return base64.b64encode(text.encode()).decode()


AESGCM_K1 = {'name': 'k1', 'secret': key('aesgcm-k1-0123456789abcdefghijkl')}
AESGCM_K2 = {'name': 'k2', 'secret': key('aesgcm-k2-0123456789abcdefghijkl')}
AESCBC_K1 = {'name': 'k1', 'secret': key('aescbc-k1-0123456789abcdefghijkl')}
SECRETBOX_K1 = {'name': 'k1', 'secret': key('secretbox-k1-0123456789abcdefghi')}
AESGCM = {'aesgcm': {'keys': [AESGCM_K1, AESGCM_K2]}}
AESGCM_ROTATED = {'aesgcm': {'keys': [AESGCM_K2, AESGCM_K1]}}
AESCBC = {'aescbc': {'keys': [AESCBC_K1]}}
SECRETBOX = {'secretbox': {'keys': [SECRETBOX_K1]}}
IDENTITY = {'identity': {}}

CASES = {
    'aesgcm': [AESGCM, AESCBC, SECRETBOX, IDENTITY],
    'aesgcm_rotated': [AESGCM_ROTATED, AESCBC, SECRETBOX, IDENTITY],
    'aescbc': [AESCBC, AESGCM, SECRETBOX, IDENTITY],
    'secretbox': [SECRETBOX, AESGCM, AESCBC, IDENTITY],
    'identity': [IDENTITY, AESGCM, AESCBC, SECRETBOX],
}


def configuration(providers):
    return {'apiVersion': 'apiserver.config.k8s.io/v1', 'kind': 'EncryptionConfiguration',
            'resources': [{'resources': [RESOURCE], 'providers': providers}]}


def write(path, value):
    with open(path, 'w') as f:
        f.write('# Recorded by hack/audit-oracle/encryption.py (test keys, not secrets).\n')
        f.write(json.dumps(value, indent=1) + '\n')


def etcd_value(ref, key_name):
    etcdctl = os.path.join(record.PEERS, 'etcd', 'usr', 'bin', 'etcdctl')
    out = subprocess.run([etcdctl, '--endpoints', ref.env['ETCD_URL'], 'get', key_name, '-w', 'json'],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    kvs = json.loads(out).get('kvs') or []
    assert len(kvs) == 1, out
    return kvs[0]['value']  # base64 already


def header(raw):
    """The `k8s:enc:<provider>:v1:<key name>:` prefix of a stored value ('' for plaintext)."""
    value = base64.b64decode(raw)
    if not value.startswith(b'k8s:enc:'):
        return ''
    parts = value.split(b':', 5)
    return b':'.join(parts[:5]).decode() + ':'


# Reading values the configuration has no key for: the aesgcm case's value under a
# configuration whose k1 is another secret, and under identity alone.
WRONG_K1 = {'name': 'k1', 'secret': key('aesgcm-k1-but-another-secret-xyz')}
UNREADABLE = {
    'wrong_key': [{'aesgcm': {'keys': [WRONG_K1]}}, IDENTITY],
    'identity_only': [IDENTITY],
}


def etcd_put(ref, key_name, raw):
    etcdctl = os.path.join(record.PEERS, 'etcd', 'usr', 'bin', 'etcdctl')
    subprocess.run([etcdctl, '--endpoints', ref.env['ETCD_URL'], 'put', key_name], input=base64.b64decode(raw),
                   check=True, stdout=subprocess.DEVNULL)


def unreadable(values):
    """What the reference answers for a GET and a LIST of a value it cannot decrypt."""
    out = {}
    for case, providers in UNREADABLE.items():
        config = os.path.join(FIX, f'config-{case}.yaml')
        write(config, configuration(providers))
        record.peers('stop')
        record.peers('start', None, ['--encryption-provider-config', config])
        ref = record.Reference()
        record.create_crds(ref)
        etcd_put(ref, values['aesgcm']['key'], values['aesgcm']['value_base64'])
        name = values['aesgcm']['key'].rsplit('/', 1)[1]
        accept = {'Accept': 'application/json'}
        get_code, _, _, get_body = ref.send('GET', f'{scenario.CT}/{name}', None, accept)
        list_code, _, _, list_body = ref.send('GET', scenario.CT, None, accept)
        out[case] = {'get': {'path': f'{scenario.CT}/{name}', 'code': get_code, 'body': get_body},
                     'list': {'path': scenario.CT, 'code': list_code, 'body': list_body}}
        print(case, get_code, list_code, json.dumps(get_body)[:200], file=sys.stderr)
    return out


def main():
    os.makedirs(FIX, exist_ok=True)
    os.makedirs(record.RUN, exist_ok=True)
    write(os.path.join(FIX, 'all-keys.yaml'), configuration([AESGCM, AESCBC, SECRETBOX, IDENTITY]))
    values = {}
    try:
        for case, providers in CASES.items():
            config = os.path.join(FIX, f'config-{case}.yaml')
            write(config, configuration(providers))
            record.peers('stop')
            record.peers('start', None, ['--encryption-provider-config', config])
            ref = record.Reference()
            record.create_crds(ref)
            name = f'secret-{case.replace("_", "-")}'
            body = json.dumps(scenario.crontab(name, labels={'case': case}))
            headers = {'Accept': 'application/json', 'Content-Type': 'application/json', 'User-Agent': scenario.USER_AGENT}
            code, _, _, created = ref.send('POST', scenario.CT, body, headers)
            assert code == 201, created
            code, _, _, served = ref.send('GET', f'{scenario.CT}/{name}', None, {'Accept': 'application/json'})
            assert code == 200, served
            etcd_key = f'{PREFIX}/stable.example.com/crontabs/default/{name}'
            raw = etcd_value(ref, etcd_key)
            values[case] = {'key': etcd_key, 'value_base64': raw, 'served': served, 'prefix': header(raw)}
            print(case, etcd_key, values[case]['prefix'][:30], file=sys.stderr)
        failures = unreadable(values)
    finally:
        record.peers('stop')
    with open(os.path.join(FIX, 'values.json'), 'w') as f:
        json.dump(values, f, indent=1, sort_keys=True)
        f.write('\n')
    with open(os.path.join(FIX, 'unreadable.json'), 'w') as f:
        json.dump(failures, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
