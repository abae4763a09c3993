import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';

/** Bounds of one webhook body (docs/alerts.md); Alertmanager's `max_alerts` keeps a group under them. */
export const ALERT_LIMITS = {
  maxAlerts: 100,
  maxLabels: 64,
  maxAnnotations: 32,
  maxNameChars: 128,
  maxLabelValueChars: 1024,
  maxAnnotationValueChars: 4096,
  maxUrlChars: 2048,
  maxGroupKeyChars: 1024,
  maxReceiverChars: 256,
} as const;

/** The webhook versions accepted: Alertmanager's payload v4, and Grafana's alerting webhook (version "1"), which extends it. */
export const WEBHOOK_VERSIONS = ['4', '1'] as const;
export const ALERT_STATUSES = ['firing', 'resolved'] as const;

/** Go's RFC 3339 times as Alertmanager and Grafana write them (fractions up to nanoseconds). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** True when `text` holds a C0 control or DEL; `allowWhitespace` lets tab and newline through (values). */
function hasControl(text: string, allowWhitespace: boolean): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x7f || (code < 0x20 && !(allowWhitespace && (code === 0x09 || code === 0x0a)))) return true;
  }
  return false;
}

/**
 * A string-to-string map of at most `maxEntries` entries, names 1..maxNameChars characters and values at
 * most `maxValueChars`: Alertmanager's labels and annotations. Anything else (nested objects, numbers,
 * arrays) is refused, so the map can be shown as data.
 */
function IsBoundedStringMap(maxEntries: number, maxValueChars: number, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isBoundedStringMap',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be an object of at most ${maxEntries} string values (names 1-${ALERT_LIMITS.maxNameChars} characters, values at most ${maxValueChars}, no control characters)`,
        ...options,
      },
      validator: {
        validate(value: unknown): boolean {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value as Record<string, unknown>);
          return (
            entries.length <= maxEntries &&
            entries.every(
              ([name, text]) =>
                name.length >= 1 &&
                name.length <= ALERT_LIMITS.maxNameChars &&
                !hasControl(name, false) &&
                typeof text === 'string' &&
                text.length <= maxValueChars &&
                !hasControl(text, true),
            )
          );
        },
      },
    });
}

const LABELS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: ALERT_LIMITS.maxLabelValueChars },
  maxProperties: ALERT_LIMITS.maxLabels,
} as const;
const ANNOTATIONS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: ALERT_LIMITS.maxAnnotationValueChars },
  maxProperties: ALERT_LIMITS.maxAnnotations,
} as const;

export class WebhookAlertDto {
  @ApiProperty({ enum: ALERT_STATUSES })
  @IsIn(ALERT_STATUSES, { message: 'status must be firing or resolved' })
  status!: (typeof ALERT_STATUSES)[number];

  @ApiProperty(LABELS_SCHEMA)
  @IsBoundedStringMap(ALERT_LIMITS.maxLabels, ALERT_LIMITS.maxLabelValueChars)
  labels!: Record<string, string>;

  @ApiProperty(ANNOTATIONS_SCHEMA)
  @IsBoundedStringMap(ALERT_LIMITS.maxAnnotations, ALERT_LIMITS.maxAnnotationValueChars)
  annotations!: Record<string, string>;

  @ApiProperty({ format: 'date-time' })
  @Matches(RFC3339, { message: 'startsAt must be an RFC 3339 time' })
  startsAt!: string;

  @ApiProperty({ format: 'date-time', description: '0001-01-01T00:00:00Z while the alert has no end' })
  @Matches(RFC3339, { message: 'endsAt must be an RFC 3339 time' })
  endsAt!: string;

  @ApiProperty({ maxLength: ALERT_LIMITS.maxUrlChars })
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  generatorURL!: string;

  @ApiProperty({ pattern: '^[A-Za-z0-9]{1,64}$' })
  @IsString()
  @Matches(/^[A-Za-z0-9]{1,64}$/, { message: 'fingerprint must be 1-64 letters or digits' })
  fingerprint!: string;

