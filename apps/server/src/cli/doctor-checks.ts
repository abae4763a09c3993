import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { authConfig } from '@app/auth';
import { validateEnv } from '@app/config';
import {
  checkLlmProvider,
  loadHarnessConfig,
  loadLlmConfig,
  probeRedisAccess,
  redisConfig,
} from '@app/harness';
import {
  checkKnowledgeBackend,
  checkLogBackend,
  configProblemsOf,
  inspectDataSource,
  describeColumnRules,
  loadMysqlToolsConfig,
  refuseServiceDatabase,
  ToolsEnv,
} from '@app/tools';
import type { DoctorFinding, MysqlDataSourceConfig } from '@app/tools';
import { buildDataSourceOptions, databaseConfig, inspectServiceDatabase } from '@app/trace';
import type { ServiceDatabaseState } from '@app/trace';
import { appConfig } from '../config/app.config';
import { CONFIG_NAMESPACES, validateConfiguration } from '../config/configuration';
import { assertWebUiBuilt } from '../web/web-ui.module';

/** One line of `npm run doctor` (the libs' checks return the same shape). */
export type Finding = DoctorFinding;

/** Every config slice and the built web UI, as start-up checks them: the problems that would stop the service. */
export function checkConfiguration(): Finding[] {
  const problems = new Set<string>();
  // Each slice on its own, so one bad key does not hide the others; then the cross-lib rules.
  for (const check of [...CONFIG_NAMESPACES, validateConfiguration, () => assertWebUiBuilt(appConfig())]) {
    try {
      check();
    } catch (error) {
      for (const problem of configProblemsOf(error)) problems.add(problem);
    }
  }
  const findings: Finding[] = [];
  if (problems.size > 0) {
    findings.push({
      check: 'configuration',
      verdict: 'FAIL',
      message: `the service would not start: ${[...problems].join('; ')}`,
      fix: 'set the named keys (docs/configuration-reference.md)',
    });
  } else {
    findings.push({ check: 'configuration', verdict: 'OK', message: 'every setting is valid' });
  }
  try {
    if (authConfig().apiKeys.length === 0) {
      findings.push({
        check: 'configuration',
        verdict: 'WARN',
        message: 'API_KEYS is empty: every request except /health would be refused with 401',
        fix: 'set API_KEYS (docs/getting-started-own-data.md)',
      });
    }
  } catch {
    // already reported above
  }
  return findings;
}

const DB_CONNECT_REASONS: Record<string, string> = {
  ER_ACCESS_DENIED_ERROR: 'the server rejected DB_USER/DB_PASSWORD',
  ECONNREFUSED: 'nothing listens at DB_HOST:DB_PORT',
  ENOTFOUND: 'DB_HOST does not resolve',
  ETIMEDOUT: 'DB_HOST:DB_PORT did not answer in time',
};

/** The service database: reachable, migrated; returns its state for the knowledge-base check. */
export async function checkServiceDatabase(): Promise<{
  findings: Finding[];
  state: ServiceDatabaseState | null;
}> {
  const check = 'service database';
  let config: ReturnType<typeof databaseConfig>;
  try {
    config = databaseConfig();
  } catch (error) {
    return {
      findings: [
        { check, verdict: 'FAIL', message: configProblemsOf(error).join('; '), fix: 'set the DB_* keys' },
      ],
      state: null,
    };
  }
  const where = `${config.database} on ${config.host}:${config.port}`;
  let dataSource: DataSource;
  try {
    dataSource = await new DataSource({
      ...buildDataSourceOptions(config),
      poolSize: 1,
      extra: {},
    }).initialize();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code === 'ER_BAD_DB_ERROR') {
      return {
        findings: [
          {
            check,
            verdict: 'FAIL',
            message: `database ${config.database} does not exist on ${config.host}:${config.port}`,
            fix: 'run `npm run migration:run -- --create-database` (creates it and applies the migrations)',
          },
        ],
        state: null,
      };
    }
    return {
      findings: [
        {
          check,
          verdict: 'FAIL',
          message: `cannot connect to ${where}: ${DB_CONNECT_REASONS[code] ?? `connection failed (${code || 'unknown error'})`}`,
          fix: 'check DB_HOST, DB_PORT, DB_USER and DB_PASSWORD, and that MariaDB/MySQL runs',
        },
      ],
      state: null,
    };
  }
  try {
    const state = await inspectServiceDatabase(dataSource);
    const pending = state.pendingMigrations;
    if (pending.length === 0) {
      return {
        findings: [{ check, verdict: 'OK', message: `${where}: reachable, every migration applied` }],
        state,
      };
    }
    const message = `${where}: ${pending.length} migration(s) not applied (${pending.join(', ')})`;
    return {
      findings: [
        config.migrationsRun
          ? {
              check,
              verdict: 'WARN',
              message: `${message}; the service applies them at start-up (DB_MIGRATIONS_RUN=true)`,
              fix: 'nothing, or apply them now: `npm run migration:run`',
            }
          : {
              check,
              verdict: 'FAIL',
              message: `${message} and DB_MIGRATIONS_RUN=false`,
              fix: 'run `npm run migration:run`',
            },
      ],
      state,
    };
  } finally {
    await dataSource.destroy();
  }
}

