import { createBusinessDatabase } from './business-db';

/**
 * `node dist/test/support/business-db-cli.js`: (re)creates the demo business database named by
 * ORDER_MYSQL_URL with the ORDER_MYSQL_USERNAME/PASSWORD read-only account, as the DB_* admin user.
 */
async function main(): Promise<void> {
  const url = new URL(process.env.ORDER_MYSQL_URL ?? 'mysql://127.0.0.1:3306/superbiz_demo_orders');
  await createBusinessDatabase(
    {
      host: process.env.DB_HOST ?? url.hostname,
      port: Number(process.env.DB_PORT ?? url.port ?? 3306),
      user: process.env.DB_USER ?? 'root',
      password: process.env.DB_PASSWORD ?? '',
    },
    {
      schema: url.pathname.replace(/^\//, ''),
      user: process.env.ORDER_MYSQL_USERNAME ?? 'superbiz_reader',
      password: process.env.ORDER_MYSQL_PASSWORD ?? 'demo-reader-password',
    },
  );
  process.stdout.write(`business database ${url.pathname.slice(1)} ready\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`business-db: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
