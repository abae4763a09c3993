import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import {
  checkConfiguration,
  checkDataSources,
  checkKnowledge,
  checkLlm,
  checkLogs,
  checkRedis,
  checkServiceDatabase,
  Finding,
} from './doctor-checks';
import { doctorExitCode, doctorSummary, formatFinding } from './doctor-report';

/**
 * `npm run doctor`: checks a configuration (the same environment `npm start` reads) before the first
 * chat, with the libs' own config slices, stores and probes. Every check runs even when an earlier one
 * fails. Exit: 1 on a blocking problem (a FAIL line), 0 otherwise. Prints no secret.
 */
async function main(): Promise<number> {
  // The stores log through Nest's logger; the doctor reports their outcome itself.
  Logger.overrideLogger(false);
  const findings: Finding[] = [];
  const report = (more: Finding[]) => {
    for (const finding of more) process.stdout.write(`${formatFinding(finding)}\n`);
    findings.push(...more);
  };
  report(checkConfiguration());
  const database = await checkServiceDatabase();
  report(database.findings);
  report(await checkRedis());
  report(await checkLlm());
  report(await checkDataSources());
  report(await checkLogs());
  report(await checkKnowledge(database.state));
  process.stdout.write(`${doctorSummary(findings)}\n`);
  return doctorExitCode(findings);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`doctor failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
