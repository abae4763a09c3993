import { ConfigType, registerAs } from '@nestjs/config';
import { IsIn, IsString, MinLength } from 'class-validator';
import { validateEnv } from '@app/config';
import { loadMysqlToolsConfig } from '../mysql/mysql-tools-config';

export class ToolsEnv {
  /** The separate YAML allowlist of business datasources for query_mysql (seed §9.1). */
  @IsString() @MinLength(1) MYSQL_TOOLS_CONFIG: string = 'config/mysql-tools.yaml';

  @IsIn(['embedded', 'pyrag']) KNOWLEDGE_BACKEND: 'embedded' | 'pyrag' = 'embedded';
}

export const toolsConfig = registerAs('tools', () => {
  const env = validateEnv(ToolsEnv);
  return {
    knowledgeBackend: env.KNOWLEDGE_BACKEND,
    mysqlDataSources: loadMysqlToolsConfig(env.MYSQL_TOOLS_CONFIG),
  };
});
export type ToolsConfig = ConfigType<typeof toolsConfig>;
