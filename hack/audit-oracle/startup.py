#!/usr/bin/env python3
"""Records how the reference refuses to start (issue 33, point 2) into
tests/fixtures/audit/startup.json: for each case of invalid audit flags, audit policy file,
EncryptionConfiguration or TracingConfiguration, the reference's exit code and the lines of its
stderr that say why (`Error: ...`, klog's E/F/W lines; `error`: the text of the `command failed`
line, which is what the server prints before exiting 1, or cobra's `Error:` line; `problems`: kube's
texts inside it, see problems()), with the case's file names replaced by
`$FILE`. A case that is still running after START_TIMEOUT seconds started (recorded as
`"started": true`): the reference accepted the configuration.

The reference runs with run-peers.sh's flags but an etcd address nobody listens on, so only the
validation of the flags and files is exercised; its delegation kubeconfig is
$PEERS_ROOT/run-audit/delegation.kubeconfig (written by record.py).
    PEERS_ROOT=$HOME/peers python3 hack/audit-oracle/startup.py
"""
import json, os, re, socket, subprocess, sys, tempfile

sys.dont_write_bytecode = True
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'tests', 'fixtures', 'audit', 'startup.json')
PEERS = os.environ.get('PEERS_ROOT') or sys.exit('set PEERS_ROOT')
RUN = os.environ.get('PEERS_RUN', os.path.join(PEERS, 'run-audit'))
PKI = os.path.join(PEERS, 'pki')
START_TIMEOUT = 15

POLICY_OK = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n'
AES16 = 'MTIzNDU2Nzg5MDEyMzQ1Ng=='  # "1234567890123456"
AES32 = 'MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI='  # 32 bytes


def enc(resources):
    return json.dumps({'apiVersion': 'apiserver.config.k8s.io/v1', 'kind': 'EncryptionConfiguration',
                       'resources': resources})


def one(providers, resources=('crontabs.stable.example.com',)):
    return enc([{'resources': list(resources), 'providers': providers}])


def aes(kind, secret, name='k1'):
    return {kind: {'keys': [{'name': name, 'secret': secret}]}}


def tracing(body):
    return 'apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n' + body


