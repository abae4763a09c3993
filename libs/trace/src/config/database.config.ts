import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvBoolean, EnvSection, validateEnv } from '@app/config';

/** The service's own database (sessions, runs, trace, audit, knowledge). Never the business datasource. */
@EnvSection('trace', 'Service database')
export class DatabaseEnv {
  /** 'mariadb' for MariaDB (the default here), 'mysql' for MySQL 8: TypeORM's schema handling differs. */
  @IsIn(['mariadb', 'mysql'])
  DB_TYPE: 'mariadb' | 'mysql' = 'mariadb';

  @IsString()
  @MinLength(1)
  DB_HOST: string = '127.0.0.1';

  @IsInt()
  @Min(1)
  @Max(65535)
  DB_PORT: number = 3306;

  @IsString()
  @MinLength(1)
  DB_USER: string = 'root';

  @IsString()
  DB_PASSWORD: string = '';

  @IsString()
  @MinLength(1)
  DB_NAME: string = 'superbiz';

  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE: number = 10;

  /**
   * A separate small pool for the writes that stand between a request and its first SSE event (the
   * session and run rows), so `metadata` never queues behind the trace writes of runs in flight.
   */
  @IsInt()
  @Min(1)
  @Max(50)
  DB_ADMISSION_POOL_SIZE: number = 8;

  @IsInt()
  @Min(100)
  @Max(60000)
  DB_CONNECT_TIMEOUT_MS: number = 5000;

  /**
   * How long one statement of the service waits for a row or metadata lock (innodb_lock_wait_timeout
   * and lock_wait_timeout, pinned on every connection), so a lock held elsewhere — a purge, a DDL, an
   * operator's open transaction — fails a write within this bound instead of holding a run.
   */
  @IsInt()
  @Min(1)
  @Max(120)
  DB_LOCK_WAIT_TIMEOUT_SECONDS: number = 10;

  /**
   * The longest a run-journal write may take past its run's deadline (its client-side timeout is the
   * run's remaining time plus this grace), and how long a request waits for its admission rows.
   */
  @IsInt()
  @Min(500)
  @Max(60000)
  DB_WRITE_GRACE_MS: number = 5000;

  @EnvBoolean()
  @IsBoolean()
  DB_MIGRATIONS_RUN: boolean = true;

  /** How long a start-up or `migration:run` waits for another process that is migrating the same database. */
  @IsInt()
  @Min(1)
  @Max(3600)
  DB_MIGRATIONS_LOCK_TIMEOUT_SECONDS: number = 120;
}

export const databaseConfig = registerAs('database', () => {
  const env = validateEnv(DatabaseEnv);
  return {
    type: env.DB_TYPE,
    host: env.DB_HOST,
    port: env.DB_PORT,
    username: env.DB_USER,
    password: env.DB_PASSWORD,
    database: env.DB_NAME,
    poolSize: env.DB_POOL_SIZE,
    admissionPoolSize: env.DB_ADMISSION_POOL_SIZE,
    connectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
    lockWaitTimeoutSeconds: env.DB_LOCK_WAIT_TIMEOUT_SECONDS,
    writeGraceMs: env.DB_WRITE_GRACE_MS,
    migrationsRun: env.DB_MIGRATIONS_RUN,
    migrationsLockTimeoutSeconds: env.DB_MIGRATIONS_LOCK_TIMEOUT_SECONDS,
  };
});

export type DatabaseConfig = ConfigType<typeof databaseConfig>;
