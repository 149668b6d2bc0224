#!/usr/bin/env python3
"""Records how the reference rotates its audit log (--audit-log-maxsize 1, --audit-log-maxbackup,
--audit-log-compress) into tests/fixtures/audit/rotation.json: per case, the files left in the log's
directory after about 6 MB of events (800 GETs of a 4 kB object at RequestResponse) (names with the timestamp masked, whether each is gzip, whether
every file holds whole lines only, whether every file but the current one is within maxsize).
    PEERS_ROOT=$HOME/peers python3 hack/audit-oracle/rotation.py
"""
import gzip, json, os, re, shutil, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(__file__))
import record  # noqa: E402
import scenario  # noqa: E402

OUT = os.path.join(record.ROOT, 'tests', 'fixtures', 'audit', 'rotation.json')
CASES = {
    'maxsize_1': ['--audit-log-maxsize', '1'],
    'maxsize_1_maxbackup_2': ['--audit-log-maxsize', '1', '--audit-log-maxbackup', '2'],
    'maxsize_1_compress': ['--audit-log-maxsize', '1', '--audit-log-compress'],
}
# GETs of a 4 kB object at RequestResponse: about 6 MB of events (six times maxsize).
REQUESTS = 800


def masked(name):
    return re.sub(r'\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}', '<time>', name)


def survey(directory):
    files = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        raw = open(path, 'rb').read()
        compressed = raw[:2] == b'\x1f\x8b'
        text = (gzip.decompress(raw) if compressed else raw).decode()
        whole = all(line.startswith('{') and line.endswith('}') for line in text.splitlines()) and text.endswith('\n')
        files.append({'name': masked(name), 'gzip': compressed, 'whole_lines': whole,
                      'size_within_1MiB': len(text) <= 1024 * 1024, 'lines': len(text.splitlines())})
    return files


def main():
    out = {}
    try:
        for case, flags in CASES.items():
            directory = os.path.join(record.RUN, f'rotation-{case}')
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
            policy = os.path.join(record.RUN, 'rotation-policy.yaml')
            with open(policy, 'w') as f:
                f.write('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n')
            log = os.path.join(directory, 'audit.log')
            record.peers('stop')
            record.peers('start', None, ['--audit-policy-file', policy, '--audit-log-path', log] + flags)
            ref = record.Reference()
            record.create_crds(ref)
            headers = {'Accept': 'application/json', 'Content-Type': 'application/json', 'User-Agent': scenario.USER_AGENT}
            body = json.dumps(scenario.crontab('big', spec={'image': 'x' * 4000}))
            code, _, _, _ = ref.send('POST', scenario.CT, body, headers)
            assert code == 201
            for _ in range(REQUESTS):
                ref.send('GET', f'{scenario.CT}/big', None, headers)
            record.eventually('compression done', lambda: not any(n.endswith('.log') and n != 'audit.log' and flags[-1] == '--audit-log-compress'
                                                                   for n in os.listdir(directory)), 30)
            out[case] = {'flags': flags, 'files': survey(directory)}
            print(case, [(f['name'], f['gzip']) for f in out[case]['files']], file=sys.stderr)
    finally:
        record.peers('stop')
    with open(OUT, 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