# (name, flags with $FILE for the case's file, the file's text or None)
CASES = [
    # --- audit flags
    ('audit_log_format_unknown', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-format', 'yaml'], None),
    ('audit_log_maxage_negative', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-maxage', '-1'], None),
    ('audit_log_maxbackup_negative', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-maxbackup', '-1'], None),
    ('audit_log_maxsize_negative', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-maxsize', '-1'], None),
    ('audit_log_all_negative', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-maxage', '-1',
                                '--audit-log-maxbackup', '-2', '--audit-log-maxsize', '-3', '--audit-log-format', 'xml'], None),
    ('audit_log_mode_unknown', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-mode', 'sometimes'], None),
    ('audit_log_version_unknown', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-version', 'audit.k8s.io/v2'], None),
    ('audit_log_version_v1beta1', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-version', 'audit.k8s.io/v1beta1'], None),
    ('audit_log_batch_buffer_zero', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-mode', 'batch', '--audit-log-batch-buffer-size', '0'], None),
    ('audit_log_batch_max_size_zero', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-mode', 'batch', '--audit-log-batch-max-size', '0'], None),
    ('audit_log_batch_throttle_qps_zero', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-mode', 'batch', '--audit-log-batch-throttle-enable', '--audit-log-batch-throttle-qps', '0'], None),
    ('audit_log_truncate_size_zero', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-truncate-enabled', '--audit-log-truncate-max-event-size', '0'], None),
    ('audit_log_truncate_batch_below_event', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-truncate-enabled',
                                              '--audit-log-truncate-max-event-size', '2000', '--audit-log-truncate-max-batch-size', '1000'], None),
    ('audit_log_maxage_not_a_number', ['--audit-policy-file', '$POLICY', '--audit-log-path', '$LOG', '--audit-log-maxage', 'ten'], None),
    ('audit_log_path_without_policy', ['--audit-log-path', '$LOG'], None),
    ('audit_log_path_unwritable', ['--audit-policy-file', '$POLICY', '--audit-log-path', '/proc/no/such/dir/audit.log'], None),
    ('audit_webhook_mode_unknown', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '$WEBHOOK', '--audit-webhook-mode', 'eventually'], None),
    ('audit_webhook_config_missing', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '/nonexistent/webhook.kubeconfig'], None),
    ('audit_webhook_batch_max_size_zero', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '$WEBHOOK', '--audit-webhook-batch-max-size', '0'], None),
    ('audit_webhook_truncate_size_zero', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '$WEBHOOK', '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-event-size', '0'], None),
    ('audit_webhook_initial_backoff_zero', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '$WEBHOOK', '--audit-webhook-initial-backoff', '0s'], None),
    ('audit_webhook_version_unknown', ['--audit-policy-file', '$POLICY', '--audit-webhook-config-file', '$WEBHOOK', '--audit-webhook-version', 'audit.k8s.io/v9'], None),
    # --- audit policy files
    ('policy_missing', ['--audit-policy-file', '/nonexistent/policy.yaml', '--audit-log-path', '$LOG'], None),
    ('policy_not_yaml', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'rules: [\n'),
    ('policy_empty_file', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], ''),
    ('policy_no_kind', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nrules:\n- level: Metadata\n'),
    ('policy_wrong_version', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v2\nkind: Policy\nrules:\n- level: Metadata\n'),
    ('policy_v1beta1', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n'),
    ('policy_wrong_kind', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Event\nrules:\n- level: Metadata\n'),
    ('policy_no_rules', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Policy\n'),
    ('policy_empty_rules', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n'),
    ('policy_unknown_field', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], POLICY_OK + '  colour: red\n'),
    ('policy_duplicate_field', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], POLICY_OK + '  level: None\n'),
    ('policy_level_missing', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- verbs: [get]\n'),
    ('policy_level_unknown', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Verbose\n'),
    ('policy_level_lowercase', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: metadata\n'),
    ('policy_resources_and_urls', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: ""}]\n  nonResourceURLs: ["/healthz"]\n'),
    ('policy_url_without_slash', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  nonResourceURLs: ["healthz"]\n'),
    ('policy_url_inner_star', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  nonResourceURLs: ["/api/*/x"]\n'),
    ('policy_group_invalid', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "Not_A.Group"}]\n'),
    ('policy_resource_names_without_resources', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resourceNames: [x]}]\n'),
    ('policy_omit_stage_unknown', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived, Bogus]\nrules:\n- level: Metadata\n'),
    ('policy_rule_omit_stage_unknown', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [ResponseStarted, Never]\n'),
    ('policy_many_errors', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Bogus]\nrules:\n- level: Loud\n  nonResourceURLs: ["x*y"]\n- level: Metadata\n  resources: [{group: "A", resourceNames: [x]}]\n'),
    ('policy_json', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'],
     '{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata"}]}'),
    ('policy_multi_document', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], POLICY_OK + '---\n' + POLICY_OK),
    # --- EncryptionConfiguration
    ('encryption_missing', ['--encryption-provider-config', '/nonexistent/enc.yaml'], None),
    ('encryption_not_yaml', ['--encryption-provider-config', '$FILE'], 'resources: [\n'),
    ('encryption_empty_file', ['--encryption-provider-config', '$FILE'], ''),
    ('encryption_wrong_kind', ['--encryption-provider-config', '$FILE'], json.dumps({'apiVersion': 'apiserver.config.k8s.io/v1', 'kind': 'Policy', 'resources': []})),
    ('encryption_wrong_version', ['--encryption-provider-config', '$FILE'], json.dumps({'apiVersion': 'apiserver.config.k8s.io/v2', 'kind': 'EncryptionConfiguration'})),
    ('encryption_v1beta1', ['--encryption-provider-config', '$FILE'], json.dumps({'apiVersion': 'apiserver.config.k8s.io/v1beta1', 'kind': 'EncryptionConfiguration', 'resources': []})),
    ('encryption_no_resources', ['--encryption-provider-config', '$FILE'], enc([])),
    ('encryption_resource_list_empty', ['--encryption-provider-config', '$FILE'], enc([{'resources': [], 'providers': [{'identity': {}}]}])),
    ('encryption_no_providers', ['--encryption-provider-config', '$FILE'], enc([{'resources': ['crontabs.stable.example.com'], 'providers': []}])),
    ('encryption_empty_provider', ['--encryption-provider-config', '$FILE'], one([{}])),
    ('encryption_two_providers_in_one', ['--encryption-provider-config', '$FILE'], one([dict(aes('aesgcm', AES16), identity={})])),
    ('encryption_unknown_field', ['--encryption-provider-config', '$FILE'], one([{'identity': {}, 'rot13': {}}])),
    ('encryption_aesgcm_no_keys', ['--encryption-provider-config', '$FILE'], one([{'aesgcm': {'keys': []}}])),
    ('encryption_aesgcm_key_no_name', ['--encryption-provider-config', '$FILE'], one([aes('aesgcm', AES16, name='')])),
    ('encryption_aesgcm_key_no_secret', ['--encryption-provider-config', '$FILE'], one([aes('aesgcm', '')])),
    ('encryption_aesgcm_secret_not_base64', ['--encryption-provider-config', '$FILE'], one([aes('aesgcm', 'not base64!')])),
    ('encryption_aesgcm_secret_wrong_length', ['--encryption-provider-config', '$FILE'], one([aes('aesgcm', 'MTIzNDU2Nzg5MA==')])),
    ('encryption_aescbc_secret_wrong_length', ['--encryption-provider-config', '$FILE'], one([aes('aescbc', 'MTIzNDU2Nzg5MA==')])),
    ('encryption_aescbc_16_byte_key', ['--encryption-provider-config', '$FILE'], one([aes('aescbc', AES16)])),
    ('encryption_secretbox_16_byte_key', ['--encryption-provider-config', '$FILE'], one([aes('secretbox', AES16)])),
    ('encryption_duplicate_key_names', ['--encryption-provider-config', '$FILE'],
     one([{'aesgcm': {'keys': [{'name': 'k1', 'secret': AES16}, {'name': 'k1', 'secret': AES32}]}}])),
    ('encryption_key_name_with_colon', ['--encryption-provider-config', '$FILE'], one([aes('aesgcm', AES16, name='a:b')])),
    ('encryption_resource_uppercase', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['CronTabs.stable.example.com'])),
    ('encryption_resource_star', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['*'])),
    ('encryption_resource_across_groups', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['crontabs.*'])),
    ('encryption_resource_events_k8s_io', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['*.events.k8s.io'])),
    ('encryption_resource_extensions', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['deployments.extensions'])),
    ('encryption_resource_not_rest', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['serviceipallocations'])),
    ('encryption_resource_duplicate', ['--encryption-provider-config', '$FILE'],
     one([{'identity': {}}], ['crontabs.stable.example.com', 'crontabs.stable.example.com'])),
    ('encryption_resource_overlap', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}], ['crontabs.stable.example.com', '*.*'])),
    ('encryption_resource_overlap_group', ['--encryption-provider-config', '$FILE'],
     one([{'identity': {}}], ['crontabs.stable.example.com', '*.stable.example.com'])),
    ('encryption_resource_in_two_entries', ['--encryption-provider-config', '$FILE'],
     enc([{'resources': ['crontabs.stable.example.com'], 'providers': [{'identity': {}}]},
          {'resources': ['crontabs.stable.example.com'], 'providers': [aes('aesgcm', AES16)]}])),
    ('encryption_kms_no_name', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'endpoint': 'unix:///tmp/kms.sock'}}])),
    ('encryption_kms_no_endpoint', ['--encryption-provider-config', '$FILE'], one([{'kms': {'apiVersion': 'v2', 'name': 'k'}}])),
    ('encryption_kms_tcp_endpoint', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'name': 'k', 'endpoint': 'tcp://127.0.0.1:1'}}])),
    ('encryption_kms_v3', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v3', 'name': 'k', 'endpoint': 'unix:///tmp/kms.sock'}}])),
    ('encryption_kms_v2_cachesize', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'name': 'k', 'endpoint': 'unix:///tmp/kms.sock', 'cachesize': 10}}])),
    ('encryption_kms_timeout_zero', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'name': 'k', 'endpoint': 'unix:///tmp/kms.sock', 'timeout': '0s'}}])),
    ('encryption_kms_name_colon', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'name': 'k:1', 'endpoint': 'unix:///tmp/kms.sock'}}])),
    ('encryption_kms_duplicate_names', ['--encryption-provider-config', '$FILE'],
     one([{'kms': {'apiVersion': 'v2', 'name': 'k', 'endpoint': 'unix:///tmp/kms.sock'}},
          {'kms': {'apiVersion': 'v2', 'name': 'k', 'endpoint': 'unix:///tmp/kms2.sock'}}])),
    ('encryption_many_errors', ['--encryption-provider-config', '$FILE'],
     enc([{'resources': ['Crontabs', '*'], 'providers': [aes('aesgcm', 'xx', name=''), {}]}, {'resources': [], 'providers': []}])),
    ('encryption_reload_flag_without_config', ['--encryption-provider-config-automatic-reload'], None),
    # --- TracingConfiguration
    ('tracing_missing', ['--tracing-config-file', '/nonexistent/tracing.yaml'], None),
    ('tracing_not_yaml', ['--tracing-config-file', '$FILE'], 'endpoint: [\n'),
    ('tracing_wrong_kind', ['--tracing-config-file', '$FILE'], 'apiVersion: apiserver.config.k8s.io/v1\nkind: Policy\n'),
    ('tracing_wrong_version', ['--tracing-config-file', '$FILE'], 'apiVersion: apiserver.config.k8s.io/v2\nkind: TracingConfiguration\n'),
    ('tracing_v1beta1', ['--tracing-config-file', '$FILE'], 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:4317\n'),
    ('tracing_v1alpha1', ['--tracing-config-file', '$FILE'], 'apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:4317\n'),
    ('tracing_rate_negative', ['--tracing-config-file', '$FILE'], tracing('samplingRatePerMillion: -1\n')),
    ('tracing_rate_above_million', ['--tracing-config-file', '$FILE'], tracing('samplingRatePerMillion: 1000001\n')),
    ('tracing_endpoint_invalid', ['--tracing-config-file', '$FILE'], tracing('endpoint: "http://[::1"\n')),
    ('tracing_endpoint_with_scheme', ['--tracing-config-file', '$FILE'], tracing('endpoint: "http://127.0.0.1:4317"\n')),
    ('tracing_unknown_field', ['--tracing-config-file', '$FILE'], tracing('endpoint: 127.0.0.1:4317\ncolour: red\n')),
    ('tracing_empty_file', ['--tracing-config-file', '$FILE'], ''),
    ('tracing_ok', ['--tracing-config-file', '$FILE'], tracing('endpoint: 127.0.0.1:4317\nsamplingRatePerMillion: 0\n')),
    ('encryption_ok', ['--encryption-provider-config', '$FILE'], one([{'identity': {}}, aes('aesgcm', AES16)])),
    ('policy_ok', ['--audit-policy-file', '$FILE', '--audit-log-path', '$LOG'], POLICY_OK),
]


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def base_flags(tmp):
    kubeconfig = os.path.join(RUN, 'delegation.kubeconfig')
    return [os.path.join(PEERS, 'bin', 'apiextensions-apiserver'),
            '--etcd-servers', f'http://127.0.0.1:{free_port()}', '--etcd-prefix', '/registry/apiext',
            '--bind-address', '127.0.0.1', '--secure-port', str(free_port()),
            '--tls-cert-file', f'{PKI}/apiext.crt', '--tls-private-key-file', f'{PKI}/apiext.key',
            '--client-ca-file', f'{PKI}/ca.crt',
            '--authentication-kubeconfig', kubeconfig, '--authentication-skip-lookup',
            '--authorization-kubeconfig', kubeconfig, '--kubeconfig', kubeconfig,
            '--cert-dir', os.path.join(tmp, 'certs')]


