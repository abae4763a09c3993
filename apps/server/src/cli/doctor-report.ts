import type { Finding } from './doctor-checks';

/** `OK   check: message`, and for WARN/FAIL an indented `fix:` line. */
export function formatFinding(finding: Finding): string {
  const head = `${finding.verdict.padEnd(4)} ${finding.check}: ${finding.message}`;
  return finding.fix && finding.verdict !== 'OK' ? `${head}\n     fix: ${finding.fix}` : head;
}

/** 1 when any check FAILed (a blocking problem), 0 otherwise: warnings never block. */
export function doctorExitCode(findings: readonly Finding[]): number {
  return findings.some((finding) => finding.verdict === 'FAIL') ? 1 : 0;
}

export function doctorSummary(findings: readonly Finding[]): string {
  const count = (verdict: Finding['verdict']) =>
    findings.filter((finding) => finding.verdict === verdict).length;
  const failed = count('FAIL');
  return failed > 0
    ? `doctor: ${failed} blocking problem(s), ${count('WARN')} warning(s): fix the FAIL lines before the first chat`
    : `doctor: no blocking problem, ${count('WARN')} warning(s)`;
}
