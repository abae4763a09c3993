/**
 * Jest setup file of the service-backed projects: each jest worker has its own service database, made by
 * the global setup (`workerDatabase`). Files run one after another within a worker, but two workers run
 * files at the same time, and every app a file boots sweeps its database (run leases, owed notifications):
 * on one shared database a file's rows would be taken over by another file's app.
 */
import { workerDatabase } from './service-database';

const database = workerDatabase(process.env.E2E_SERVICE_DB_BASE ?? '', process.env.JEST_WORKER_ID ?? '1');
process.env.DB_NAME = database;
// Files derive their own extra databases from it, so those are per worker too.
process.env.E2E_SERVICE_DB = database;