/** Redis: reachable, and the ACL user may run the evidence store's and the rate limit's commands. */
export async function checkRedis(): Promise<Finding[]> {
  const check = 'redis';
  let config: ReturnType<typeof redisConfig>;
  let harness: ReturnType<typeof loadHarnessConfig>;
  try {
    config = redisConfig();
    harness = loadHarnessConfig();
  } catch (error) {
    return [
      { check, verdict: 'FAIL', message: configProblemsOf(error).join('; '), fix: 'set the named keys' },
    ];
  }
  const where =
    config.clusterNodes.length > 0
      ? 'the Redis Cluster (REDIS_CLUSTER_NODES)'
      : `${config.host}:${config.port}`;
  const user = config.username ?? 'default';
  const access = await probeRedisAccess(config, harness);
  if (access.connectError !== null) {
    return [
      {
        check,
        verdict: 'FAIL',
        message: `cannot use ${where}: ${access.connectError}`,
        fix: 'check REDIS_HOST/REDIS_PORT (or REDIS_CLUSTER_NODES), REDIS_USERNAME and REDIS_PASSWORD, and that Redis runs',
      },
    ];
  }
  const findings: Finding[] = [];
  const evidenceRule = `~${harness.evidence.keyPrefix}:* +get +eval +exists +strlen +set +incrby +decrby +ttl +expire`;
  if (!access.ping) {
    findings.push({
      check,
      verdict: 'FAIL',
      message: `ACL user ${user} may not PING (the health check)`,
      fix: `ACL SETUSER ${user} +ping`,
    });
  }
  if (!access.evidence) {
    findings.push({
      check,
      verdict: 'FAIL',
      message: `ACL user ${user} may not write evidence records: every diagnosis would end in the fallback`,
      fix: `ACL SETUSER ${user} ${evidenceRule} (docs/configuration.md "Redis ACL")`,
    });
  }
  if (!access.throttle) {
    findings.push({
      check,
      verdict: 'WARN',
      message: `ACL user ${user} may not run the shared rate limit: the limit would not be enforced`,
      fix: `ACL SETUSER ${user} ~${config.throttleKeyPrefix}:* +incr +pttl +pexpire`,
    });
  }
  if (findings.length === 0) {
    findings.push({
      check,
      verdict: 'OK',
      message: `${where} as ${user}: PING, evidence records and the rate limit work`,
    });
  }
  return findings;
}

/** The LLM provider: the key is accepted and the model exists (the service's own start-up check). */
export async function checkLlm(): Promise<Finding[]> {
  const check = 'llm';
  let llm: ReturnType<typeof loadLlmConfig>;
  try {
    llm = loadLlmConfig();
  } catch (error) {
    return [
      { check, verdict: 'FAIL', message: configProblemsOf(error).join('; '), fix: 'set the LLM_* keys' },
    ];
  }
  const result = await checkLlmProvider(llm);
  const what = `${llm.model} at ${llm.baseUrl}`;
  // The check names the setting that is wrong, and only that one (docs/provider-failures.md).
  if (result.up)
    return [
      { check, verdict: 'OK', message: `${what}: ${result.message}${result.fix ? ` (${result.fix})` : ''}` },
    ];
  return [
    {
      check,
      verdict: 'FAIL',
      message: `${what}: ${result.message}`,
      fix: result.fix ?? 'read the provider message above (docs/provider-failures.md)',
    },
  ];
}

function grantFix(source: MysqlDataSourceConfig): string {
  const grants = [...source.schemas.keys()].map(
    (schema) => `GRANT SELECT ON \`${schema}\`.* TO 'reader'@'%';`,
  );
  return `use an account with SELECT only: CREATE USER 'reader'@'%' IDENTIFIED BY '...'; ${grants.join(' ')} (docs/getting-started-own-data.md)`;
}