def reasons(stderr):
    """The lines that say why the reference stopped: cobra's `Error: ...` and klog's error
    and fatal lines, without their timestamp/pid/file prefix; the usage text is dropped."""
    out = []
    for line in stderr.splitlines():
        if 'addrConn.createTransport' in line or 'connection refused' in line:
            continue  # the etcd client dialling nobody
        m = re.match(r'^[EFW]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] (.*)$', line)
        if m:
            out.append(line[0] + ' ' + m.group(1))
        elif line.startswith('Error: ') or line.startswith('error: '):
            out.append(line)
    return out


# What wraps kube's validation texts (the option's context) and where a text turns into Go's own
# wording (OS errors, the YAML/JSON decoders, scheme source paths): `problems` keeps the rest.
WRAPPERS = ('loading audit policy file: ', 'error while parsing file: ', 'failed to validate tracing configuration: ',
            'failed to read tracing config: ', 'Error: ')
GO_WORDING = (' in scheme "', ': open ', ': stat ', ': mkdir ', 'yaml: ', 'json: ', ': strconv.')
FIELD = r'(?:resources|rules|omitStages|samplingRatePerMillion|endpoint)[\w\[\].]*: |invalid audit |--audit-'


def problems(error):
    """kube's texts in `error` that a server must print as they are: without the wrappers, one per
    aggregated error, cut where Go's own wording begins."""
    if error is None:
        return []
    text = error
    for w in WRAPPERS:
        text = text.removeprefix(w)
    text = text.removesuffix(': from file $FILE')
    parts = [text]
    if text.startswith('[') and text.endswith(']'):
        parts = re.split(r', (?=' + FIELD + ')', text[1:-1])
    out = []
    for part in parts:
        for marker in GO_WORDING:
            part = part.split(marker)[0]
        out.append(part.rstrip(': '))
    return [p for p in out if p]


