import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { databaseConfig, DatabaseConfig } from './config/database.config';
import { buildDataSourceOptions } from './database/data-source-options';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [ConfigModule.forFeature(databaseConfig)],
      inject: [databaseConfig.KEY],
      useFactory: (config: DatabaseConfig) => ({
        ...buildDataSourceOptions(config),
        // A start-up that cannot reach MySQL fails at once with the driver's message: no hidden retries.
        retryAttempts: 0,
      }),
    }),
  ],
})
export class TraceModule {}