  // Grafana's additions to each alert: accepted and bounded, never used.
  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxUrlChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  silenceURL?: string;

  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxUrlChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  dashboardURL?: string;

  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxUrlChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  panelURL?: string;

  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxUrlChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  imageURL?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number' },
    nullable: true,
    description: 'Grafana only',
  })
  @IsOptional()
  @IsObject()
  values?: Record<string, number> | null;

  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxAnnotationValueChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxAnnotationValueChars)
  valueString?: string;
}

/**
 * Alertmanager's webhook body, version 4 (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config),
 * and Grafana's alerting webhook, which sends the same fields as version "1" plus a few of its own.
 * Unknown fields are refused (400), like every body of this service.
 */
export class AlertmanagerWebhookDto {
  @ApiProperty({ enum: WEBHOOK_VERSIONS, description: '"4": Alertmanager; "1": Grafana alerting' })
  @IsIn(WEBHOOK_VERSIONS, { message: 'version must be "4" (Alertmanager) or "1" (Grafana alerting)' })
  version!: (typeof WEBHOOK_VERSIONS)[number];

  @ApiProperty({ maxLength: ALERT_LIMITS.maxGroupKeyChars })
  @IsString()
  @Length(1, ALERT_LIMITS.maxGroupKeyChars, {
    message: `groupKey must be 1 to ${ALERT_LIMITS.maxGroupKeyChars} characters`,
  })
  groupKey!: string;

  @ApiProperty({ minimum: 0 })
  @IsInt()
  @Min(0)
  truncatedAlerts!: number;

  @ApiProperty({ enum: ALERT_STATUSES })
  @IsIn(ALERT_STATUSES, { message: 'status must be firing or resolved' })
  status!: (typeof ALERT_STATUSES)[number];

  @ApiProperty({ maxLength: ALERT_LIMITS.maxReceiverChars })
  @IsString()
  @Length(1, ALERT_LIMITS.maxReceiverChars, {
    message: `receiver must be 1 to ${ALERT_LIMITS.maxReceiverChars} characters`,
  })
  receiver!: string;

  @ApiProperty(LABELS_SCHEMA)
  @IsBoundedStringMap(ALERT_LIMITS.maxLabels, ALERT_LIMITS.maxLabelValueChars)
  groupLabels!: Record<string, string>;

  @ApiProperty(LABELS_SCHEMA)
  @IsBoundedStringMap(ALERT_LIMITS.maxLabels, ALERT_LIMITS.maxLabelValueChars)
  commonLabels!: Record<string, string>;

  @ApiProperty(ANNOTATIONS_SCHEMA)
  @IsBoundedStringMap(ALERT_LIMITS.maxAnnotations, ALERT_LIMITS.maxAnnotationValueChars)
  commonAnnotations!: Record<string, string>;

  @ApiProperty({ maxLength: ALERT_LIMITS.maxUrlChars })
  @IsString()
  @MaxLength(ALERT_LIMITS.maxUrlChars)
  externalURL!: string;

  @ApiProperty({ type: [WebhookAlertDto], minItems: 1, maxItems: ALERT_LIMITS.maxAlerts })
  @IsArray()
  @ArrayMinSize(1, { message: 'alerts must hold at least one alert' })
  @ArrayMaxSize(ALERT_LIMITS.maxAlerts, {
    message: `alerts must hold at most ${ALERT_LIMITS.maxAlerts} alerts (set max_alerts in the webhook config)`,
  })
  @ValidateNested({ each: true })
  @Type(() => WebhookAlertDto)
  alerts!: WebhookAlertDto[];

  // Grafana's additions to the body: accepted and bounded, never used.
  @ApiPropertyOptional({ description: 'Grafana only' })
  @IsOptional()
  @IsNumber()
  orgId?: number;

  @ApiPropertyOptional({ maxLength: ALERT_LIMITS.maxAnnotationValueChars, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(ALERT_LIMITS.maxAnnotationValueChars)
  title?: string;

  @ApiPropertyOptional({ maxLength: 64, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  state?: string;

  @ApiPropertyOptional({ maxLength: 16_384, description: 'Grafana only' })
  @IsOptional()
  @IsString()
  @MaxLength(16_384)
  message?: string;
}
