export { ToolsModule } from './tools.module';
export { toolsConfig } from './config/tools.config';
export type { ToolsConfig } from './config/tools.config';
export {
  DEFAULT_ALLOWED_FUNCTIONS,
  loadMysqlToolsConfig,
  parseMysqlToolsConfig,
} from './mysql/mysql-tools-config';
export type { MysqlDataSourceConfig } from './mysql/mysql-tools-config';