/** Each business data source of the allowlist: reachable, read-only, every allowlisted table and column there. */
export async function checkDataSources(): Promise<Finding[]> {
  const check = 'business data sources';
  let sources: MysqlDataSourceConfig[];
  let file: string;
  try {
    const env = validateEnv(ToolsEnv);
    file = env.MYSQL_TOOLS_CONFIG;
    sources = loadMysqlToolsConfig(file);
    const database = databaseConfig();
    refuseServiceDatabase(
      sources,
      { host: database.host, port: database.port, database: database.database },
      file,
    );
  } catch (error) {
    return [
      {
        check,
        verdict: 'FAIL',
        message: configProblemsOf(error).join('; '),
        fix: 'fix MYSQL_TOOLS_CONFIG or the allowlist file, and set the ${ENV} variables it references',
      },
    ];
  }
  if (sources.length === 0) {
    return [
      {
        check,
        verdict: 'WARN',
        message: `${file} lists no data source: query_mysql has nothing to read`,
        fix: 'add your business database to the allowlist (docs/getting-started-own-data.md)',
      },
    ];
  }
  const findings: Finding[] = [];
  for (const source of sources) {
    const name = `data source ${source.id}`;
    const inspection = await inspectDataSource(source);
    if (!inspection.reachable) {
      findings.push({
        check: name,
        verdict: 'FAIL',
        message: `cannot connect to ${source.host}:${source.port}: ${inspection.reason}`,
        fix: `check its url, username and password in ${file} and the variables they reference`,
      });
      continue;
    }
    const problems: Finding[] = [];
    if (inspection.grants.beyondSelect.length > 0) {
      problems.push({
        check: name,
        verdict: 'FAIL',
        message: `the account is not read-only: ${inspection.grants.beyondSelect.join(', ')}`,
        fix: grantFix(source),
      });
    }
    if (inspection.grants.roles.length > 0) {
      problems.push({
        check: name,
        verdict: 'WARN',
        message: `the account holds role(s) ${inspection.grants.roles.join(', ')} whose privileges were not inspected`,
        fix: 'check SHOW GRANTS FOR each role, or grant SELECT to the account directly',
      });
    }
    if (inspection.session.length > 0) {
      problems.push({
        check: name,
        verdict: 'FAIL',
        message: `query_mysql cannot pin a session there and would refuse every query: ${inspection.session.join('; ')}`,
        fix: 'remove skip-character-set-client-handshake from the server options (utf8mb4 must reach the session)',
      });
    }
    if (inspection.missing.length > 0) {
      problems.push({
        check: name,
        verdict: 'FAIL',
        message: `allowlisted but not found or not readable by the account: ${inspection.missing.join(', ')}`,
        fix: `correct the names in ${file}, or GRANT SELECT on them to the account`,
      });
    }
    if (problems.length === 0) {
      const tables = [...source.schemas.values()].reduce((sum, tablesOf) => sum + tablesOf.size, 0);
      problems.push({
        check: name,
        verdict: 'OK',
        message: `${source.host}:${source.port}: reachable, SELECT only, all ${tables} allowlisted table(s) and their columns found`,
      });
    }
    findings.push(...problems, columnRulesFinding(name, source));
  }
  return findings;
}

/** Which columns' values the agent never sees, and why: an OK line, so nothing is hidden unannounced. */
function columnRulesFinding(check: string, source: MysqlDataSourceConfig): Finding {
  const { byName, listed, shown } = describeColumnRules(source);
  const parts = [
    byName.length > 0 ? `by name: ${byName.join(', ')}` : '',
    listed.length > 0 ? `by hidden-columns: ${listed.join(', ')}` : '',
  ].filter(Boolean);
  return {
    check,
    verdict: 'OK',
    message:
      (parts.length > 0
        ? `values hidden from the agent ${parts.join('; ')}`
        : 'no column values hidden from the agent') +
      (shown.length > 0 ? `; shown although sensitive by name (shown-columns): ${shown.join(', ')}` : ''),
  };
}

/** The log source: the selected LOG_BACKEND's own check (logs/log-backends.ts). */
export function checkLogs(): Promise<Finding[]> {
  return checkLogBackend();
}

/** The knowledge base: the selected KNOWLEDGE_BACKEND's own check (knowledge/knowledge-backends.ts). */
export function checkKnowledge(state: ServiceDatabaseState | null): Promise<Finding[]> {
  return checkKnowledgeBackend(state);
}