def run(name, flags, text, tmp):
    file = os.path.join(tmp, f'{name}.yaml')
    if text is not None:
        with open(file, 'w') as f:
            f.write(text)
    policy = os.path.join(tmp, 'policy.yaml')
    webhook = os.path.join(tmp, 'webhook.kubeconfig')
    log = os.path.join(tmp, 'audit.log')
    subst = {'$FILE': file, '$POLICY': policy, '$WEBHOOK': webhook, '$LOG': log}
    args = base_flags(tmp) + [subst.get(a, a) for a in flags]
    try:
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=START_TIMEOUT)
        code, stderr, started = done.returncode, done.stderr, False
    except subprocess.TimeoutExpired as e:
        code, stderr, started = None, (e.stderr or b'').decode(errors='replace'), True
    for path, shown in ((file, '$FILE'), (policy, '$POLICY'), (webhook, '$WEBHOOK'), (log, '$LOG'), (tmp, '$TMP')):
        stderr = stderr.replace(path, shown)
    lines = reasons(stderr)
    if started:
        lines = [l for l in lines if 'etcd' not in l and 'connection' not in l.lower()][:5]
    errors = [json.loads(m.group(1)) for m in (re.match(r'^E "command failed" err=(".*")$', l) for l in lines) if m]
    cobra = [l for l in lines if l.startswith('Error: ')]
    error = errors[0] if errors else (cobra[0] if cobra else None)
    return {'flags': flags, 'file': text, 'exit_code': code, 'started': started, 'stderr': lines,
            'error': error, 'problems': problems(error)}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'policy.yaml'), 'w') as f:
            f.write(POLICY_OK)
        with open(os.path.join(tmp, 'webhook.kubeconfig'), 'w') as f:
            f.write(open(os.path.join(RUN, 'delegation.kubeconfig')).read())
        out = {}
        only = sys.argv[1:]
        if only and os.path.exists(OUT):
            out = json.load(open(OUT))
        for name, flags, text in CASES:
            if only and name not in only:
                continue
            out[name] = run(name, flags, text, tmp)
            print(name, out[name]['exit_code'], out[name]['stderr'][:3], file=sys.stderr)
    with open(OUT, 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
