/** Connection settings of the real services the e2e suite uses; overridable for other machines. */
export const TEST_MYSQL = {
  host: process.env.TEST_MYSQL_HOST ?? '127.0.0.1',
  port: Number(process.env.TEST_MYSQL_PORT ?? 3306),
  user: process.env.TEST_MYSQL_USER ?? 'root',
  password: process.env.TEST_MYSQL_PASSWORD ?? '',
};
export const TEST_REDIS = {
  host: process.env.TEST_REDIS_HOST ?? '127.0.0.1',
  port: Number(process.env.TEST_REDIS_PORT ?? 6379),
};
