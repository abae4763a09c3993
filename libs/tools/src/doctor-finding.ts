import { ConfigValidationError } from '@app/config';

export type DoctorVerdict = 'OK' | 'WARN' | 'FAIL';

/** One line of `npm run doctor`: what was checked, the verdict, and for WARN/FAIL what to do. */
export interface DoctorFinding {
  check: string;
  verdict: DoctorVerdict;
  message: string;
  fix?: string;
}

/** Config errors name keys and never values (ConfigValidationError); anything else gets a generic text. */
export function configProblemsOf(error: unknown): string[] {
  return error instanceof ConfigValidationError ? error.problems : ['the configuration could not be read'];
}
